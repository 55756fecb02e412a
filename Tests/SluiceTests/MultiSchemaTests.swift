import Foundation
import Testing
@testable import Sluice

/// Several record types from one document in one pass: each records path its own mapping and batches.
@Suite struct MultiSchemaTests {
    struct Transcript: Equatable {
        var rows: [[String]]
        var rejections: [[String]]
        var error: String?
        var counts: [Int]
    }

    static func run(_ input: Input, _ schemas: [MappingSchema], workers: Int = 1, chunk: Int = 512 << 10, capacity: Int = 4096) throws -> Transcript {
        let reader = try MultiSchemaReader(input: input, schemas: schemas,
                                           options: ReaderOptions(batchCapacity: capacity, rejectionPolicy: .collect, workers: workers, chunkSize: chunk))
        var result = Transcript(rows: schemas.map { _ in [] }, rejections: schemas.map { _ in [] }, error: nil, counts: [])
        do {
            while let (schema, batch) = try reader.next() {
                for row in 0..<batch.count { result.rows[schema].append(render(batch, row: row)) }
                result.rejections[schema] += batch.rejections.map(\.description)
            }
        } catch {
            result.error = error.description
        }
        result.counts = schemas.indices.map { reader.statistics(ofSchema: $0).recordsRead }
        #expect(reader.statistics.recordsRead == result.counts.reduce(0, +))
        return result
    }

    /// The same transcript for one thread and for the pipeline at chunk sizes from one byte up.
    static func expectInvariant(_ input: Input, _ schemas: [MappingSchema], sourceLocation: SourceLocation = #_sourceLocation) throws -> Transcript {
        try expectSameForEveryPipeline(sourceLocation: sourceLocation) { workers, chunk, capacity in
            try run(input, schemas, workers: workers, chunk: chunk, capacity: capacity)
        }
    }

    @Test func eventsAndPerformancesOfTheCatalogueInOnePass() throws {
        let eventFields = [field("event_id", .int64, path: "$key"), field("id", .int64), field("name", .string),
                           field("first_topic", .int64, path: "topicIds.0", optional: true), field("subtitle", .string, optional: true)]
        var performanceFields = [field("id", .int64), field("event", .int64, path: "eventId"), field("venue", .string, path: "venueCode"),
                                 field("start", .date, path: "start"), field("first_price", .int64, path: "prices.0.amount")]
        performanceFields[3].epochUnit = .milliseconds
        let events = try MappingSchema(fields: eventFields, options: MappingOptions(recordsPath: "events"))
        let performances = try MappingSchema(fields: performanceFields, options: MappingOptions(recordsPath: "performances"))
        let input = Input.file(RecordsPathTests.catalog.path)
        let both = try Self.expectInvariant(input, [performances, events])
        #expect(both.error == nil && both.counts == [243, 184])
        // The same rows, ordinals, lines and offsets as one pass per record type (the golden file holds those).
        let eventsAlone = try RecordsPathTests.run(input, eventFields, recordsPath: "events")
        let performancesAlone = try RecordsPathTests.run(input, performanceFields, recordsPath: "performances")
        #expect(both.rows == [performancesAlone.rows, eventsAlone.rows])
    }

    static let document = """
        {"meta": {"note": "users first, then an id-keyed map of orders, then tags"},
         "users": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}, {"id": "x", "name": "Cy"}],
         "skipped": [1, 2, {"users": [{"id": 99}]}],
         "orders": {"o1": {"user": 1, "total": 9.5}, "o2": {"user": 2, "total": 3}},
         "tags": [{"tag": "a"}]}
        """
    static func schemas() throws -> [MappingSchema] {
        [
            try MappingSchema(fields: [field("id", .int64), field("name", .string)], options: MappingOptions(recordsPath: "users")),
            try MappingSchema(fields: [field("key", .string, path: "$key"), field("user", .int64), field("total", .double)], options: MappingOptions(recordsPath: "orders")),
            try MappingSchema(fields: [field("tag", .string)], options: MappingOptions(recordsPath: "tags")),
        ]
    }

    @Test func arraysAndKeyedObjectsInterleaveWithSkippedContent() throws {
        let result = try Self.expectInvariant(.bytes(Array(Self.document.utf8)), try Self.schemas())
        #expect(result.error == nil)
        #expect(result.rows == [
            [#"#1@2:88 id=1 name="Ann""#, #"#2@2:114 id=2 name="Bob""#],
            [#"#1@4:231 key="o1" user=1 total=9.5"#, #"#2@4:264 key="o2" user=2 total=3.0"#],
            [#"#1@5:300 tag="a""#],
        ])
        #expect(result.rejections == [[#"record 3 (line 2, byte 140): $.id: expected int64, found string "x""#], [], []])
        #expect(result.counts == [3, 2, 1])
    }

    @Test func aMissingRecordsPathIsAnErrorAfterEveryRecordFound() throws {
        var schemas = try Self.schemas()
        schemas.append(try MappingSchema(fields: [field("x", .int64)], options: MappingOptions(recordsPath: "missing")))
        for workers in [1, 3] {
            let result = try Self.run(.bytes(Array(Self.document.utf8)), schemas, workers: workers, chunk: 64)
            #expect(result.rows.map(\.count) == [2, 2, 1, 0])
            #expect(result.error == "<memory>: records path $.missing not found: the document holds the keys 'meta', 'users', 'skipped', 'orders', 'tags'")
        }
    }

    @Test func schemasMustEachHaveTheirOwnPathNoneInsideAnother() throws {
        let users = try MappingSchema(fields: [field("id", .int64)], options: MappingOptions(recordsPath: "users"))
        let nested = try MappingSchema(fields: [field("id", .int64)], options: MappingOptions(recordsPath: "users.0.friends"))
        let plain = try MappingSchema(fields: [field("id", .int64)])
        let input = Input.bytes(Array(Self.document.utf8))
        #expect {
            try MultiSchemaReader(input: input, schemas: [users, nested])
        } throws: { error in
            "\(error)" == "invalid options: records path $.users.0.friends lies inside $.users (schemas 1 and 2): record types must not nest"
        }
        #expect {
            try MultiSchemaReader(input: input, schemas: [users, users])
        } throws: { error in
            "\(error)" == "invalid options: records path $.users lies inside $.users (schemas 1 and 2): record types must not nest"
        }
        #expect {
            try MultiSchemaReader(input: input, schemas: [users, plain])
        } throws: { error in
            "\(error)" == "invalid options: schema 2 has no records path (each record type needs the key path of its records)"
        }
    }
}
