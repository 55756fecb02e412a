import Foundation
import Testing
import SluiceFixtures
@testable import Sluice

/// Records inside a wrapper document: an array or an id-keyed object at a key path, streamed with the rest of the
/// document skipped, the same for every worker count and chunk size, and the same records as the equivalent NDJSON.
@Suite struct RecordsPathTests {
    static let twitter = corporaDirectory.appendingPathComponent("realdata/twitter.json")
    static let catalog = corporaDirectory.appendingPathComponent("realdata/citm_catalog.json")

    static func run(_ input: Input, _ fields: [FieldSpec], recordsPath: String, workers: Int = 1, chunk: Int = 512 << 10, capacity: Int = 4096) throws -> RunTranscript {
        try transcript(of: input, fields: fields, options: ReaderOptions(batchCapacity: capacity, rejectionPolicy: .collect, workers: workers, chunkSize: chunk),
                       schemaOptions: MappingOptions(recordsPath: recordsPath))
    }

    /// The same transcript for one thread and for the pipeline at several chunk sizes.
    static func expectInvariant(_ input: Input, _ fields: [FieldSpec], recordsPath: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> RunTranscript {
        try expectSameForEveryPipeline(sourceLocation: sourceLocation) { workers, chunk, capacity in
            try run(input, fields, recordsPath: recordsPath, workers: workers, chunk: chunk, capacity: capacity)
        }
    }

    @Test func everyStatusOfTwitterJSON() throws {
        let fields = [field("id", .int64), field("created_at", .string), field("screen_name", .string, path: "user.screen_name"),
                      field("first_hashtag", .string, path: "entities.hashtags.0.text", optional: true), field("retweets", .int64, path: "retweet_count")]
        let result = try Self.expectInvariant(.file(Self.twitter.path), fields, recordsPath: "statuses")
        #expect(result.rows.count == 100)
        #expect(result.rejections.isEmpty && result.error == nil)
        // Lines and offsets are the file's own.
        #expect(result.rows.first?.hasPrefix("#1@3:") == true, "\(result.rows.first ?? "")")
        try assertGolden(result.description + "\n", file: "golden/twitter-statuses.expected")

        // The same records as NDJSON give the same values.
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.twitter)) as? [String: Any])
        let statuses = try #require(document["statuses"] as? [Any])
        let lines = try statuses.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        let ndjson = try transcript(of: lines.joined(separator: "\n"), fields: fields)
        #expect(ndjson.rows.map(Self.valuesOnly) == result.rows.map(Self.valuesOnly))
    }

    @Test func everyEventAndPerformanceOfTheCatalogue() throws {
        let eventFields = [field("event_id", .int64, path: "$key"), field("id", .int64), field("name", .string),
                           field("first_topic", .int64, path: "topicIds.0", optional: true), field("subtitle", .string, optional: true)]
        let events = try Self.expectInvariant(.file(Self.catalog.path), eventFields, recordsPath: "events")
        #expect(events.rows.count == 184)
        #expect(events.rows.allSatisfy { row in
            let parts = row.split(separator: " ")
            return parts.count > 2 && parts[1].dropFirst("event_id=".count) == parts[2].dropFirst("id=".count)
        })
        let performanceFields = [field("id", .int64), field("event", .int64, path: "eventId"), field("venue", .string, path: "venueCode"),
                                 field("start", .date, path: "start"), field("first_price", .int64, path: "prices.0.amount")]
        var dated = performanceFields
        dated[3].epochUnit = .milliseconds
        let performances = try Self.expectInvariant(.file(Self.catalog.path), dated, recordsPath: "performances")
        #expect(performances.rows.count == 243)
        try assertGolden(events.description + "\n" + performances.description + "\n", file: "golden/citm-events-performances.expected")
    }

    /// Tens of thousands of generated records, in an array between other keys and in an id-keyed object: the same
    /// values as the records as NDJSON, for every worker count and chunk size.
    @Test func generatedWrappers() throws {
        var generator = TweetGenerator(seed: 31)
        let records = (1...12_000).map { generator.nextRecord(ordinal: $0) }
        let ndjson = try transcript(of: records.joined(separator: "\n"), fields: ReferenceMapping.fields)
        let arrayWrapped = "{\"meta\":{\"count\":12000,\"data\":[1,2]},\n \"data\": [\n" + records.joined(separator: ",\n") + "\n],\n \"paging\": {\"next\": \"x\"}}\n"
        let array = try Self.expectInvariant(.bytes(Array(arrayWrapped.utf8)), ReferenceMapping.fields, recordsPath: "data")
        #expect(array.rows.map(Self.valuesOnly) == ndjson.rows.map(Self.valuesOnly))

        let keyed = "{\"export\": {\"version\": 2, \"events\": {" + records.enumerated().map { "\"\(1_000_000 + $0.offset)\": \($0.element)" }.joined(separator: ",\n") + "}}}"
        var fields = ReferenceMapping.fields
        fields.append(field("key", .int64, path: "$key"))
        let object = try Self.expectInvariant(.bytes(Array(keyed.utf8)), fields, recordsPath: "export.events")
        #expect(object.rows.count == 12_000)
        #expect(object.rows.first?.hasSuffix(" key=1000000") == true)
        #expect(object.rows.last?.hasSuffix(" key=1011999") == true)
        #expect(object.rows.map { Self.valuesOnly($0).components(separatedBy: " key=").first ?? "" } == ndjson.rows.map(Self.valuesOnly))
    }

    @Test func aRecordsPathThatLeadsNowhereIsAnErrorNamingWhatIsThere() throws {
        let fields = [field("id", .int64)]
        for workers in [1, 2] {
            let missing = try Self.run(.bytes(Array("{\"a\": {\"x\": 1, \"y\": [1]}, \"b\": 2}".utf8)), fields, recordsPath: "a.items", workers: workers)
            #expect(missing.error == "<memory>: records path $.a.items not found: $.a holds the keys 'x', 'y'")
            let scalar = try Self.run(.bytes(Array("{\"data\": \"none\"}".utf8)), fields, recordsPath: "data", workers: workers)
            #expect(scalar.error == "<memory>: records path $.data: expected an array or object of records, found a string where the records should be at byte 9")
            let through = try Self.run(.bytes(Array("{\"data\": 5}".utf8)), fields, recordsPath: "data.items", workers: workers)
            #expect(through.error == "<memory>: records path $.data.items: expected an array or object of records, found a number at $.data at byte 9")
            let notAnObject = try Self.run(.bytes(Array("[1, 2]".utf8)), fields, recordsPath: "data", workers: workers)
            #expect(notAnObject.error?.contains("records path $.data not found") == true, "\(notAnObject.error ?? "no error")")
        }
    }

    @Test func keyFieldsNeedARecordsPath() {
        #expect(throws: SluiceError.self) { try MappingSchema(fields: [field("k", .string, path: "$key")]) }
        #expect(throws: SluiceError.self) { try MappingSchema(fields: [field("id", .int64)], options: MappingOptions(recordsPath: "$")) }
    }

    @Test func mappingFilesAndTheTypedAPIName() throws {
        let schema = try MappingSchema(mappingText: "records: events\nfields:\n  - {name: key, path: $key, type: int64}\n  - {name: name, type: string}\n")
        #expect(schema.options.recordsPath == "events")
        let reader = try ColumnarReader(input: .file(Self.catalog.path), schema: schema)
        var count = 0
        while let batch = try reader.next() { count += batch.count }
        #expect(count == 184)

        struct Event { var key: Int64 = 0; var name = "" }
        let mapping = try Mapping(Event.init, options: MappingOptions(recordsPath: "events")) {
            Field("$key", \.key)
            Field("name", \.name)
        }
        let typed = try TypedReader(input: .file(Self.catalog.path), mapping: mapping, options: ReaderOptions(workers: 2))
        var events: [Event] = []
        while let batch = try typed.next() { events += batch.models }
        #expect(events.count == 184)
        #expect(events.first?.key == 138_586_341 && events.first?.name == "30th Anniversary Tour")
    }

    @Test func scalarMapsGiveOneRecordPerMemberWithItsKey() throws {
        // citm's lookup tables: {"areaNames": {"205705993": "Arrière-scène central", …}}.
        let schema = try MappingSchema(mappingText: "records: areaNames\nfields:\n  - {name: area_id, path: $key, type: int64}\n  - {name: name, path: $, type: string}\n")
        let result = try Self.expectInvariant(.file(Self.catalog.path), schema.fields, recordsPath: "areaNames")
        #expect(result.rows.count == 17 && result.rejections.isEmpty)
        #expect(result.rows.first.map(Self.valuesOnly) == #" area_id=205705993 name="Arrière-scène central""#)

        struct Area { var id: Int64 = 0; var name = "" }
        let mapping = try Mapping(Area.init, options: MappingOptions(recordsPath: "areaNames")) {
            Field("$key", \.id)
            Field("$", \.name)
        }
        let typed = try TypedReader(input: .file(Self.catalog.path), mapping: mapping)
        var areas: [Area] = []
        while let batch = try typed.next() { areas += batch.models }
        #expect(areas.count == 17 && areas[1].id == 205_705_994 && areas[1].name == "1er balcon central")
    }

    @Test func aScalarMapsValuesAreCheckedAndItsObjectsRejectedLikeAnyValue() throws {
        let document = #"{"names": {"1": "a", "2": 5, "3": {"x": 1}, "4": null}}"#
        let result = try Self.expectInvariant(.bytes(Array(document.utf8)), [field("id", .int64, path: "$key"), field("name", .string, path: "$", optional: true)], recordsPath: "names")
        #expect(result.rows.map(Self.valuesOnly) == [#" id=1 name="a""#, #" id=2 name="5""#, " id=4 name=null"])
        #expect(result.rejections.map { $0.components(separatedBy: ": ").dropFirst().joined(separator: ": ") } == ["$: expected string, found an object"])
    }

    @Test func escapedKeysAreUnescapedInThePathAndInKeyFields() throws {
        let document = #"{"donn\u00e9es": {"caf\u00e9": {"n": 1}, "\ud83d\ude00": {"n": 2}, "tab\tA\u0041": {"n": 3}, "lone\ud800": {"n": 4}}}"#
        let fields = [field("key", .string, path: "$key"), field("n", .int64)]
        let result = try Self.expectInvariant(.bytes(Array(document.utf8)), fields, recordsPath: "données")
        #expect(result.rows.map(Self.valuesOnly) == [#" key="café" n=1"#, #" key="😀" n=2"#, " key=\"tab\tAA\" n=3", #" key="lone?" n=4"#])
    }

    static func valuesOnly(_ row: String) -> String {
        guard let space = row.firstIndex(of: " ") else { return "" }
        return String(row[space...])
    }
}
