import Foundation
import Testing

/// `sluice import` of child tables, compared table by table with an independent normaliser written in Python
/// (Tests/ChildTables/check_tables.py) on the real twitter sample and on generated dumps full of awkward arrays, into
/// SQLite and Parquet (read back by pyarrow, DuckDB and polars), with one and several workers and both tokenizers.
@Suite struct ChildTableImportTests {
    static let mapping = repositoryRoot.appendingPathComponent("Tests/ChildTables/child_tables.mapping.yaml").path
    static let checker = repositoryRoot.appendingPathComponent("Tests/ChildTables/check_tables.py").path

    /// Tweets whose arrays take every shape: empty, null, missing, nulls inside, arrays of arrays, an object or a
    /// value where an array belongs, elements missing a required key, deep unread nesting, one very long array.
    static func awkwardTweets(count: Int, seed: UInt64) -> String {
        var random = SplitMix(seed: seed)
        var lines: [String] = []
        for id in 1...count {
            func hashtag(_ index: Int) -> String {
                switch random.below(40) {
                case 0: return "null"
                case 1: return "[\"not an object\"]"
                case 2: return "{\"text\": \"missing indices\"}"
                case 3: return "{\"text\": \"bad index\", \"indices\": [1, [2]]}"
                case 4: return "{\"text\": \"deep\", \"extra\": " + String(repeating: "{\"a\": [", count: 40) + "1" + String(repeating: "]}", count: 40) + "}"
                default: return "{\"text\": \"t\\u00e9\\\"\(id)-\(index)\", \"indices\": [\(index), null, \(index + 3)]}"
                }
            }
            let hashtags: String
            switch random.below(12) {
            case 0: hashtags = "[]"
            case 1: hashtags = "null"
            case 2: hashtags = "{\"text\": \"an object\"}"
            case 3: hashtags = id % 50 == 3 ? "[" + (0..<5_000).map { "{\"text\": \"h\($0)\"}" }.joined(separator: ",") + "]" : "[[1, 2]]"
            default: hashtags = "[" + (0..<random.below(5)).map(hashtag).joined(separator: ", ") + "]"
            }
            let mentions = (0..<random.below(4)).map { index in
                random.below(30) == 0 ? "{\"id\": \(index)}" : "{\"id\": \(id * 10 + index), \"screen_name\": \"u\(index)\"}"
            }
            let urls = (0..<random.below(3)).map { _ in
                ["{\"expanded_url\": \"https://e.example/\(id)\"}", "{\"expanded_url\": null}", "{}", "null"][random.below(4)]
            }
            var entities = "\"hashtags\": \(hashtags), \"user_mentions\": [\(mentions.joined(separator: ", "))]"
            if random.below(15) == 0 { entities += ", \"urls\": \"not an array\"" } else { entities += ", \"urls\": [\(urls.joined(separator: ", "))]" }
            lines.append(random.below(20) == 0 ? "{\"id\": \(id), \"text\": \"no entities\"}" : "{\"id\": \(id), \"text\": \"tweet \(id)\", \"entities\": {\(entities)}}")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var input: String
        var keyed: Bool
        var workers: Int
        var tokenizer: String
        var testDescription: String { "\(input), \(keyed ? "keyed" : "by source and ordinal"), \(workers) workers, \(tokenizer)" }
    }

    static let cases: [Case] = ["twitter", "awkward"].flatMap { input in
        [false, true].flatMap { keyed in [(1, "simdjson"), (3, "simdjson"), (1, "yajl"), (3, "yajl")].map { Case(input: input, keyed: keyed, workers: $0.0, tokenizer: $0.1) } }
    }

    @Test(arguments: cases)
    func everyTableAgreesWithTheNormaliser(_ testCase: Case) throws {
        let python = try #require(ProcessInfo.processInfo.environment["SLUICE_TEST_PYTHON"], "run the tests through scripts/test (it sets SLUICE_TEST_PYTHON)")
        let directory = scratchPath("child-tables")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input: String
        var reading: [String]
        if testCase.input == "twitter" {
            input = repositoryRoot.appendingPathComponent("Fixtures/realdata/twitter.json").path
            reading = [input, "--records-at", "statuses"]
        } else {
            input = directory.appendingPathComponent("awkward.ndjson").path
            try Self.awkwardTweets(count: 600, seed: 11).write(toFile: input, atomically: false, encoding: .utf8)
            reading = [input]
        }
        var mapping = Self.mapping
        if testCase.keyed {
            mapping = directory.appendingPathComponent("keyed.mapping.yaml").path
            try ("key: id\n" + String(contentsOfFile: Self.mapping, encoding: .utf8)).write(toFile: mapping, atomically: false, encoding: .utf8)
        }
        reading += ["--mapping", mapping, "--table", "t", "--workers", "\(testCase.workers)", "--tokenizer", testCase.tokenizer, "--chunk-size", "65536"]
        let database = directory.appendingPathComponent("out.db").path
        let parquet = directory.appendingPathComponent("parquet").path + "/"
        for destination in [database, parquet] {
            let run = try ImportCommandTests.run(["import"] + reading + ["--to", destination])
            #expect(run.status == 0 || run.status == 2, "\(run.standardError)")
        }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: python)
        check.arguments = [Self.checker, testCase.keyed ? "keyed" : "unkeyed", input, testCase.input == "twitter" ? "statuses" : "-", input, database, parquet]
        let output = Pipe()
        check.standardOutput = output
        try check.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "\(text)")
        #expect(text.hasPrefix("ok:"))
    }

    /// A mapping with `key: id`, written beside the other files of a test.
    static func keyedMapping(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("keyed.mapping.yaml").path
        try ("key: id\n" + String(contentsOfFile: mapping, encoding: .utf8)).write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// Every table of the child-table mapping, each row as its values, in a stable order.
    static func tables(_ database: String) throws -> [String: [[SQLiteValue]]] {
        var tables: [String: [[SQLiteValue]]] = [:]
        for (name, order) in [("t", "id"), ("t_hashtags", "1, 2"), ("t_hashtags_indices", "1, 2, 3"), ("t_mentions", "1, 2"), ("t_urls", "1, 2"),
                              ("t_rejects", "ordinal")] {
            tables[name] = try ImportCommandTests.table(database, "SELECT * FROM \(name) ORDER BY \(order)")
        }
        return tables
    }

    /// A row that replaces another of its key replaces its rows in every child table, beneath tables too, whether
    /// the row it replaces came from an earlier import or from the same batch.
    @Test func aKeyReplacesItsChildRows() throws {
        let directory = scratchPath("child-tables-key")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let mapping = try Self.keyedMapping(in: directory)
        let first = directory.appendingPathComponent("first.ndjson").path
        let second = directory.appendingPathComponent("second.ndjson").path
        try """
            {"id": 1, "text": "a", "entities": {"hashtags": [{"text": "x", "indices": [1, 2]}, {"text": "y", "indices": [3]}], "urls": [{"expanded_url": "u1"}]}}
            {"id": 2, "text": "b", "entities": {"hashtags": [{"text": "z", "indices": [4]}]}}

            """.write(toFile: first, atomically: false, encoding: .utf8)
        try """
            {"id": 1, "text": "a2", "entities": {"hashtags": [{"text": "w", "indices": [9]}]}}
            {"id": 3, "text": "c", "entities": {"hashtags": [{"text": "p", "indices": [5, 6]}, {"text": "q", "indices": []}]}}
            {"id": 3, "text": "c2", "entities": {"hashtags": [{"text": "r", "indices": [7]}]}}

            """.write(toFile: second, atomically: false, encoding: .utf8)
        let database = directory.appendingPathComponent("out.db").path
        #expect(try ImportCommandTests.run(["import", first, "-m", mapping, "--table", "t", "--to", database]).status == 0)
        let run = try ImportCommandTests.run(["import", second, "-m", mapping, "--table", "t", "--to", database, "--if-exists", "append"])
        #expect(run.status == 0, "\(run.standardError)")
        let tables = try Self.tables(database)
        #expect(tables["t"] == [[.integer(1), .text("a2")], [.integer(2), .text("b")], [.integer(3), .text("c2")]])
        #expect(tables["t_hashtags"] == [[.integer(1), .integer(0), .text("w")], [.integer(2), .integer(0), .text("z")], [.integer(3), .integer(0), .text("r")]])
        #expect(tables["t_hashtags_indices"] == [[.integer(1), .integer(0), .integer(0), .integer(9)], [.integer(2), .integer(0), .integer(0), .integer(4)],
                                                 [.integer(3), .integer(0), .integer(0), .integer(7)]])
        #expect(tables["t_urls"] == [])
        let schema = try ImportCommandTests.table(database, "SELECT sql FROM sqlite_master WHERE name = 't_hashtags'")
        #expect("\(schema)".contains("FOREIGN KEY (\"_id\") REFERENCES \"t\" (\"id\")"), "\(schema)")
    }

    /// Rows go into SQLite 32 to a statement: keys that repeat inside one statement's rows, and rows whose key an
    /// earlier statement or import wrote, leave the last record of each key with its own child rows only, and a
    /// table without child tables keeps the last row of each key too.
    @Test func keysRepeatedWithinAndAcrossGroupsKeepTheLastRecord() throws {
        let directory = scratchPath("child-tables-key-groups")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let mapping = try Self.keyedMapping(in: directory)
        let plain = directory.appendingPathComponent("plain.mapping.yaml").path
        try "key: id\nfields:\n  - {name: id, type: int64}\n  - {name: text, type: string}\n".write(toFile: plain, atomically: false, encoding: .utf8)
        // Record i has key i % 40 (a key repeats within every 32 rows) and i % 4 hashtags, each with i % 3 indices.
        func records(_ range: Range<Int>) -> String {
            range.map { i in
                let hashtags = (0..<i % 4).map { j in "{\"text\": \"h\(i)-\(j)\", \"indices\": [\((0..<i % 3).map { "\(i + $0)" }.joined(separator: ", "))]}" }
                return "{\"id\": \(i % 40), \"text\": \"t\(i)\", \"entities\": {\"hashtags\": [\(hashtags.joined(separator: ", "))]}}\n"
            }.joined()
        }
        let first = directory.appendingPathComponent("first.ndjson").path
        let second = directory.appendingPathComponent("second.ndjson").path
        try records(0..<200).write(toFile: first, atomically: false, encoding: .utf8)
        try records(200..<290).write(toFile: second, atomically: false, encoding: .utf8)
        let database = directory.appendingPathComponent("out.db").path
        let flat = directory.appendingPathComponent("flat.db").path
        for (input, ifExists) in [(first, "fail"), (second, "append")] {
            for (mappingFile, output) in [(mapping, database), (plain, flat)] {
                let run = try ImportCommandTests.run(["import", input, "-m", mappingFile, "--table", "t", "--to", output, "--if-exists", ifExists, "-q"])
                #expect(run.status == 0, "\(run.standardError)")
            }
        }
        // The second file holds every key; its last record of key k is 280 + k for k < 10, else 240 + k.
        let last = (0..<40).map { $0 < 10 ? 280 + $0 : 240 + $0 }
        let expectedRecords = last.map { [SQLiteValue.integer(Int64($0 % 40)), .text("t\($0)")] }
        let tables = try Self.tables(database)
        #expect(tables["t"] == expectedRecords)
        #expect(try ImportCommandTests.table(flat, "SELECT * FROM t ORDER BY id") == expectedRecords)
        var hashtags: [[SQLiteValue]] = []
        var indices: [[SQLiteValue]] = []
        for i in last {
            let key = SQLiteValue.integer(Int64(i % 40))
            for j in 0..<i % 4 {
                hashtags.append([key, .integer(Int64(j)), .text("h\(i)-\(j)")])
                for k in 0..<i % 3 { indices.append([key, .integer(Int64(j)), .integer(Int64(k)), .integer(Int64(i + k))]) }
            }
        }
        #expect(tables["t_hashtags"] == hashtags)
        #expect(tables["t_hashtags_indices"] == indices)
    }

    /// Tables that would share a name, and links a byte range cannot give, are refused before anything is written.
    @Test func namesThatClashAndByteRangesWithoutKeysAreRefused() throws {
        let directory = scratchPath("child-tables-refused")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.ndjson").path
        try "{\"id\": 1, \"rejects\": [1]}\n".write(toFile: input, atomically: false, encoding: .utf8)
        let mapping = directory.appendingPathComponent("m.mapping.yaml").path
        try "fields:\n  - {name: id, type: int64}\n  - {name: rejects, table: {type: int64}}\n".write(toFile: mapping, atomically: false, encoding: .utf8)
        let database = directory.appendingPathComponent("out.db").path
        let clash = try ImportCommandTests.run(["import", input, "-m", mapping, "--table", "t", "--to", database])
        #expect(clash.status == 1 && clash.standardError.contains("two tables would be named t_rejects"), "\(clash.standardError)")
        if FileManager.default.fileExists(atPath: database) {
            #expect(try ImportCommandTests.table(database, "SELECT count(*) FROM sqlite_master WHERE name LIKE 't%'") == [[.integer(0)]])
        }
        let files = try ImportCommandTests.run(["import", input, "-m", mapping, "--table", "t", "--to", directory.appendingPathComponent("out").path + "/"])
        #expect(files.status == 0, "\(files.standardError)")
        let range = try ImportCommandTests.run(["import", input, "-m", mapping, "--table", "u", "--byte-range", "0:10", "--to", directory.appendingPathComponent("range.db").path])
        #expect(range.status == 1 && range.standardError.contains("a --byte-range numbers its records from 1"), "\(range.standardError)")
    }

    /// Killed with SIGKILL at random moments and resumed each time: every table, the child tables too, ends equal
    /// row for row to one uninterrupted import, for rows linked by key (whose replacing deletes child rows) and by
    /// source and ordinal.
    @Test(arguments: [true, false])
    func killedAndResumedEqualsOneRun(keyed: Bool) throws {
        let directory = scratchPath("child-tables-kill")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("awkward.ndjson").path
        try Self.awkwardTweets(count: 12_000, seed: 5).write(toFile: input, atomically: false, encoding: .utf8)
        let mapping = keyed ? try Self.keyedMapping(in: directory) : Self.mapping
        let reference = directory.appendingPathComponent("reference.db").path
        let started = Date()
        let arguments = ["import", input, "-m", mapping, "--table", "t", "-q"]
        #expect(try ImportCommandTests.run(arguments + ["--to", reference]).status == 2)
        let resumed = directory.appendingPathComponent("resumed.db").path
        let kills = try ImportCommandTests.killRepeatedly(arguments + ["--to", resumed, "--resume", "--commit-every", "500", "--workers", "2"],
                                                          oneRunTook: Date().timeIntervalSince(started)) {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: resumed + suffix) }
        }
        #expect(kills >= 3, "the import was killed only \(kills) times")
        let expected = try Self.tables(reference)
        let got = try Self.tables(resumed)
        for (name, rows) in expected {
            #expect(got[name]?.count == rows.count, "\(name): \(got[name]?.count ?? 0) rows, \(rows.count) expected")
            #expect(got[name] == rows, "\(name)")
        }
        #expect((expected["t_hashtags"]?.count ?? 0) > 10_000)
    }
}
