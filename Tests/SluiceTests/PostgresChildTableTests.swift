import Foundation
import Testing

/// Child tables imported into PostgreSQL hold, table by table, the rows the same import writes into SQLite (which
/// the normaliser checks, in ChildTableImportTests); an upsert with child tables is refused by name.
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
        for (table, order) in [("t", "id"), ("t_hashtags", "2, 3"), ("t_hashtags_indices", "2, 3, 4"), ("t_mentions", "2, 3"), ("t_urls", "2, 3")] {
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
            #expect(got.count == expected.count, "\(table)")
            #expect(got == expected, "\(table)")
        }
        #expect(try database.query("SELECT count(*) FROM t_rejects") == ImportCommandTests.table(sqlite, "SELECT count(*) FROM t_rejects").map { $0.map { "\($0)" } })
        let keyed = directory.appendingPathComponent("keyed.mapping.yaml").path
        try ("key: id\n" + String(contentsOfFile: ChildTableImportTests.mapping, encoding: .utf8)).write(toFile: keyed, atomically: false, encoding: .utf8)
        let refused = try ImportCommandTests.run(["import", input, "-m", keyed, "--table", "k", "--to", database.url])
        #expect(refused.status == 1 && refused.standardError.contains("upserts on a key (--key, or the mapping's key:) with child tables go into SQLite only for now"),
                "\(refused.standardError)")
    }
}
