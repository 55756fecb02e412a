import Testing
import SluiceBench
@testable import Sluice

/// yajl's verdict on its own: absolute offsets, where the bytes end, JSON's whitespace, and one document's second
/// value.
@Suite struct TokenizerTests {
    final class Harness {
        let plan: CompiledPlan
        let queue: BatchQueue
        let machine: UnsafeMutablePointer<RecordStateMachine>
        let tokenizer: YajlTokenizer

        init() throws {
            plan = try PlanCompiler.compile([field("n", .int64, path: "$")])
            queue = BatchQueue(fields: plan.fields, capacity: 16)
            machine = .allocate(capacity: 1)
            machine.initialize(to: RecordStateMachine(plan: plan, batches: queue, defersFinish: false, maximumDepth: 8, stopsAtFirstRejection: false))
            tokenizer = YajlTokenizer(machine: machine, matchTables: MatchTables(plan: plan, mapsElements: false))
        }

        deinit {
            machine.pointee.deallocate()
            machine.deinitialize(count: 1)
            machine.deallocate()
        }

        func judge(_ text: String, at offset: Int = 0, ending: YajlTokenizer.JudgedEnd = .inputEnd, isDocument: Bool = false) -> YajlTokenizer.Verdict {
            Array(text.utf8).withUnsafeBufferPointer { tokenizer.judge($0.baseAddress!, count: $0.count, at: offset, ending: ending, isDocument: isDocument) }
        }
    }

    @Test func malformedInputIsPlacedAtTheAbsoluteOffsetJustPastTheBadByte() throws {
        let harness = try Harness()
        #expect(harness.judge("[1, x", at: 100) == .malformed(message: "lexical error: invalid char in json text.", offset: 105, insideRecord: true))
        #expect(harness.judge(" x", at: 100) == .malformed(message: "lexical error: invalid char in json text.", offset: 102, insideRecord: false))
    }

    /// A value cut off by the end of the input is truncated; cut off by the end of what was read so far, it is not
    /// yet damaged, though a container is open.
    @Test func aValueCutOffByTheEndIsTruncatedOnlyAtTheInputsEnd() throws {
        let harness = try Harness()
        #expect(harness.judge("[1, 2") == .truncated)
        #expect(harness.judge("[1, 2", ending: .readSoFar) == .truncated)
        #expect(harness.judge("12", ending: .readSoFar) == .wellFormed)
        #expect(harness.judge("[1, 2 x") == .malformed(message: "lexical error: invalid char in json text.", offset: 7, insideRecord: true))
    }

    @Test func formFeedAndVerticalTabAreNotWhitespace() throws {
        let harness = try Harness()
        #expect(harness.judge("[1, \u{0C}2]") == .malformed(message: "lexical error: form feed (a control character that is not JSON whitespace)", offset: 5, insideRecord: true))
        #expect(harness.judge("\u{0B}") == .malformed(message: "lexical error: vertical tab (a control character that is not JSON whitespace)", offset: 1, insideRecord: false))
    }

    @Test func aRecordFollowedByAnotherValueIsNotOneRecord() throws {
        let harness = try Harness()
        #expect(harness.judge("1 {}", ending: .lineFeed) == .extraValue(offset: 3))
        #expect(harness.judge("1 2", ending: .recordEnd) == .extraValue(offset: 3))
        // A document is one value, as yajl reads one: anything after it but whitespace is trailing garbage.
        #expect(harness.judge("1 2", isDocument: true) == .malformed(message: "parse error: trailing garbage", offset: 3, insideRecord: true))
        #expect(harness.judge("{} \n", isDocument: true) == .wellFormed)
    }

    @Test func nestingPastTheLimitIsPlacedWhereItOpens() throws {
        let harness = try Harness()
        #expect(harness.judge(String(repeating: "[", count: 9) + String(repeating: "]", count: 9)) == .tooDeep(offset: 9))
        #expect(harness.judge(String(repeating: "[", count: 8) + String(repeating: "]", count: 8)) == .wellFormed)
    }

    @Test func theBaselineTokenizesAndRejectsMalformedInput() throws {
        #expect(try TokenizerBaseline.tokenize(bytes: Array("{\"a\":[1,2]}\n{\"b\":null}".utf8)) == 22)
        #expect(throws: BenchError.self) { try TokenizerBaseline.tokenize(bytes: Array("{\"a\":}".utf8)) }
    }
}
