import CStructuralScan
import Testing
@testable import Sluice

/// The framer finds the same element ends however its input is cut: one byte at a time, at the 8-byte word and
/// 64-byte block edges of its fast paths, and around them.
@Suite struct RecordFramerTests {
    static func frame(_ text: String, step: Int, pairsBrackets: Bool = true, readsValues: Bool = false)
        -> (ends: [Int], problem: RecordFramer.Problem?, blanked: [UInt8]) {
        var bytes = Array(text.utf8)
        var framer = RecordFramer(maximumDepth: 1000, pairsBrackets: pairsBrackets, readsValues: readsValues)
        defer { framer.deallocate() }
        var ends: [Int] = []
        var problem: RecordFramer.Problem?
        bytes.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count && problem == nil {
                let count = min(step, buffer.count - offset)
                let result = framer.scan(base + offset, count: count, at: offset)
                if let end = result.lastElementEnd { ends.append(end) }
                problem = result.problem
                offset += count
            }
        }
        return (ends, problem, bytes)
    }

    @Test(arguments: [7, 99, 2024])
    func boundariesDoNotDependOnHowTheInputIsCut(_ seed: UInt64) {
        let text = trickyArray(seed: seed, elements: 120)
        let whole = Self.frame(text, step: 1 << 30)
        #expect(whole.problem == nil)
        #expect(whole.ends.last == text.utf8.count - 1)
        for step in [1, 2, 3, 7, 8, 9, 63, 64, 65, 127, 128, 129, 1000] {
            let cut = Self.frame(text, step: step)
            #expect(cut.problem == nil, "step \(step)")
            #expect(cut.ends.last == whole.ends.last, "step \(step)")
            #expect(cut.blanked == whole.blanked, "step \(step)")
        }
    }

    /// What one build of the 64-byte block scan reports, step by step, scanning `bytes` as the framer does: from
    /// each opening bracket to where its value ends or a problem is (stepped over); `nil` when this processor
    /// cannot run the build.
    static func blockScanTrace(_ bytes: [UInt8], build: Int32, maximumDepth: Int, pairsBrackets: Bool = true) -> [String]? {
        var trace: [String] = []
        let closers = UnsafeMutablePointer<UInt8>.allocate(capacity: maximumDepth + 1)
        defer { closers.deallocate() }
        var position = 0
        while let opening = bytes[position...].firstIndex(where: { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") }),
              opening + 65 <= bytes.count {
            closers[0] = bytes[opening] &+ 2
            position = opening + 1
            var state = sluice_scan_state(depth: 1, in_string: 0, escaped: 0)
            let outcome = bytes.withUnsafeBufferPointer { buffer in
                sluice_scan_element_built(build, buffer.baseAddress, buffer.count, &position, &state, pairsBrackets ? closers : nil, maximumDepth)
            }
            guard outcome >= 0 else { return nil }
            trace.append("\(outcome)@\(position) depth \(state.depth) string \(state.in_string) escaped \(state.escaped)")
            if outcome == Int32(SLUICE_SCAN_CONTINUES) { break }
            if outcome != Int32(SLUICE_SCAN_ENDED) { position += 1 }
        }
        return trace
    }

    /// Every build of the block scan that this processor runs (SSE2, AVX2, AVX-512BW: the widest is chosen at
    /// run time) finds the same ends, problems and carried state, on arrays and on bracket soup with runs of
    /// backslashes across block edges.
    @Test(arguments: [7, 99, 2024, 31337])
    func everyBuildOfTheBlockScanAgrees(_ seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let alphabet = Array(#"{}[]"\\\ a"#.utf8)
        let soup = (0..<20_000).map { _ in alphabet[random.below(alphabet.count)] }
        for (bytes, depth) in [(Array(trickyArray(seed: seed, elements: 300).utf8.dropFirst()), 1000), (soup, 6)] {
            for pairs in [true, false] {
                let portable = try #require(Self.blockScanTrace(bytes, build: Int32(SLUICE_SCAN_PORTABLE), maximumDepth: depth, pairsBrackets: pairs))
                #expect(portable.count > 20)
                for build in [SLUICE_SCAN_AVX2, SLUICE_SCAN_AVX512] {
                    guard let trace = Self.blockScanTrace(bytes, build: Int32(build), maximumDepth: depth, pairsBrackets: pairs) else { continue }
                    #expect(trace == portable, "build \(build), pairing \(pairs)")
                }
            }
        }
    }

    @Test func punctuationOfTheOuterArrayBecomesSpaces() {
        let framed = Self.frame("[{\"a\":\"[,]\"} ,\n{\"b\":[1,2]},3]", step: 1 << 20)
        #expect(String(decoding: framed.blanked, as: UTF8.self) == " {\"a\":\"[,]\"}  \n{\"b\":[1,2]} 3 ")
        #expect(framed.problem == nil)
    }

    @Test(arguments: [
        ("[{\"a\":[1}]", "mismatched bracket", 8), ("[{\"a\":1}}]", "after array element, I expect ',' or ']'", 8),
        ("[{\"a\":1},,1]", "unallowed token at this point in JSON text", 9), ("[1]x", "trailing garbage", 3),
        ("{\"a\":1}", "expected a top-level array of records", 0),
    ])
    func structuralProblemsAreFoundWhereTheyAre(_ text: String, message: String, offset: Int) {
        for step in [1, 4, 1 << 20] {
            let framed = Self.frame(text, step: step)
            #expect(framed.problem?.message == message, "step \(step)")
            #expect(framed.problem?.offset == offset, "step \(step)")
        }
    }

    /// Counting brackets without pairing them (for simdjson's workers): an element ends where its brackets
    /// balance, whatever their kinds, however the input is cut; one of the right kinds frames as when they are paired.
    @Test func countedBracketsEndElementsWhereTheyBalance() {
        let text = "[{\"a\":[1}}, {\"b\": {\"c\": [" + String(repeating: "[1, \"x]\"],", count: 20) + "}]], 3]"
        let count = text.utf8.count
        #expect(Self.frame(text, step: 1, pairsBrackets: false).ends == [10, count - 4, count])
        for step in [3, 64, 65, 1 << 20] {
            let counted = Self.frame(text, step: step, pairsBrackets: false)
            #expect(counted.problem == nil, "step \(step)")
            #expect(counted.ends.last == count, "step \(step)")
            #expect(Self.frame(text, step: step).problem?.message == "mismatched bracket", "step \(step)")
        }
        let tricky = trickyArray(seed: 5, elements: 80)
        #expect(Self.frame(tricky, step: 1, pairsBrackets: false).ends == Self.frame(tricky, step: 1).ends)
    }

    @Test func nestingBeyondTheLimitIsAProblem() {
        var framer = RecordFramer(maximumDepth: 3)
        defer { framer.deallocate() }
        var bytes = Array(("[" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "]").utf8)
        let result = bytes.withUnsafeMutableBufferPointer { framer.scan($0.baseAddress!, count: $0.count, at: 0) }
        #expect(result.problem?.message == "nesting too deep")
        #expect(result.problem?.offset == 4)
    }

    /// A stream of values: each ends where yajl's lexer ends it, wherever the bytes were cut, nothing is blanked,
    /// and the stream may end after any value (a number at the very end is ended by the end).
    @Test func concatenatedValuesEndWhereYajlEndsThem() {
        let text = "{\"a\":\"}{\"}{}[1,[2]] 01 truefalse\"x\"-1.5e3\n\t[]7"
        let ends = [10, 12, 19, 21, 23, 27, 32, 35, 42, 45, 46]
        for step in [1, 2, 5, 64, 1 << 20] {
            var bytes = Array(text.utf8)
            var framer = RecordFramer(maximumDepth: 1000, readsValues: true)
            defer { framer.deallocate() }
            var problem: RecordFramer.Problem?
            bytes.withUnsafeMutableBufferPointer { buffer in
                var offset = 0
                while offset < buffer.count && problem == nil {
                    let count = min(step, buffer.count - offset)
                    problem = framer.scan(buffer.baseAddress! + offset, count: count, at: offset).problem
                    offset += count
                }
            }
            let end = framer.finish(at: bytes.count)
            #expect(problem == nil && end.problem == nil, "step \(step)")
            #expect(framer.takeElementEnds(upTo: .max) == ends, "step \(step)")
            #expect(bytes == Array(text.utf8), "step \(step)")
        }
    }

    /// In a stream, whatever is neither whitespace nor the start of a value is the worker's parser's to report, and
    /// a value cut off by the end is too; the end between values is no problem.
    @Test func aStreamLeavesItsProblemsToTheWorker() {
        for (text, offset) in [("{} ,{}", 3), ("1 ]", 2), ("{}}", 2), ("1 x", 2)] {
            let framed = Self.frame(text, step: 1, readsValues: true)
            #expect(framed.problem?.kind == .forWorker, "\(text)")
            #expect(framed.problem?.offset == offset, "\(text)")
        }
        for (text, isProblem) in [("{\"a\":1", true), ("\"ab", true), ("tru", true), ("1 ", false), ("{} \n", false), ("", false)] {
            var bytes = Array(text.utf8)
            var framer = RecordFramer(maximumDepth: 10, readsValues: true)
            defer { framer.deallocate() }
            let scanned = bytes.withUnsafeMutableBufferPointer { buffer in
                buffer.isEmpty ? nil : framer.scan(buffer.baseAddress!, count: buffer.count, at: 0).problem
            }
            #expect(scanned == nil, "\(text)")
            let end = framer.finish(at: bytes.count)
            #expect((end.problem?.kind == .forWorker) == isProblem, "\(text)")
            #expect(end.problem == nil || isProblem, "\(text)")
        }
    }
}
