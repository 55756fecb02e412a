import Foundation
import Testing

/// Child tables imported into PostgreSQL hold, table by table, the rows the same import writes into SQLite (which
/// the normaliser checks, in ChildTableImportTests), also when records replace others of their key, with their child
/// rows, in one transaction, across transactions and across imports.
@Suite struct PostgresChildTableTests {
    @Test func everyTableHoldsWhatSQLiteHolds() throws {
        let database = try PostgresImportTests.TestDatabase()
        let directory = scratchPath("child-tables-postgres")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("awkward.ndjson").path
        try ChildTableImportTests.awkwardTweets(count: 800, seed: 3).write(toFile: input, atomically: false, encoding: .utf8)
        let sqlite = directory.appendingPathComponent("out.db").path
        let arguments = ["import", input, "-m", ChildTableImportTests.mapping, "--table", "t", "--workers", "2", "-q"]
        #expect(try ImportCommandTests.run(arguments + ["--to", sqlite]).status == 2)
        let run = try ImportCommandTests.run(arguments + ["--to", database.url])
        #expect(run.status == 2, "\(run.standardError)")
        #expect(try database.query("SELECT count(*) FROM t_rejects") == ImportCommandTests.table(sqlite, "SELECT count(*) FROM t_rejects").map { $0.map { "\($0)" } })
        #expect(try Self.tablesAgree(sqlite, database, names: ["t", "t_hashtags", "t_hashtags_indices", "t_mentions", "t_urls"]))
    }

    /// Every table of `names` in the SQLite file and in PostgreSQL, row by row in the order of all their columns.
    static func tablesAgree(_ sqlite: String, _ database: PostgresImportTests.TestDatabase, names: [String]) throws -> Bool {
        var agree = true
        for table in names {
            let columns = try ImportCommandTests.table(sqlite, "SELECT count(*) FROM pragma_table_info('\(table)')").first?.first
            guard case .integer(let count) = columns else { return false }
            let order = (1...count).map(String.init).joined(separator: ", ")
            let expected = try ImportCommandTests.table(sqlite, "SELECT * FROM \(table) ORDER BY \(order)").map { row in
                row.map { value -> String? in
                    switch value {
                    case .null: nil
                    case .integer(let number): String(number)
                    case .text(let text): text
                    default: "\(value)"
                    }
                }
            }
            let got = try database.query("SELECT * FROM \(table) ORDER BY \(order)")
            let same = got == expected
            #expect(same, "\(table): \(got.count) rows in PostgreSQL, \(expected.count) in SQLite; first apart: \(String(describing: zip(got, expected).first { $0.0 != $0.1 }))")
            agree = agree && same
        }
        return agree
    }

    /// Records whose keys repeat, within a write, across transactions and across imports: the last of a key wins
    /// with its child rows, at every depth, as in SQLite; `--if-exists replace` drops child tables before the
    /// tables their foreign keys name.
    @Test func aKeyReplacesItsChildRowsAsInSQLite() throws {
        let database = try PostgresImportTests.TestDatabase()
        let directory = scratchPath("child-tables-postgres-key")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let mapping = try ChildTableImportTests.keyedMapping(in: directory)
        // Ids fold onto 97 keys, so most records replace one before them, some in the same write.
        func repeating(seed: UInt64) -> String {
            ChildTableImportTests.awkwardTweets(count: 700, seed: seed).split(separator: "\n").map { line in
                guard line.hasPrefix("{\"id\": "), let comma = line.firstIndex(of: ","), let id = Int(line[line.index(line.startIndex, offsetBy: 7)..<comma]) else { return String(line) }
                return "{\"id\": \(id % 97)" + line[comma...]
            }.joined(separator: "\n") + "\n"
        }
        let first = directory.appendingPathComponent("first.ndjson").path
        let second = directory.appendingPathComponent("second.ndjson").path
        try repeating(seed: 5).write(toFile: first, atomically: false, encoding: .utf8)
        try repeating(seed: 6).write(toFile: second, atomically: false, encoding: .utf8)
        let sqlite = directory.appendingPathComponent("out.db").path
        let names = ["k", "k_hashtags", "k_hashtags_indices", "k_mentions", "k_urls"]
        for (input, ifExists) in [(first, "fail"), (second, "append"), (first, "replace")] {
            let arguments = ["import", input, "-m", mapping, "--table", "k", "--commit-every", "37", "-q", "--if-exists", ifExists]
            let intoSQLite = try ImportCommandTests.run(arguments + ["--workers", "1", "--to", sqlite])
            let intoPostgres = try ImportCommandTests.run(arguments + ["--workers", "2", "--to", database.url])
            #expect(intoSQLite.status == 2 && intoPostgres.status == 2, "\(intoSQLite.standardError) \(intoPostgres.standardError)")
            #expect(try Self.tablesAgree(sqlite, database, names: names), "after \(ifExists)")
        }
        let keys = try database.query("SELECT count(*), count(DISTINCT id) FROM k")
        #expect(keys.first?[0] == keys.first?[1] && keys.first?[0] != "0", "\(keys)")
        let orphans = try database.query("SELECT count(*) FROM k_hashtags_indices i WHERE NOT EXISTS (SELECT 1 FROM k_hashtags h WHERE h._id = i._id AND h._hashtags_index = i._hashtags_index)")
        #expect(orphans == [["0"]])
        // Replaced through a mapping without its child tables: their foreign keys go (the tables stay, unwritten).
        let plain = directory.appendingPathComponent("plain.mapping.yaml").path
        try "key: id\nfields:\n  - {name: id, type: int64}\n  - {name: text, type: string, optional: true}\n".write(toFile: plain, atomically: false, encoding: .utf8)
        let replaced = try ImportCommandTests.run(["import", first, "-m", plain, "--table", "k", "--if-exists", "replace", "--to", database.url, "-q"])
        #expect(replaced.status == 0 || replaced.status == 2, "\(replaced.standardError)")
        #expect(try database.query("SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND confrelid = 'k'::regclass") == [["0"]])
    }

    /// PostgreSQL cuts longer names short without a word: a table or column name over 63 bytes is refused by name,
    /// while the indexes Sluice names after a long table stay apart.
    @Test func namesPostgreSQLWouldCutAreRefused() throws {
        let database = try PostgresImportTests.TestDatabase()
        let directory = scratchPath("child-tables-postgres-names")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.ndjson").path
        try ChildTableImportTests.awkwardTweets(count: 50, seed: 8).write(toFile: input, atomically: false, encoding: .utf8)
        let long = String(repeating: "a", count: 50)
        let refused = try ImportCommandTests.run(["import", input, "-m", ChildTableImportTests.mapping, "--table", long, "--to", database.url])
        #expect(refused.status == 1 && refused.standardError.contains("table \(long)_hashtags_indices: PostgreSQL names hold at most 63 bytes, this one 67"),
                "\(refused.standardError)")
        // 46 bytes: its children's names fit, their link indexes' do not.
        let fits = String(repeating: "b", count: 42) + "_" + "x"
        for table in [fits + "1", fits + "2"] {
            let run = try ImportCommandTests.run(["import", input, "-m", ChildTableImportTests.mapping, "--table", table, "--to", database.url, "-q"])
            #expect(run.status == 2, "\(run.standardError)")
        }
        let indexes = try database.query("SELECT indexname FROM pg_indexes WHERE indexname LIKE '%_sluice_links' ORDER BY 1").map { $0[0] ?? "" }
        #expect(indexes.count == 8 && Set(indexes).count == 8 && indexes.allSatisfy { $0.utf8.count <= 63 }, "\(indexes)")
    }
}
