import Testing
@testable import Sluice

/// The framer finds the same element ends however its input is cut: one byte at a time, at the 8-byte word and
/// 64-byte block edges of its fast paths, and around them.
@Suite struct ArrayFramerTests {
    static func frame(_ text: String, step: Int) -> (ends: [Int], problem: ArrayFramer.Problem?, blanked: [UInt8]) {
        var bytes = Array(text.utf8)
        var framer = ArrayFramer(maximumDepth: 1000)
        defer { framer.deallocate() }
        var ends: [Int] = []
        var problem: ArrayFramer.Problem?
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

    @Test func nestingBeyondTheLimitIsAProblem() {
        var framer = ArrayFramer(maximumDepth: 3)
        defer { framer.deallocate() }
        var bytes = Array(("[" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "]").utf8)
        let result = bytes.withUnsafeMutableBufferPointer { framer.scan($0.baseAddress!, count: $0.count, at: 0) }
        #expect(result.problem?.message == "nesting too deep")
        #expect(result.problem?.offset == 4)
    }
}
