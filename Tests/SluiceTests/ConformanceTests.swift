import Foundation
import Testing
@testable import Sluice

/// JSONTestSuite (Fixtures/conformance): every y_ file is accepted, every n_ file is rejected with a location,
/// every i_ file and every test_transform file gives the outcome recorded (and documented) under
/// Fixtures/conformance. Each file is one document, read in `.document` shape into one optional json field.
@Suite struct ConformanceTests {
    static let parsing = conformanceDirectory.appendingPathComponent("test_parsing")
    static let transform = conformanceDirectory.appendingPathComponent("test_transform")
    static let documentFields = [field("value", .json, path: "$", optional: true)]

    static func files(in directory: URL, prefix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    static func map(_ directory: URL, _ name: String, readBufferSize: Int = 1 << 20) throws -> RunTranscript {
        let bytes = Array(try Data(contentsOf: directory.appendingPathComponent(name)))
        return try transcript(
            of: .bytes(bytes, name: name), fields: documentFields,
            options: ReaderOptions(shape: .document, readBufferSize: readBufferSize, rejectionPolicy: .collect))
    }

    @Test func corpusIsPresent() {
        #expect(Self.files(in: Self.parsing, prefix: "y_").count > 90)
        #expect(Self.files(in: Self.parsing, prefix: "n_").count > 180)
    }

    @Test(arguments: files(in: parsing, prefix: "y_"))
    func acceptsValidDocument(_ name: String) throws {
        for size in [1, 7, 1 << 20] {
            let result = try Self.map(Self.parsing, name, readBufferSize: size)
            #expect(result.rows.count == 1, "\(name) with \(size)-byte reads: \(result)")
            #expect(result.rejections.isEmpty, "\(name): \(result)")
        }
    }

    @Test(arguments: files(in: parsing, prefix: "n_"))
    func rejectsInvalidDocumentWithALocation(_ name: String) throws {
        var outcomes: Set<String> = []
        for size in [1, 7, 1 << 20] {
            let result = try Self.map(Self.parsing, name, readBufferSize: size)
            #expect(result.rows.isEmpty, "\(name) was accepted with \(size)-byte reads")
            #expect(result.rejections.count == 1, "\(name): \(result)")
            #expect(result.rejections.first?.contains(" at byte ") == true, "\(name) has no error offset: \(result)")
            outcomes.insert(result.description)
        }
        #expect(outcomes.count == 1, "\(name) depends on the read size: \(outcomes)")
    }

    @Test func implementationDefinedOutcomesAreTheDocumentedOnes() throws {
        try checkGolden("conformance/implementation-defined.txt", names: Self.files(in: Self.parsing, prefix: "i_"), in: Self.parsing)
    }

    /// What each field type makes of the values parsers disagree on: arrays through their first element as
    /// int64, double and string; objects through key "a" as int64 and key "é" (NFC) as string.
    @Test func transformOutcomesAreTheDocumentedOnes() throws {
        var lines: [String] = []
        for name in Self.files(in: Self.transform, prefix: "") {
            let bytes = Array(try Data(contentsOf: Self.transform.appendingPathComponent(name)))
            let mappings: [FieldSpec] = bytes.first == UInt8(ascii: "[")
                ? [field("int64", .int64, path: "0"), field("double", .double, path: "0"), field("string", .string, path: "0")]
                : [field("a", .int64, path: "a", optional: true), field("e_nfc", .string, path: "\u{E9}", optional: true)]
            for mapping in mappings {
                let result = try transcript(of: .bytes(bytes, name: name), fields: [mapping], options: ReaderOptions(shape: .document, rejectionPolicy: .collect))
                let outcome = result.rows.first.map { "accepted " + $0 } ?? ("rejected " + (result.rejections.first ?? "?"))
                lines.append("\(name) as \(mapping.name): \(outcome)")
            }
        }
        try assertGolden(lines.joined(separator: "\n") + "\n", file: "conformance/test-transform.txt")
    }

    private func checkGolden(_ golden: String, names: [String], in directory: URL) throws {
        var lines: [String] = []
        for name in names {
            let result = try Self.map(directory, name)
            let outcome = result.rows.first.map { "accepted " + $0 } ?? ("rejected " + (result.rejections.first ?? "?"))
            lines.append("\(name): \(outcome)")
        }
        try assertGolden(lines.joined(separator: "\n") + "\n", file: golden)
    }
}
