import Foundation
import SluiceSinkCases
import Testing

/// `sluice import --to out.parquet` and `--to DIR/` run as processes: what the files hold (read back by pyarrow,
/// DuckDB and polars), part files, and that a failed or interrupted run leaves no file under a final name.
@Suite struct ParquetImportTests {
    typealias Dump = ImportCommandTests.Dump

    /// The ids the dump's mapping accepts: every record but each 97th.
    static func acceptedIDs(_ range: ClosedRange<Int>) -> [String] {
        range.filter { $0 % 97 != 0 }.map { "i:\($0)" }
    }

    static func ids(_ path: String, reader: ParquetReadBack.Reader) throws -> [String] {
        try ParquetReadBack.rows(of: path, reader: reader).map { String($0.split(separator: "\t")[0]) }
    }

    @Test func importWritesEveryAcceptedRecord() throws {
        let dump = try Dump(count: 3000)
        let output = dump.path("out.parquet")
        let run = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", output, "--compression", "snappy"])
        #expect(run.status == 2, "\(run.standardError)")
        for reader in [ParquetReadBack.Reader.pyarrow, .duckdb, .polars] {
            let rows = try ParquetReadBack.rows(of: output, reader: reader)
            #expect(rows.map { String($0.split(separator: "\t")[0]) } == Self.acceptedIDs(1...3000))
            // id, name, tags: the list of one tag.
            #expect(rows.first == "i:1\ts:\(SinkCaseRun.hex(Array("name 1".utf8)))\t[s:\(SinkCaseRun.hex(Array("t1".utf8)))]")
        }
    }

    @Test func severalRecordTypesWriteAFileEach() throws {
        let dump = try Dump(count: 1)
        let document = dump.path("document.json")
        try #"{"items": [{"id": 1}, {"id": 2}], "names": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}"#.write(toFile: document, atomically: false, encoding: .utf8)
        try "records: items\nfields:\n  - {name: id, type: int64}\n".write(toFile: dump.path("items.mapping.yaml"), atomically: false, encoding: .utf8)
        try "records: names\nfields:\n  - {name: name, type: string}\n".write(toFile: dump.path("names.mapping.yaml"), atomically: false, encoding: .utf8)
        let run = try ImportCommandTests.run(["import", "-m", dump.path("items.mapping.yaml"), "-m", dump.path("names.mapping.yaml"), document, "--to", dump.path("out.parquet")])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try Self.ids(dump.path("out.items.parquet"), reader: .pyarrow) == ["i:1", "i:2"])
        #expect(try ParquetReadBack.rows(of: dump.path("out.names.parquet"), reader: .duckdb) == ["a", "b", "c"].map { "s:" + SinkCaseRun.hex(Array($0.utf8)) })
    }

    @Test func partsEndAfterTheRowLimit() throws {
        let dump = try Dump(count: 1000)
        let directory = dump.path("lake") + "/"
        let run = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", directory, "--max-file-rows", "300", "--batch-size", "128"])
        #expect(run.status == 2, "\(run.standardError)")
        let parts = try FileManager.default.contentsOfDirectory(atPath: directory + "items").sorted()
        #expect(parts == ["part-00000.parquet", "part-00001.parquet", "part-00002.parquet", "part-00003.parquet"])
        var ids: [String] = []
        for part in parts { ids += try Self.ids(directory + "items/" + part, reader: .pyarrow) }
        #expect(ids == Self.acceptedIDs(1...1000))
        #expect(try ParquetReadBack.rows(of: directory + "items/part-00003.parquet", reader: .duckdb).count == 1000 - 1000 / 97 - 900)
    }

    @Test func partsEndAtAboutTheByteLimit() throws {
        let dump = try Dump(count: 200_000)
        let directory = dump.path("lake") + "/"
        let run = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", directory, "--max-file-bytes", "1", "--row-group-size", "1", "--compression", "none"])
        #expect(run.status == 2, "\(run.standardError)")
        let parts = try FileManager.default.contentsOfDirectory(atPath: directory + "items").sorted()
        #expect(parts.count > 2)
        var ids: [String] = []
        for part in parts {
            let size = try #require(try FileManager.default.attributesOfItem(atPath: directory + "items/" + part)[.size] as? Int)
            // A part ends at the row group that reaches the limit: at most about one row group past it.
            #expect(size <= 2 << 20, "\(part) holds \(size) bytes")
            ids += try Self.ids(directory + "items/" + part, reader: .pyarrow)
        }
        #expect(ids == Self.acceptedIDs(1...200_000))
    }

    @Test func aTableWithoutPartLimitsIsOneFileInTheDirectory() throws {
        let dump = try Dump(count: 50)
        let run = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", dump.path("lake") + "/"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try Self.ids(dump.path("lake/items.parquet"), reader: .duckdb) == Self.acceptedIDs(1...50))
    }

    @Test func aFailedRunLeavesNoFile() throws {
        let dump = try Dump(count: 3000)
        let run = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", dump.path("lake") + "/", "--max-file-rows", "50", "--max-rejects", "5"])
        #expect(run.status == 1)
        #expect(run.standardError.contains("more than --max-rejects 5"), "\(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dump.path("lake/items")) == [])
        let single = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", dump.path("out.parquet"), "--max-rejects", "0"])
        #expect(single.status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dump.directory.path).sorted() == ["dump.ndjson", "items.mapping.yaml", "lake"])
    }

    @Test func anInterruptedRunLeavesNoFile() throws {
        let dump = try Dump(count: 300_000)
        let process = try ImportCommandTests.start(["import", "-m", dump.mapping, dump.input, "--to", dump.path("lake") + "/", "--max-file-rows", "20000", "--workers", "1", "-q"])
        usleep(300_000)
        #expect(process.isRunning, "the import finished before it could be interrupted")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dump.path("lake/items")) == [])
    }

    @Test func parquetOptionsAreChecked() throws {
        let dump = try Dump(count: 10)
        let cases: [(destination: String, options: [String], status: Int32, message: String)] = [
            ("a.parquet", ["--compression", "lz4"], 64, "--compression takes zstd, zstd:LEVEL (1 to 22), snappy or none, not 'lz4'."),
            ("a.parquet", ["--row-group-size", "0"], 64, "--row-group-size takes 1 to 4096 MiB, not 0."),
            ("a.parquet", ["--max-file-rows", "5"], 1, "--max-file-rows and --max-file-bytes split a table into parts: write to a directory (--to DIR/)"),
            ("a.csv", ["--compression", "snappy"], 64, "apply to Parquet destinations"),
            ("a.parquet", ["--if-exists", "append"], 1, "--if-exists append cannot add to a Parquet file"),
        ]
        for testCase in cases {
            let result = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", dump.path(testCase.destination)] + testCase.options)
            #expect(result.status == testCase.status, "\(testCase.options)")
            #expect(result.standardError.contains(testCase.message), "\(testCase.options): \(result.standardError)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dump.directory.path).sorted() == ["dump.ndjson", "items.mapping.yaml"])
    }
}
