import Foundation
import Testing
@testable import Sluice

/// The malformed-input corpus through the parallel pipeline: each invalid document as one line of an NDJSON
/// stream and as one element of a top-level array, between valid records. Whatever the framers and workers make
/// of it must be what one sequential reader makes of it: the same records, rejections and ending, at chunk sizes
/// that cut it anywhere, and never a hang or a crash.
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
