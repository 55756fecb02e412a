import Sluice
import Testing
@testable import SluiceImport

/// `--to` is read against one table of destination kinds, in order: schemes before file extensions.
@Suite struct DestinationKindTests {
    @Test(arguments: [
        ("-", Destination.ndjson(path: nil)),
        ("postgresql://me@host/archive.db", .postgres(url: "postgresql://me@host/archive.db")),
        ("postgres://host/out.parquet", .postgres(url: "postgres://host/out.parquet")),
        ("sqlite:out.csv", .sqlite(path: "out.csv")),
        ("OUT.SQLITE3", .sqlite(path: "OUT.SQLITE3")),
        ("data/out.db", .sqlite(path: "data/out.db")),
        ("out.tsv", .csv(path: "out.tsv", delimiter: 0x09)),
        ("out.CSV", .csv(path: "out.CSV", delimiter: UInt8(ascii: ","))),
        ("out.jsonl", .ndjson(path: "out.jsonl")),
        ("lake.parquet", .parquet(path: "lake.parquet")),
        ("lake/", .parquetDirectory("lake/")),
    ])
    func eachNameMeansOneDestination(_ text: String, _ expected: Destination) throws {
        #expect(try Destination(parsing: text) == expected)
    }

    /// Every case has its entry, and what each entry says agrees with what its sink does.
    @Test func everyDestinationHasAKindAndOnlyDatabasesKeepCheckpoints() throws {
        let all: [Destination] = [.sqlite(path: "a.db"), .postgres(url: "postgresql://h/d"), .csv(path: "a.csv", delimiter: 44), .ndjson(path: nil),
                                  .ndjson(path: "a.ndjson"), .ndjsonDirectory("d"), .parquet(path: "a.parquet"), .parquetDirectory("d/")]
        #expect(all.filter(\.keepsCheckpoints) == [.sqlite(path: "a.db"), .postgres(url: "postgresql://h/d")])
        #expect(all.filter(\.takesParquetOptions) == [.parquet(path: "a.parquet"), .parquetDirectory("d/")])
        #expect(all.filter { $0.kind.choosesDateStorage } == [.sqlite(path: "a.db")])
    }

    @Test func anUnknownNameListsEveryKind() {
        do {
            _ = try Destination(parsing: "out.xlsx")
            Issue.record("out.xlsx was read as a destination")
        } catch {
            #expect(error.description == "invalid options: --to out.xlsx: cannot tell what to write from the name. Sluice writes PostgreSQL (a postgresql:// URL), SQLite (FILE.sqlite, .sqlite3, .db, or sqlite:PATH), CSV (FILE.csv), TSV (FILE.tsv), NDJSON (FILE.ndjson or .jsonl, or - for standard output) and Parquet (FILE.parquet, or DIR/ for a directory of files).")
        }
    }
}
