import Testing
import SluiceBench
@testable import Sluice

/// The yajl wrapper on its own: slices, statuses, offsets, the end of input, and a fresh handle after an error.
@Suite struct TokenizerTests {
    final class Harness {
        let plan: CompiledPlan
        let queue: BatchQueue
        let machine: UnsafeMutablePointer<RecordStateMachine>
        let tokenizer: YajlTokenizer

        init(allowsMultipleValues: Bool = true) throws {
            plan = try PlanCompiler.compile([field("n", .int64, path: "$")])
            queue = BatchQueue(fields: plan.fields, capacity: 16)
            machine = .allocate(capacity: 1)
            machine.initialize(to: RecordStateMachine(plan: plan, batches: queue, outerLevels: 0, defersFinish: false, maximumDepth: 8, stopsAtFirstRejection: false))
            tokenizer = YajlTokenizer(machine: machine, allowsMultipleValues: allowsMultipleValues)
        }

        deinit {
            machine.pointee.deallocate()
            machine.deinitialize(count: 1)
            machine.deallocate()
        }

        func feed(_ text: String, at offset: Int = 0) -> YajlTokenizer.Status {
            Array(text.utf8).withUnsafeBufferPointer { tokenizer.parse($0.baseAddress!, count: $0.count, at: offset) }
        }

        var values: [Int64] {
            machine.pointee.flush()
            var result: [Int64] = []
            while let batch = queue.takeReady() {
                result += (0..<batch.count).compactMap { batch.column(0).int64($0) }
                queue.recycle(batch)
            }
            return result
        }
    }

    @Test func aNumberSplitAcrossSlicesArrivesWhole() throws {
        let harness = try Harness()
        #expect(harness.feed("12") == .ok)
        #expect(harness.feed("34 5") == .ok)
        #expect(harness.tokenizer.finish() == .ok)
        #expect(harness.values == [1234, 5])
    }

    @Test func malformedInputReportsTheAbsoluteOffsetJustPastTheBadByte() throws {
        let harness = try Harness()
        #expect(harness.feed("1 2 ", at: 100) == .ok)
        #expect(harness.feed("x", at: 104) == .malformed(message: "lexical error: invalid char in json text.", offset: 105))
    }

    /// The tokenizer, not its caller, tells a value cut off by the end of the input from a malformed one.
    @Test func aValueCutOffByTheEndIsReportedAtTheEnd() throws {
        let harness = try Harness()
        #expect(harness.feed("[1, 2", at: 0) == .ok)
        #expect(harness.tokenizer.finish() == .truncated(offset: 5))
        let malformed = try Harness()
        #expect(malformed.feed("[1, 2 x", at: 0) == .malformed(message: "lexical error: invalid char in json text.", offset: 7))
    }

    @Test func formFeedAndVerticalTabAreNotWhitespace() throws {
        let harness = try Harness()
        #expect(harness.feed("1 \u{0C}2") == .malformed(message: "lexical error: form feed (a control character that is not JSON whitespace)", offset: 3))
        harness.tokenizer.reset()
        #expect(harness.feed("\u{0B}") == .malformed(message: "lexical error: vertical tab (a control character that is not JSON whitespace)", offset: 1))
    }

    @Test func aFreshHandleForgetsAnError() throws {
        let harness = try Harness()
        #expect(harness.feed("]") != .ok)
        #expect(harness.feed("7 ") != .ok)
        harness.tokenizer.reset()
        #expect(harness.feed("7 ") == .ok)
        #expect(harness.values == [7])
    }

    @Test func oneDocumentRejectsASecondValue() throws {
        let harness = try Harness(allowsMultipleValues: false)
        // The second value is only known to be complete at the end of the input.
        #expect(harness.feed("1 2") == .ok)
        #expect(harness.tokenizer.finish() == .malformed(message: "parse error: trailing garbage", offset: 3))
    }

    @Test func theBaselineTokenizesAndRejectsMalformedInput() throws {
        #expect(try TokenizerBaseline.tokenize(bytes: Array("{\"a\":[1,2]}\n{\"b\":null}".utf8)) == 22)
        #expect(throws: BenchError.self) { try TokenizerBaseline.tokenize(bytes: Array("{\"a\":}".utf8)) }
    }
}
