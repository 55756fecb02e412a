import Foundation
import Testing
@testable import Sluice

/// The malformed-input corpus through the parallel pipeline: each invalid document as one line of an NDJSON
/// stream and as one element of a top-level array, between valid records. Whatever the framers and workers make
/// of it must be what one worker reading on the caller's thread makes of it: the same records, rejections and
/// ending, at chunk sizes that cut it anywhere, and never a hang or a crash.
@Suite struct PipelineConformanceTests {
    static let fields = [field("v", .int64, optional: true), field("value", .json, path: "$", optional: true)]

    static func expectSame(_ text: [UInt8], shape: InputShape, name: String, isBlank: Bool = false) throws {
        let reference = try transcript(of: .bytes(text, name: name), fields: fields,
                                       options: ReaderOptions(shape: shape, rejectionPolicy: .collect))
        // The run must get as far as the invalid element or line and report it there.
        #expect(reference.rows.first?.hasPrefix("#1@1:") == true && reference.rows.first?.hasSuffix(" v=1 value={\"v\": 1}") == true,
                "\(name): \(reference)")
        // (A document of only whitespace is, as an NDJSON line, a blank line, which holds no record.)
        #expect(!reference.rejections.isEmpty || reference.error != nil || isBlank, "\(name) passed for valid: \(reference)")
        for (workers, chunk) in [(2, 5), (2, 1 << 20), (3, 64)] {
            var result = try transcript(of: .bytes(text, name: name), fields: fields,
                                        options: ReaderOptions(shape: shape, rejectionPolicy: .collect, workers: workers, chunkSize: chunk))
            var expected = reference
            if shape == .array {
                // A syntax error's quoted context shows the bytes as they were parsed: a worker sees its chunk,
                // which ends at the problem and has the array's commas and brackets blanked. Everything else
                // (records, ordinals, lines, offsets, kinds, messages, raw text, the ending, the counts) must agree.
                result = Self.withoutQuotedContext(result)
                expected = Self.withoutQuotedContext(expected)
            }
            #expect(result == expected, "\(name) as \(shape), \(workers) workers, chunks of \(chunk):\n\(result)\n--- sequential\n\(expected)")
        }
    }

    /// `… near "…"` removed from every rejection and the error.
    static func withoutQuotedContext(_ transcript: RunTranscript) -> RunTranscript {
        func strip(_ text: String) -> String {
            text.replacingOccurrences(of: #" near "(?:[^"\\]|\\.)*""#, with: "", options: .regularExpression)
        }
        var stripped = transcript
        stripped.rejections = transcript.rejections.map(strip)
        stripped.error = transcript.error.map(strip)
        return stripped
    }

    /// One small array and every strict prefix of it (the input cut at every byte), at every chunk size a small
    /// input can get: each cut must end the run with the same records and rejection as one reader, never exit
    /// clean with the cut-off element dropped or the unclosed array taken as whole.
    @Test func smallArrayCutAtEveryByte() throws {
        let whole = Array(#"[{"v": 1}, 2 ,-0.5e3,"s\"]x", true,null ,[1,{"a":"]"}],"é",{}]"#.utf8)
        for end in 1...whole.count {
            let text = Array(whole[..<end])
            let reference = try Self.expectSameInSmallChunks(text, name: "cut at \(end)")
            #expect((reference.error == nil) == (end == whole.count), "cut at \(end): \(reference)")
        }
    }

    /// Bare numbers and literals that one reader's lexer ends before the next byte (`01` is `0` then `1`): a
    /// second value after an element ends the run there, whatever the number of workers.
    @Test(arguments: [
        "[1,2", #"[{"id":1},"ab"#, "[01,2]", "[truefalse]", "[-01]", #"[1"a"]"#, "[1e5e5]", "[1.5.3]", "[nullx]", "[1x]",
        "[1,tr", "[1,-", "[1E+]", "[0.]", "[-]", "[2,nul]", "[1,2 ", "[[1],2", "[1]2", "[1][2]", "[\"a\"1]", "[1{}]",
    ])
    func malformedScalarsInSmallArrays(_ text: String) throws {
        let reference = try Self.expectSameInSmallChunks(Array(text.utf8), name: text)
        #expect(reference.error != nil, "\(text) was accepted: \(reference)")
    }

    /// Runs `text` as an array sequentially and with 2 and 3 workers at chunk sizes from one byte to the default
    /// (which a small input cuts into 64 KiB chunks); returns the sequential transcript.
    static func expectSameInSmallChunks(_ text: [UInt8], name: String) throws -> RunTranscript {
        let fields = [field("value", .json, path: "$", optional: true)]
        let reference = withoutQuotedContext(try transcript(of: .bytes(text, name: name), fields: fields, options: ReaderOptions(shape: .array, rejectionPolicy: .collect)))
        for workers in [2, 3] {
            for chunk in [1, 2, 3, 5, 64, 1 << 20] {
                let options = ReaderOptions(shape: .array, batchCapacity: 2, rejectionPolicy: .collect, workers: workers, chunkSize: chunk)
                let result = withoutQuotedContext(try transcript(of: .bytes(text, name: name), fields: fields, options: options))
                #expect(result == reference, "\(name), \(workers) workers, chunks of \(chunk):\n\(result)\n--- sequential\n\(reference)")
            }
        }
        return reference
    }

    @Test(arguments: ConformanceTests.files(in: ConformanceTests.parsing, prefix: "n_"))
    func invalidLineInNDJSON(_ name: String) throws {
        var document = Array(try Data(contentsOf: ConformanceTests.parsing.appendingPathComponent(name)))
        // One line: its own line feeds (and carriage returns) become spaces.
        document = document.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }
        let text = Array("{\"v\": 1}\n".utf8) + document + Array("\n{\"v\": 2}\n".utf8)
        try Self.expectSame(text, shape: .ndjson, name: name, isBlank: document.allSatisfy(ShapeDetector.isWhitespace))
    }

    @Test(arguments: ConformanceTests.files(in: ConformanceTests.parsing, prefix: "n_"))
    func invalidElementInArray(_ name: String) throws {
        let document = Array(try Data(contentsOf: ConformanceTests.parsing.appendingPathComponent(name)))
        let text = Array("[{\"v\": 1},\n".utf8) + document + Array(",\n{\"v\": 2}]\n".utf8)
        try Self.expectSame(text, shape: .array, name: name)
    }
}
