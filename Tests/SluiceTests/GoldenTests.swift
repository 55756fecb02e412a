import Foundation
import Testing
@testable import Sluice

/// Whole runs compared with committed transcripts under Fixtures/golden (rows, rejections, the ending error and
/// the counts). `SLUICE_UPDATE_GOLDEN=1 swift test` rewrites them; review the diff before committing.
@Suite struct GoldenTests {
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var input: URL
        var mapping: String
        var shape: InputShape = .automatic
        var description: String { name }
    }

    static let golden = fixturesDirectory.appendingPathComponent("golden")
    static let realData = corporaDirectory.appendingPathComponent("realdata")

    static let cases: [Case] = [
        Case(name: "people-ndjson", input: golden.appendingPathComponent("people.ndjson"), mapping: "people.mapping.yaml"),
        Case(name: "people-array", input: golden.appendingPathComponent("people-array.json"), mapping: "people.mapping.yaml"),
        Case(name: "people-concatenated", input: golden.appendingPathComponent("people-concatenated.json"), mapping: "people.mapping.yaml", shape: .concatenated),
        Case(name: "tweets-example", input: fixturesDirectory.appendingPathComponent("examples/tweets.ndjson"), mapping: "../examples/tweets.mapping.yaml"),
        Case(name: "amazon-arrays", input: realData.appendingPathComponent("amazon_cellphones.ndjson"), mapping: "amazon.mapping.yaml"),
        Case(name: "twitter-document", input: realData.appendingPathComponent("twitter.json"), mapping: "twitter-document.mapping.yaml", shape: .document),
        Case(name: "amazon-prices", input: realData.appendingPathComponent("amazon_cellphones.ndjson"), mapping: "amazon-prices.mapping.yaml"),
        Case(name: "citm-area-names", input: realData.appendingPathComponent("citm_catalog.json"), mapping: "citm-area-names.mapping.yaml"),
        Case(name: "reddit-comments", input: golden.appendingPathComponent("reddit-comments.ndjson"), mapping: "reddit-comments.mapping.yaml"),
    ]

    static func run(_ testCase: Case, readBufferSize: Int = 1 << 20, batchCapacity: Int = 4096) throws -> RunTranscript {
        let schema = try MappingSchema(contentsOfFile: golden.appendingPathComponent(testCase.mapping).path)
        return try transcript(
            of: .file(testCase.input.path), fields: schema.fields,
            options: ReaderOptions(shape: testCase.shape, readBufferSize: readBufferSize, batchCapacity: batchCapacity, rejectionPolicy: .collect),
            schemaOptions: schema.options)
    }

    @Test(arguments: cases)
    func matchesItsTranscript(_ testCase: Case) throws {
        let result = try Self.run(testCase)
        let statistics = result.statistics
        let text = result.description
            + "\n-- raw text of rejections\n" + result.rawTexts.joined(separator: "\n")
            + "\n-- \(statistics.recordsRead) read, \(statistics.recordsMapped) mapped, \(statistics.recordsRejected) rejected, \(statistics.bytesRead) bytes, shape \(statistics.shape)\n"
        try assertGolden(text, file: "golden/\(testCase.name).expected")
    }

    @Test func theThreeShapesOfTheSameRecordsGiveTheSameValues() throws {
        func values(_ name: String) throws -> [String] {
            try Self.run(Self.cases.first { $0.name == name }!).rows.map { String($0.drop { $0 != " " }) }
        }
        let ndjsonObjects = try values("people-ndjson")
        #expect(try values("people-array") == ndjsonObjects)
        #expect(try values("people-concatenated") == ndjsonObjects)
    }
}
