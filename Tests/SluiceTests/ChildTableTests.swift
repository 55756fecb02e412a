import Foundation
@testable import Sluice
import Testing

/// Child tables mapped by the engine: rows per element, links, rejections of the whole record.
@Suite struct ChildTableTests {
    static let tweets: [FieldSpec] = {
        var hashtags = field("hashtags", .json, path: "entities.hashtags")
        var sizes = field("sizes", .json)
        sizes.childTable = ChildTable(fields: [field("w", .int64), field("h", .int64)])
        hashtags.childTable = ChildTable(fields: [field("text", .string), field("start", .int64, path: "indices.0", optional: true), sizes])
        var tags = field("tags", .json)
        tags.childTable = .values(.string)
        return [field("id", .int64), hashtags, field("lang", .string, optional: true), tags]
    }()

    /// Every table's rows as text, in table order, for `text` read through `fields`.
    static func tables(of text: String, fields: [FieldSpec], key: [String], tokenizer: TokenizerChoice = .automatic, workers: Int = 1, chunk: Int = 1 << 19, capacity: Int = 4096) throws -> (tables: [[String]], rejections: [String]) {
        let schema = try MappingSchema(fields: fields)
        let mapped = try MappedTables(schema: schema, key: key)
        var options = ReaderOptions(rejectionPolicy: .collect)
        options.tokenizer = tokenizer
        options.workers = workers
        options.chunkSize = chunk
        options.batchCapacity = capacity
        let reader = try ColumnarReader(input: .bytes(Array(text.utf8), name: "in.ndjson"), schema: schema, tables: mapped, options: options)
        var tables = mapped.tables.map { _ in [String]() }
        var rejections: [String] = []
        while let batch = try reader.next() {
            for (table, part) in parts(of: batch).enumerated() {
                for row in part.rows { tables[table].append(render(part.batch, row: row)) }
            }
            rejections += batch.rejections.map(\.description)
        }
        return (tables, rejections)
    }

    /// Each table's rows in `batch`, in table order.
    static func parts(of batch: ColumnarBatch) -> [(batch: ColumnarBatch, rows: Range<Int>)] {
        batch.tables.indices.map { (batch.tables[$0], batch.rows(ofTable: $0, forRecords: 0..<batch.count)) }
    }

    /// A reader of `text` that collects rejections and fills the rows of the schema's tables linked by `key`, with
    /// the tokenizer, workers and memory budget given.
    static func reader(_ text: String, schema: MappingSchema, key: [String], tokenizer: TokenizerChoice, workers: Int, memoryBudget: Int) throws -> ColumnarReader {
        var options = ReaderOptions(rejectionPolicy: .collect, workers: workers)
        options.tokenizer = tokenizer
        options.memoryBudget = memoryBudget
        return try ColumnarReader(input: .bytes(Array(text.utf8)), schema: schema, tables: try MappedTables(schema: schema, key: key), options: options)
    }

    @Test(arguments: [TokenizerChoice.simdjson, .yajl])
    func rowsPerElementLinkedByKey(tokenizer: TokenizerChoice) throws {
        let text = """
            {"id": 1, "entities": {"hashtags": [{"text": "a", "indices": [3, 5], "sizes": [{"w": 1, "h": 2}]}, null, {"text": "b"}]}, "tags": ["x", null, "y"]}
            {"id": 2, "entities": {"hashtags": []}, "lang": "en"}
            {"id": 3, "entities": {"hashtags": [{"text": [5]}]}}
            {"id": 4, "entities": {"hashtags": {"text": "c"}}}
            {"id": 5, "entities": {"hashtags": null}, "tags": ["z", {"a": 7}]}
            {"id": 6, "tags": ["w"], "entities": {"hashtags": [{"text": "d", "sizes": [{"w": 3, "h": 4}, {"w": 5, "h": "x"}]}]}}
            {"id": 7, "tags": ["v"], "entities": {"hashtags": [{"text": "e", "sizes": [{"w": 6, "h": 7}, {"w": 8, "h": 9}]}]}}

            """
        let (tables, rejections) = try Self.tables(of: text, fields: Self.tweets, key: ["id"], tokenizer: tokenizer)
        #expect(tables[0] == ["#1@1:0 id=1 lang=null", "#2@2:148 id=2 lang=\"en\"", "#7@7:490 id=7 lang=null"])
        #expect(tables[1] == ["#1@1:0 _id=1 _hashtags_index=0 text=\"a\" start=3", "#1@1:0 _id=1 _hashtags_index=2 text=\"b\" start=null",
                              "#7@7:490 _id=7 _hashtags_index=0 text=\"e\" start=null"])
        #expect(tables[2] == ["#1@1:0 _id=1 _hashtags_index=0 _sizes_index=0 w=1 h=2",
                              "#7@7:490 _id=7 _hashtags_index=0 _sizes_index=0 w=6 h=7", "#7@7:490 _id=7 _hashtags_index=0 _sizes_index=1 w=8 h=9"])
        #expect(tables[3] == ["#1@1:0 _id=1 _tags_index=0 value=\"x\"", "#1@1:0 _id=1 _tags_index=2 value=\"y\"", "#7@7:490 _id=7 _tags_index=0 value=\"v\""])
        #expect(rejections.count == 4)
        guard rejections.count == 4 else { return }
        #expect(rejections[0].contains("$.entities.hashtags[0].text"), "\(rejections[0])")
        #expect(rejections[1].contains("$.entities.hashtags") && rejections[1].contains("expected an array"), "\(rejections[1])")
        #expect(rejections[2].contains("$.tags[1]"), "\(rejections[2])")
        #expect(rejections[3].contains("$.entities.hashtags[0].sizes[1].h"), "\(rejections[3])")
    }

    /// Generated records of every shape an array takes, mapped with every worker count, chunk size and batch
    /// capacity (element batches grow, batches are recycled, records cross chunks): the same rows each time, and
    /// as many as the arrays hold.
    @Test(arguments: [TokenizerChoice.simdjson, .yajl])
    func everyPipelineGivesTheSameRows(tokenizer: TokenizerChoice) throws {
        var generator = SplitMix(seed: 7)
        var lines: [String] = []
        var expectedHashtags = 0
        for id in 1...400 {
            let count = Int(generator.next() % 7)
            var hashtags: [String] = []
            for index in 0..<count {
                let broken = generator.next() % 97 == 0
                let text = broken ? "[1]" : "\"t\(id)-\(index)\""
                hashtags.append(index % 5 == 4 ? "null" : "{\"text\": \(text), \"sizes\": [{\"w\": \(index), \"h\": 1}]}")
            }
            let rejected = hashtags.contains { $0.contains("[1]") }
            if !rejected { expectedHashtags += hashtags.filter { $0 != "null" }.count }
            lines.append(#"{"id": \#(id), "entities": {"hashtags": [\#(hashtags.joined(separator: ", "))]}, "tags": []}"#)
        }
        let text = lines.joined(separator: "\n") + "\n"
        let result = try expectSameForEveryPipeline { workers, chunk, capacity in
            try Self.tables(of: text, fields: Self.tweets, key: [], tokenizer: tokenizer, workers: workers, chunk: chunk, capacity: capacity).tables
        }
        #expect(result[1].count == expectedHashtags)
        #expect(result[2].count == expectedHashtags)
        #expect(result[0].count + result[1].count > 400)
        #expect(result[0].allSatisfy { $0.contains("_source=\"in.ndjson\" _record=") })
    }

    @Test func problemsAreNamedFromTheTable() {
        var table = field("items", .string)
        table.childTable = ChildTable(fields: [field("a", .int64), field("a", .string)])
        var starred = field("stars", .json, path: "list.*")
        starred.childTable = .values(.string)
        var reread = field("tags", .json)
        reread.childTable = .values(.string)
        let problems = mappingProblems { _ = try MappingSchema(fields: [field("id", .int64), table, starred]) }.map(\.message)
        #expect(problems.contains("table items: field a: the name is used by more than one field"), "\(problems)")
        #expect(problems.contains { $0.contains("its path takes no '*'") }, "\(problems)")
        let alsoRead = mappingProblems { _ = try MappingSchema(fields: [reread, field("first", .string, path: "tags.0")]) }.map(\.message)
        #expect(alsoRead.contains { $0.contains("must be read by the table alone") }, "\(alsoRead)")
        let clash = mappingProblems {
            var links = field("links", .json)
            links.childTable = ChildTable(fields: [field("_id", .int64)])
            _ = try MappedTables(schema: try MappingSchema(fields: [field("id", .int64), links]), key: ["id"])
        }.map(\.message)
        #expect(clash.contains { $0.contains("the column _id is also one of the links") }, "\(clash)")
        // A record's table beside child tables: its links, and a key that could not link.
        var links = field("links", .json)
        links.childTable = .values(.string)
        let source = mappingProblems { _ = try MappedTables(schema: try MappingSchema(fields: [field("_source", .string), links])) }.map(\.message)
        #expect(source.contains { $0.contains("the column _source is also one of the links of the child tables' rows") }, "\(source)")
        for (key, what) in [(field("id", .int64, optional: true), "optional"), (field("id", .int64, path: "ids.*"), "a list"), (field("id", .json), "json")] {
            let keyed = mappingProblems { _ = try MappedTables(schema: try MappingSchema(fields: [key, links]), key: ["id"]) }.map(\.message)
            #expect(keyed.contains { $0.contains("the key id is \(what)") }, "\(keyed)")
        }
        let settings = mappingProblems {
            var unique = field("tags", .json)
            unique.childTable = .values(.string)
            unique.isUnique = true
            _ = try MappingSchema(fields: [field("id", .int64), unique])
        }.map(\.message)
        #expect(settings.contains { $0.contains("a child table takes no unique") }, "\(settings)")
    }

    /// A mapping file declares child tables with `table:` (fields, or one value's settings, and an index column's
    /// name) and the record's key with `key:`; its problems are placed at the lines they are about.
    @Test func mappingFilesDeclareTables() throws {
        let schema = try MappingSchema(mappingText: """
            key: id
            fields:
              - name: hashtags
                path: entities.hashtags
                table:
                  index: position
                  fields:
                    - {name: text, type: string}
                    - {name: indices, table: {type: int64, optional: true}}
              - {name: id, type: int64}
              - {name: tags, table: {type: string, links: {_id: tweet_id}}}
              - name: urls
                table:
                  links: {_source: src}
                  fields: [{name: u, type: string}]
            """)
        #expect(schema.options.key == ["id"])
        #expect(schema.fields.map(\.name) == ["id", "hashtags", "tags", "urls"])
        // A link renamed that the key chosen does not make is a problem: `_source` is a link only without a key.
        #expect(mappingProblems { _ = try MappedTables(schema: schema, key: schema.options.key) }.map(\.message)
                == ["child table urls: 'links' renames _source, which is not one of the links it takes from above (_id)"])
        let unkeyed = try MappedTables(schema: MappingSchema(fields: schema.fields.filter { $0.name != "tags" }, options: schema.options))
        #expect(unkeyed.tables.map { $0.fields.map(\.name) }.last == ["src", "_record", "_urls_index", "u"])
        let tables = try MappedTables(schema: MappingSchema(fields: schema.fields.dropLast(), options: schema.options), key: schema.options.key)
        #expect(tables.tables.map { $0.name(records: "t") } == ["t", "t_hashtags", "t_hashtags_indices", "t_tags"])
        #expect(tables.tables.map { $0.fields.map(\.name) } == [
            ["id"], ["_id", "position", "text"], ["_id", "position", "_indices_index", "value"], ["tweet_id", "_tags_index", "value"],
        ])
        #expect(tables.tables.map(\.parent) == [nil, 0, 1, 0])
        #expect(tables.tables[2].fields.last?.isOptional == true)

        let problems = mappingProblems {
            _ = try MappingSchema(mappingText: """
                key: [id, nowhere]
                fields:
                  - {name: id, type: int64}
                  - name: items
                    table:
                      fields:
                        - {name: a, type: int46}
                        - {name: b, type: string, colour: red}
                  - {name: tags, table: {type: string, name: tag, colour: red}}
                  - {name: bad, table: [1, 2]}
                  - {name: also, table: {index: "", fields: {a: 1}}}
                  - {name: more, table: {links: [a], type: string}}
                """, source: "m.yaml")
        }
        let shown = problems.map(\.description)
        #expect(shown.contains { $0.hasPrefix("m.yaml:7:") && $0.contains("table items: field a: unknown type 'int46'") }, "\(shown)")
        #expect(shown.contains { $0.hasPrefix("m.yaml:8:") && $0.contains("table items: field b: unknown key 'colour'") }, "\(shown)")
        #expect(shown.contains { $0.contains("table tags: unknown key 'colour'") }, "\(shown)")
        #expect(shown.contains { $0.contains("'table' must be {fields: [...]}") }, "\(shown)")
        #expect(shown.contains { $0.contains("table also: 'fields' must be a list") }, "\(shown)")
        #expect(shown.contains { $0.contains("table also: 'index' must name the column") }, "\(shown)")
        #expect(shown.contains { $0.contains("table more: 'links' must map links' names to new names") }, "\(shown)")
        #expect(shown.contains { $0.contains("key nowhere: no column of that name") }, "\(shown)")
        // A table whose only field has problems of its own is not also said to have no fields.
        let only = mappingProblems {
            _ = try MappingSchema(mappingText: "fields:\n  - {name: id, type: int64}\n  - {name: tags, table: {fields: [{name: text, typ: string}]}}\n")
        }.map(\.message)
        #expect(only.count == 2 && !only.contains { $0.contains("has no fields") }, "\(only)")
    }

    /// A record of a million elements maps into a million rows, in order, between two small records, when the
    /// memory budget's share holds them.
    @Test(arguments: [TokenizerChoice.simdjson, .yajl])
    func aMillionElementsMapIntoAMillionRows(tokenizer: TokenizerChoice) throws {
        var tags = field("tags", .json)
        tags.childTable = .values(.int64)
        let elements = (0..<1_000_000).map(String.init).joined(separator: ",")
        let text = "{\"id\": 1, \"tags\": [7]}\n{\"id\": 2, \"tags\": [\(elements)]}\n{\"id\": 3, \"tags\": [8, null]}\n"
        for workers in [1, 2] {
            let schema = try MappingSchema(fields: [field("id", .int64), tags])
            let reader = try Self.reader(text, schema: schema, key: ["id"], tokenizer: tokenizer, workers: workers, memoryBudget: 1 << 30)
            var records: [Int64] = []
            var count = 0
            var last: [Int64] = []
            while let batch = try reader.next() {
                let tables = Self.parts(of: batch)
                for row in tables[0].rows { records.append(tables[0].batch.column(0).int64(row) ?? -1) }
                let child = tables[1]
                for row in child.rows {
                    let values = (0..<3).map { child.batch.column($0).int64(row) ?? -1 }
                    if values[0] == 2 {
                        #expect(values[1] == Int64(count) && values[2] == Int64(count), "row \(count): \(values)")
                        count += 1
                    } else {
                        last = values
                    }
                }
            }
            #expect(records == [1, 2, 3])
            #expect(count == 1_000_000)
            #expect(last == [3, 0, 8])
        }
    }

    /// A record whose rows pass an eighth of the memory budget is rejected as too large, naming its array and the
    /// limit, and gives no rows; the records around it map, and a batch whose records' rows pass the share is
    /// handed on, so that no batch holds more than twice the share.
    @Test(arguments: [TokenizerChoice.simdjson, .yajl])
    func rowsPastTheBudgetRejectTheRecord(tokenizer: TokenizerChoice) throws {
        var sizes = field("sizes", .json)
        sizes.childTable = .values(.int64)
        var items = field("items", .json)
        items.childTable = ChildTable(fields: [field("name", .string), sizes])
        var tags = field("tags", .json)
        tags.childTable = .values(.string)
        let schema = try MappingSchema(fields: [field("id", .int64), items, tags])
        func record(_ id: Int, items count: Int, sizes: Int) -> String {
            let item = "{\"name\": \"item\", \"sizes\": [\((0..<sizes).map(String.init).joined(separator: ","))]}"
            return "{\"id\": \(id), \"items\": [\(Array(repeating: item, count: count).joined(separator: ","))], \"tags\": [\"t\"]}\n"
        }
        // About 27 KB of rows a record against a share of 128 KiB; records 3, 5 and 41 to 46 take more, in flat and in
        // nested arrays alike (their tags, read after, are not named too), the last six one after the other.
        let oversized = [3, 5] + Array(41...46)
        let text = (1...50).map { id in
            id == 5 ? record(id, items: 2_000, sizes: 20) : oversized.contains(id) ? record(id, items: 1, sizes: 5_000) : record(id, items: 2, sizes: 400)
        }.joined()
        for workers in [1, 2] {
            let reader = try Self.reader(text, schema: schema, key: ["id"], tokenizer: tokenizer, workers: workers, memoryBudget: 1 << 20)
            var records: [Int64] = []
            var rejections: [Rejection] = []
            var sizeRows = 0
            var batches = 0
            while let batch = try reader.next() {
                batches += 1
                // Rows a batch holds, rejected records' included: a batch is handed on once they pass the share.
                // (Element batches grow by doubling and never shrink: their capacity is the most rows they held.)
                let staged = batch.elementBatches.reduce(0) { max($0, $1.capacity, $1.elementBatches.reduce(0) { max($0, $1.capacity) }) }
                #expect(staged <= 3 * (128 << 10) / 33, "a batch held up to \(staged) rows")
                let tables = Self.parts(of: batch)
                for row in tables[0].rows { records.append(tables[0].batch.column(0).int64(row) ?? -1) }
                for row in tables[2].rows where oversized.contains(Int(tables[2].batch.column(0).int64(row) ?? 0)) {
                    Issue.record("a rejected record's row: \(row)")
                }
                sizeRows += tables[2].rows.count
                #expect(tables[2].rows.count <= 2 * (128 << 10) / 33, "a batch held \(tables[2].rows.count) rows")
                rejections += batch.rejections
            }
            #expect(records == (1...50).filter { !oversized.contains($0) }.map(Int64.init))
            #expect(sizeRows == 42 * 800)
            #expect(batches > 1, "the batch was never handed on early")
            #expect(rejections.map(\.location.ordinal) == oversized)
            for rejection in rejections {
                #expect(rejection.failures.map(\.keyPath) == ["$.items"], "\(rejection)")
                #expect(rejection.failures.first?.kind == .recordTooLarge)
                #expect(rejection.description.contains("131,072 bytes (an eighth of the memory budget)"), "\(rejection)")
            }
        }
    }

    /// Rows of arrays and child tables count against the pipeline's memory budget once a chunk is mapped, so that a
    /// slow consumer holds the reader back for them too. A record's thousand numbers take 2 KB of input and about
    /// 60 KB of rows: a chunk's rows pass the whole budget, which what the reader reserves alone never does. The run
    /// still ends with every record and row.
    @Test(arguments: [1, 2])
    func childRowsCountAgainstTheBudget(workers: Int) throws {
        var numbers = field("numbers", .json)
        numbers.childTable = .values(.int64)
        let schema = try MappingSchema(fields: [field("id", .int64), numbers])
        let elements = Array(repeating: "1", count: 1000).joined(separator: ",")
        let text = (1...600).map { id in "{\"id\": \(id), \"numbers\": [\(elements)]}\n" }.joined()
        let budget = 1 << 20
        var options = ReaderOptions(rejectionPolicy: .collect, workers: workers, chunkSize: 64 << 10, memoryBudget: budget)
        options.tablesToFill = TablesToFill(tables: [try MappedTables(schema: schema, key: ["id"])], source: "-")
        let source = try BatchSourceOpener.open(.bytes(Array(text.utf8)), plan: schema.plan, options: options, keepsRecordText: false, progress: ProgressMonitor())
        let pipeline = try #require(source as? ParallelPipeline)
        var records = 0
        var rows = 0
        while let batch = try pipeline.nextBatch() {
            records += batch.count
            rows += batch.rows(ofTable: 1, forRecords: 0..<batch.count).count
            usleep(100)
        }
        #expect(records == 600 && rows == 600_000)
        // The one-worker pipeline maps on the caller's thread and reads nothing ahead: it holds no chunk's rows.
        if workers > 1 { #expect(pipeline.peakBudgetInUse > budget, "peak \(pipeline.peakBudgetInUse) bytes") }
    }
}
