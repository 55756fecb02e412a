import Foundation
import Testing
import SluiceFixtures
@testable import Sluice

/// The matched walk (keys matched inside simdjson's walk, one tape a record) must give exactly what the event walk
/// gives: the same rows, rejections (wording, locations, raw text), counts and unmapped keys, on clean and damaged
/// records, with one worker or several.
@Suite struct MatchedWalkTests {
    struct Outcome: Equatable {
        var transcript: RunTranscript
        var unmappedKeys: [String: Int]
    }

    static func run(_ bytes: [UInt8], _ fields: [FieldSpec], schemaOptions: MappingOptions, matched: Bool, workers: Int, chunkSize: Int) throws -> Outcome {
        var options = TokenizerDifferentialTests.options(.simdjson, workers: workers, chunkSize: chunkSize)
        options.matchesKeysInWalk = matched
        let reader = try ColumnarReader(input: .bytes(bytes), schema: try MappingSchema(fields: fields, options: schemaOptions), options: options)
        let transcript = transcript(batchCapacity: options.batchCapacity, next: reader.next, statistics: { reader.statistics })
        return Outcome(transcript: transcript, unmappedKeys: reader.unmappedKeys)
    }

    static let mappings: [(String, [FieldSpec], MappingOptions)] = [
        ("reference", ReferenceMapping.fields, MappingOptions()),
        ("rich", ReferenceMapping.richFields.filter { $0.type != .json }, MappingOptions()),
        ("strict", ReferenceMapping.fields, MappingOptions(unmappedKeys: .reject)),
        ("ignoring", ReferenceMapping.fields, MappingOptions(ignoredPaths: ["entities", "user.*", "source"])),
        ("required and nested", [field("id", .int64), field("name", .string, path: "user.screen_name"), field("followers", .int64, path: "user.followers_count"),
                                 FieldSpec(name: "lang", type: .enumeration, isOptional: true, enumValues: [EnumValue("en"), EnumValue("ja")])], MappingOptions()),
    ]

    @Test(arguments: 0..<mappings.count, [(1, 1 << 20), (2, 4096)])
    func theMatchedWalkAgreesWithTheEventWalk(_ mapping: Int, _ pipeline: (workers: Int, chunkSize: Int)) throws {
        let (name, fields, schemaOptions) = Self.mappings[mapping]
        for seed: UInt64 in [1, 7] {
            let bytes = TokenizerDifferentialTests.damagedTweets(count: 300, seed: seed)
            let events = try Self.run(bytes, fields, schemaOptions: schemaOptions, matched: false, workers: pipeline.workers, chunkSize: pipeline.chunkSize)
            let matched = try Self.run(bytes, fields, schemaOptions: schemaOptions, matched: true, workers: pipeline.workers, chunkSize: pipeline.chunkSize)
            #expect(matched == events, "\(name), seed \(seed): events\n\(events)\nmatched\n\(matched)")
            #expect(events.transcript.rows.count + events.transcript.rejections.count > 250 && !events.transcript.rejections.isEmpty, "\(name): the input is read and rejects")
        }
    }

    /// The plans above are the matched walk's: without tables the comparison would test the event walk twice.
    @Test func theComparedPlansHaveMatchTables() throws {
        for (name, fields, options) in Self.mappings {
            #expect(MatchTables(plan: try PlanCompiler.compile(fields, options: options)) != nil, "\(name)")
        }
        #expect(MatchTables(plan: try PlanCompiler.compile([field("tags", .string, path: "tags.*")])) == nil, "a list keeps the event walk")
        #expect(MatchTables(plan: try PlanCompiler.compile(ReferenceMapping.richFields)) == nil, "json capture keeps the event walk")
    }
}
