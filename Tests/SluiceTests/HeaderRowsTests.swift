import Foundation
import Testing
@testable import Sluice

/// CSV-like records: arrays addressed by index, or by the names of a header record; records skipped at the start.
@Suite struct HeaderRowsTests {
    static let cellphones = corporaDirectory.appendingPathComponent("realdata/amazon_cellphones.ndjson")

    static func run(_ input: Input, _ fields: [FieldSpec], options: MappingOptions, workers: Int = 1, chunk: Int = 512 << 10, capacity: Int = 4096, range: Range<Int>? = nil) throws -> RunTranscript {
        try transcript(of: input, fields: fields,
                       options: ReaderOptions(batchCapacity: capacity, rejectionPolicy: .collect, workers: workers, chunkSize: chunk, byteRange: range),
                       schemaOptions: options)
    }

    /// The same transcript for one thread and for the pipeline at chunk sizes from one byte up.
    static func expectInvariant(_ input: Input, _ fields: [FieldSpec], options: MappingOptions, sourceLocation: SourceLocation = #_sourceLocation) throws -> RunTranscript {
        try expectSameForEveryPipeline(sourceLocation: sourceLocation) { workers, chunk, capacity in
            try run(input, fields, options: options, workers: workers, chunk: chunk, capacity: capacity)
        }
    }

    static let cellphoneFields = [
        field("asin", .string), field("brand", .string), field("rating", .double), field("reviews", .int64, path: "totalReviews"),
        field("price", .string, path: "prices"),
    ]

    @Test func theAmazonSampleMapsByItsHeadersColumnNames() throws {
        let result = try Self.expectInvariant(.file(Self.cellphones.path), Self.cellphoneFields, options: MappingOptions(columnsFromHeader: true))
        #expect(result.error == nil && result.rejections.isEmpty)
        // Counted by Python's json module: 792 rows under the header, 82,551 reviews in all.
        #expect(result.rows.count == 792)
        let reviews = result.rows.compactMap { row in row.split(separator: " ").first { $0.hasPrefix("reviews=") }.flatMap { Int($0.dropFirst(8)) } }
        #expect(reviews.reduce(0, +) == 82_551)
        // Ordinals count data rows; lines and offsets are the file's.
        #expect(result.rows.first?.hasPrefix("#1@2:84 asin=\"B0000SX2UC\" brand=\"Nokia\" rating=3.0 reviews=14") == true, "\(result.rows.first ?? "")")
        try assertGolden(result.description + "\n", file: "golden/amazon-cellphones-by-header.expected")
    }

    @Test func keyPathsStartingWithAnIndexAddressTheElements() throws {
        let fields = [field("asin", .string, path: "0"), field("reviews", .int64, path: "7")]
        let result = try Self.run(.file(Self.cellphones.path), fields, options: MappingOptions(skippedRecords: 1))
        #expect(result.rows.count == 792 && result.rejections.isEmpty)
        #expect(result.rows.first == "#1@2:84 asin=\"B0000SX2UC\" reviews=14")
        // Without skipping, the header is a record like any other, and its text fails the int64 column.
        let unskipped = try Self.run(.file(Self.cellphones.path), fields, options: MappingOptions())
        #expect(unskipped.rejections.first == #"record 1 (line 1, byte 0): $[7]: expected int64, found string "totalReviews""#)
    }

    static let titled = """
        "Exported 2026-11-01"

        ["id","name","score"]
        [1,"Ann",9.5]
        [2,"Bob"]
        [3,"Cy",7,"extra"]
        {"id":4,"name":"Dee","score":1}

        """
    static let titledFields = [field("id", .int64), field("name", .string), field("score", .double, optional: true)]

    @Test func recordsAreSkippedBeforeTheHeaderAndRowsMissOrOverrunColumns() throws {
        let result = try Self.expectInvariant(.bytes(Array(Self.titled.utf8)), Self.titledFields, options: MappingOptions(skippedRecords: 1, columnsFromHeader: true))
        #expect(result.rows == [#"#1@4:45 id=1 name="Ann" score=9.5"#, #"#2@5:59 id=2 name="Bob" score=null"#, #"#4@7:88 id=4 name="Dee" score=1.0"#])
        #expect(result.rejections == [#"record 3 (line 6, byte 69): $: expected at most 3 values (one per header column), found more"#])
        #expect(result.statistics.recordsRead == 4)
    }

    /// The records to skip and the header row are counted off chunk by chunk: however many there are, and however
    /// much whitespace lies among them, no chunk has to hold them all (the budget bounds them like any records).
    @Test(arguments: [InputShape.ndjson, .array])
    func skippedRecordsAndTheHeaderSpreadOverAnyNumberOfChunks(_ shape: InputShape) throws {
        let skipped = (1...60).map { #"{"banner":\#($0)}"# }
        let rows = (1...30).map { "[\($0),\"n\($0)\"]" }
        let blank = String(repeating: " ", count: 700) + "\n\n"
        let records = skipped + [#"["id","name"]"#] + rows
        let text = shape == .ndjson ? blank + records.joined(separator: "\n" + blank) + "\n"
                                    : "[" + blank + records.joined(separator: "," + blank) + "]"
        let options = MappingOptions(skippedRecords: 60, columnsFromHeader: true)
        let result = try Self.expectInvariant(.bytes(Array(text.utf8)), [field("id", .int64), field("name", .string)], options: options)
        #expect(result.error == nil && result.rejections.isEmpty)
        #expect(result.rows.count == 30 && result.statistics.recordsRead == 30)
        #expect(result.rows.last?.hasSuffix(#"id=30 name="n30""#) == true, "\(result.rows.last ?? "")")
        if shape == .ndjson {
            // Two blank lines before each record: the header sits on line 183, the first row on 186.
            #expect(result.rows.first?.hasPrefix("#1@186:") == true, "\(result.rows.first ?? "")")
        }
    }

    @Test func arraysAndWrappersOfRowsTakeAHeaderToo() throws {
        let rows = #"[["id","name"],[1,"a"],[2,"b"]]"#
        let array = try Self.expectInvariant(.bytes(Array(rows.utf8)), [field("id", .int64), field("name", .string)], options: MappingOptions(columnsFromHeader: true))
        #expect(array.rows == [#"#1@1:15 id=1 name="a""#, #"#2@1:23 id=2 name="b""#])
        let sheet = #"{"range":"A1:B3","majorDimension":"ROWS","values":\#(rows)}"#
        let wrapped = try Self.expectInvariant(.bytes(Array(sheet.utf8)), [field("id", .int64), field("name", .string)],
                                               options: MappingOptions(recordsPath: "values", columnsFromHeader: true))
        #expect(wrapped.rows.map(RecordsPathTests.valuesOnly) == array.rows.map(RecordsPathTests.valuesOnly))
    }

    /// Every way a header can fail to name columns ends the run with one message, before any row, for every
    /// worker count and chunk size; the header is not a record, so nothing counts as read or rejected.
    @Test(arguments: [
        ("{\"id\":1}\n[1]\n", #""{\"id\":1}""#),
        ("{bad\n[\"id\"]\n[1]\n", #""{bad""#),
        ("[\"id\",\"name\"\n[1,\"a\"]\n[2,\"b\"]\n", #""[\"id\",\"name\"""#),
        ("[\"id\",7]\n[1]\n", #""[\"id\",7]""#),
        ("\"id\"\n[1]\n", #""\"id\"""#),
    ])
    func aHeaderThatIsNotAnArrayOfNamesEndsTheRun(_ text: String, found: String) throws {
        let result = try expectSameForEveryPipeline { workers, chunk, capacity in
            try transcript(of: .bytes(Array(text.utf8)), fields: [field("id", .int64)],
                           options: ReaderOptions(shape: .ndjson, batchCapacity: capacity, rejectionPolicy: .collect, workers: workers, chunkSize: chunk),
                           schemaOptions: MappingOptions(columnsFromHeader: true))
        }
        #expect(result.rows.isEmpty && result.rejections.isEmpty)
        #expect(result.statistics.recordsRead == 0 && result.statistics.recordsRejected == 0)
        #expect(result.error == "<memory>: cannot read past rejected record 1 (line 1, byte 0): $: expected a header record (an array of column names), found \(found)")
    }

    /// In an array too, a header element that is not even JSON ends the run with the one message.
    @Test(arguments: [0, 1])
    func aMalformedHeaderElementOfAnArrayEndsTheRun(_ skipped: Int) throws {
        let text = "[\n" + (skipped > 0 ? "  {\"title\": 1},\n" : "") + "  {\"x\": \"a\u{0}b\"},\n  [1]\n]"
        let result = try expectSameForEveryPipeline { workers, chunk, capacity in
            try transcript(of: .bytes(Array(text.utf8)), fields: [field("id", .int64)],
                           options: ReaderOptions(shape: .array, batchCapacity: capacity, rejectionPolicy: .collect, workers: workers, chunkSize: chunk),
                           schemaOptions: MappingOptions(skippedRecords: skipped, columnsFromHeader: true))
        }
        #expect(result.rows.isEmpty && result.rejections.isEmpty)
        #expect(result.statistics.recordsRead == 0 && result.statistics.recordsRejected == 0)
        // The element's text up to where it stops being JSON.
        let location = skipped > 0 ? "line 3, byte 20" : "line 2, byte 4"
        #expect(result.error == "<memory>: cannot read past rejected record 1 (\(location)): $: expected a header record (an array of column names), found \"{\\\"x\\\": \\\"a\"")
    }

    /// The same after skipped lines (which are passed over unread), in every shape that reads lines.
    @Test(arguments: [InputShape.ndjson, .automatic], [
        ("{bad\n[1]\n", #""{bad""#),
        ("\u{1}\u{0}\u{7}\n]\n,0,\n", #""\u0001\u0000\u0007""#),
        ("[\"id\"\n[1]\n", #""[\"id\"""#),
    ])
    func aHeaderAfterSkippedLinesThatIsNotOneEndsTheRun(_ shape: InputShape, _ header: (text: String, found: String)) throws {
        let text = "\"a title\": not JSON,,\n" + header.text
        let result = try expectSameForEveryPipeline { workers, chunk, capacity in
            try transcript(of: .bytes(Array(text.utf8)), fields: [field("id", .int64)],
                           options: ReaderOptions(shape: shape, batchCapacity: capacity, rejectionPolicy: .collect, workers: workers, chunkSize: chunk),
                           schemaOptions: MappingOptions(skippedRecords: 1, columnsFromHeader: true))
        }
        #expect(result.rows.isEmpty && result.rejections.isEmpty)
        #expect(result.statistics.recordsRead == 0 && result.statistics.recordsRejected == 0)
        #expect(result.error == "<memory>: cannot read past rejected record 1 (line 2, byte 22): $: expected a header record (an array of column names), found \(header.found)")
    }

    @Test func shardsPastTheStartReadTheHeaderFromTheFile() throws {
        let url = scratchPath("header.ndjson")
        defer { try? FileManager.default.removeItem(at: url) }
        var text = "# a title line, skipped\n[\"name\",\"n\"]\n"
        for index in 0..<2000 { text += "[\"row \(index)\",\(index)]\n" }
        try Data(text.utf8).write(to: url)
        let fields = [field("n", .int64), field("name", .string)]
        let options = MappingOptions(skippedRecords: 1, columnsFromHeader: true)
        let whole = try Self.run(.file(url.path), fields, options: options)
        #expect(whole.rows.count == 2000)
        var union: [String] = []
        var start = 0
        for end in [5, 37, 9_000, 20_001, text.utf8.count] {
            let shard = try Self.run(.file(url.path), fields, options: options, range: start..<end)
            #expect(shard.error == nil && shard.rejections.isEmpty, "\(start)..<\(end)")
            union += shard.rows.map(RecordsPathTests.valuesOnly)
            start = end
        }
        #expect(union == whole.rows.map(RecordsPathTests.valuesOnly))
    }

    /// Shards of a zstd file of several frames read the skipped lines and the header from the decompressed start.
    @Test func zstdShardsPastTheStartReadTheHeaderFromTheFile() throws {
        var text = "# a title line, skipped\n[\"name\",\"n\"]\n"
        for index in 0..<2000 { text += "[\"row \(index)\",\(index)]\n" }
        let bytes = ShardPlanTests.zstdFrames(Array(text.utf8), pieceSize: 3_000)
        let fields = [field("n", .int64), field("name", .string)]
        let options = MappingOptions(skippedRecords: 1, columnsFromHeader: true)
        let whole = try Self.run(.bytes(bytes), fields, options: options)
        #expect(whole.rows.count == 2000 && whole.rejections.isEmpty)
        let plan = try ShardPlan(splitting: .bytes(bytes), into: .parts(5))
        #expect(plan.shards.count == 5)
        var union: [String] = []
        for shard in plan.shards {
            var reading = ReaderOptions(rejectionPolicy: .collect, workers: 2, chunkSize: 1_000)
            reading.shard = shard
            let part = try transcript(of: .bytes(bytes), fields: fields, options: reading, schemaOptions: options)
            #expect(part.error == nil && part.rejections.isEmpty)
            union += part.rows
        }
        #expect(union == whole.rows)
    }

    @Test func mappingFilesDeclareSkipAndHeader() throws {
        let schema = try MappingSchema(mappingText: """
            skip: 1
            header: true
            fields: [{name: id, type: int64}, {name: name, type: string}, {name: score, type: double, optional: true}]
            """)
        #expect(schema.options.skippedRecords == 1 && schema.options.columnsFromHeader)
        #expect(throws: SluiceError.self) { try MappingSchema(mappingText: "skip: -2\nfields: [{name: a, type: int64}]") }
        #expect(throws: SluiceError.self) { try MappingSchema(mappingText: "header: sometimes\nfields: [{name: a, type: int64}]") }
    }

    struct Phone: Sendable, Equatable {
        var asin = ""
        var reviews: Int64 = 0
    }

    @Test func typedMappingsReadRowsByName() throws {
        let mapping = try Mapping(Phone.init, options: MappingOptions(columnsFromHeader: true)) {
            Field("asin", \.asin)
            Field("totalReviews", \.reviews)
        }
        let reader = try TypedReader(input: .file(Self.cellphones.path), mapping: mapping, options: ReaderOptions(workers: 2, chunkSize: 4096))
        var phones: [Phone] = []
        while let batch = try reader.next() { phones += batch.models }
        #expect(phones.count == 792)
        #expect(phones.first == Phone(asin: "B0000SX2UC", reviews: 14))
        #expect(phones.map(\.reviews).reduce(0, +) == 82_551)
    }
}
