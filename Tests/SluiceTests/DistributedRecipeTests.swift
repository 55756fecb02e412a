import Foundation
import Testing

/// The Dask recipe (examples/distributed/dask_import.py) run for real: a LocalCluster of worker processes, one
/// `sluice import --shard` task per shard. The parts in shard order must be one `sluice import` of the whole file,
/// rejections included, and a retried shard must not leave its rows twice.
@Suite(.serialized) struct DistributedRecipeTests {
    static let recipe = repositoryRoot.appendingPathComponent("examples/distributed/dask_import.py")

    /// A directory with a mapping and the same 3,000 records as NDJSON, a top-level array and a wrapper document;
    /// every 101st record is rejected, and one holds brackets and commas inside a string.
    final class Dump {
        let directory = scratchPath("dask-recipe")
        var mapping: String { path("items.mapping.yaml") }

        init() throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try "fields:\n  - {name: id, type: int64}\n  - {name: name, type: string}\n  - {name: tags, path: \"tags.*\", type: string, optional: true}\n"
                .write(toFile: mapping, atomically: false, encoding: .utf8)
            let records = (1...3_000).map { id in
                id % 101 == 0 ? #"{"id":"bad\#(id)","name":"n"}"# : id == 1_500 ? #"{"id":1500,"name":"], [{\"","tags":[]}"# : #"{"id":\#(id),"name":"name \#(id)","tags":["t\#(id % 7)"]}"#
            }
            try (records.joined(separator: "\n") + "\n").write(toFile: path("dump.ndjson"), atomically: false, encoding: .utf8)
            try ("[\n" + records.joined(separator: ",\n") + "\n]\n").write(toFile: path("dump.json"), atomically: false, encoding: .utf8)
            try (#"{"meta": {"count": 3000, "note": "]["}, "data": ["# + "\n" + records.joined(separator: ",\n") + "\n], \"more\": [[1], {\"x\": \"]\"}]}\n")
                .write(toFile: path("wrapped.json"), atomically: false, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    }

    struct Outcome { var status: Int32; var standardError: String }

    static func python() throws -> String {
        guard let python = ProcessInfo.processInfo.environment["SLUICE_TEST_PYTHON"] else {
            throw ParquetReadBack.Failure(description: "no Python with Dask: run the tests through scripts/test (or set SLUICE_TEST_PYTHON to scripts/python-env's output)")
        }
        return python
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // Errors go to a file: Dask's log lines must not fill a pipe nobody reads yet.
        let errorFile = scratchPath("recipe-errors.txt")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, standardError: (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "")
    }

    static func recipe(_ dump: Dump, input: String, parts: Int, out: String, kind: String = "ndjson", sluice: String = CommandLineTests.executable.path,
                       mapping: String? = nil, extra: [String] = []) throws -> Outcome {
        try run(python(), [recipe.path, dump.path(input), "-m", mapping ?? dump.mapping, "--parts", String(parts), "--out", dump.path(out),
                           "--kind", kind, "--processes", "2", "--sluice", sluice] + extra)
    }

    static func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    static func summary(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any] ?? [:]
    }

    @Test(arguments: [("dump.ndjson", [String]()), ("dump.json", []), ("wrapped.json", ["--records-at", "data"])])
    func partsInShardOrderAreOneImportOfTheWholeFile(_ input: String, _ recordsAt: [String]) throws {
        let dump = try Dump()
        let whole = try Self.run(CommandLineTests.executable.path, ["import", "-m", dump.mapping, dump.path(input), "--to", dump.path("whole.ndjson"),
                                                                   "--rejects", dump.path("whole.rejects.ndjson"), "--quiet"] + recordsAt)
        #expect(whole.status == 2, "\(whole.standardError)")
        let rows = try Self.text(dump.path("whole.ndjson"))
        let rejections = try Self.text(dump.path("whole.rejects.ndjson"))
        #expect(rows.split(separator: "\n").count == 2_971 && rejections.split(separator: "\n").count == 29)
        // One output directory for every run, the larger run first: a run leaves no part of an earlier one. The
        // split's index is kept and cut again, and options after -- reach every import.
        let out = "out"
        for parts in [8, 3, 1] {
            let outcome = try Self.recipe(dump, input: input, parts: parts, out: out,
                                          extra: recordsAt + ["--index", dump.path("\(input).index"), "--", "--batch-size", "7"])
            #expect(outcome.status == 2, "\(input), \(parts) parts: \(outcome.standardError)")
            let names = (0..<parts).map { String(format: "part-%05d", $0) }
            #expect(try names.map { try Self.text(dump.path("\(out)/\($0).ndjson")) }.joined() == rows, "\(input), \(parts) parts")
            #expect(try names.map { try Self.text(dump.path("\(out)/\($0).rejects.ndjson")) }.joined() == rejections, "\(input), \(parts) parts")
            // A part, its rejections and its summary per shard, and nothing of the earlier runs.
            let files = try FileManager.default.contentsOfDirectory(atPath: dump.path(out)).filter { $0.hasPrefix("part-") }
            #expect(files.count == 3 * parts, "\(input), \(parts) parts: \(files.sorted())")
            let total = try Self.summary(dump.path("\(out)/summary.json"))
            #expect(total["shards"] as? Int == parts && total["records_read"] as? Int == 3_000 && total["records_written"] as? Int == 2_971
                        && total["records_rejected"] as? Int == 29 && total["exit_status"] as? Int == 2, "\(total)")
            let kinds = total["rejections"] as? [[String: Any]] ?? []
            #expect(kinds.count == 1 && kinds.first?["count"] as? Int == 29 && kinds.first?["first_ordinal"] as? Int == 101, "\(kinds)")
        }
    }

    /// A mapping with child tables: each table's parts in shard order are that table of one import of the whole
    /// file (rows linked by source and ordinal, which shards keep), and the summary adds up each child table's rows.
    @Test func childTablesGetPartsOfTheirOwn() throws {
        let dump = try Dump()
        let mapping = dump.path("tables.mapping.yaml")
        try "fields:\n  - {name: id, type: int64}\n  - {name: name, type: string}\n  - {name: tags, table: {type: string}, optional: true}\n"
            .write(toFile: mapping, atomically: false, encoding: .utf8)
        let whole = try Self.run(CommandLineTests.executable.path, ["import", "-m", mapping, dump.path("dump.json"), "--to", dump.path("whole.ndjson"),
                                                                   "--summary-json", dump.path("whole.summary.json"), "--quiet"])
        #expect(whole.status == 2, "\(whole.standardError)")
        let outcome = try Self.recipe(dump, input: "dump.json", parts: 3, out: "out", mapping: mapping)
        #expect(outcome.status == 2 && outcome.standardError.contains("rows in 1 child tables"), "\(outcome.standardError)")
        for table in ["tables", "tables_tags"] {
            let rows = try Self.text(dump.path("whole.\(table).ndjson"))
            #expect(rows.split(separator: "\n").count > 2_900, "\(table)")
            #expect(try (0..<3).map { try Self.text(dump.path(String(format: "out/part-%05d.\(table).ndjson", $0))) }.joined() == rows, "\(table)")
        }
        let expected = try Self.summary(dump.path("whole.summary.json"))["child_tables"] as? [[String: Any]]
        let children = try Self.summary(dump.path("out/summary.json"))["child_tables"] as? [String: [String: Any]]
        #expect(expected?.count == 1 && children?.count == 1)
        #expect(children?["tables_tags"]?["rows_written"] as? Int == expected?.first?["rows_written"] as? Int, "\(String(describing: children))")
        #expect(children?["tables_tags"]?["records_table"] as? String == "tables")
    }

    /// Shard 1's worker process is killed after its import ended (Dask runs the task again on a new worker), and
    /// shard 2's first run exits 1 after writing its part (Dask's retry): every id is in the SQLite parts once.
    @Test func retriedShardsReplaceTheirPartsInsteadOfDuplicatingRows() throws {
        let dump = try Dump()
        let wrapper = dump.path("flaky-sluice")
        try """
        #!/bin/sh
        "\(CommandLineTests.executable.path)" "$@"
        status=$?
        case " $* " in
          *"plan.json:1 "*) [ -e "\(dump.path("killed"))" ] || { touch "\(dump.path("killed"))"; kill -9 $PPID; exit 1; } ;;
          *"plan.json:2 "*) [ -e "\(dump.path("failed"))" ] || { touch "\(dump.path("failed"))"; exit 1; } ;;
        esac
        exit $status
        """.write(toFile: wrapper, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper)
        let outcome = try Self.recipe(dump, input: "dump.json", parts: 4, out: "out", kind: "sqlite", sluice: wrapper)
        #expect(outcome.status == 2, "\(outcome.standardError)")
        #expect(FileManager.default.fileExists(atPath: dump.path("killed")) && FileManager.default.fileExists(atPath: dump.path("failed")))
        var ids: [SQLiteValue] = []
        var rejected: [SQLiteValue] = []
        for index in 0..<4 {
            let part = dump.path(String(format: "out/part-%05d.sqlite", index))
            ids += try SQLiteRows.query(part, "SELECT id FROM items ORDER BY id").map { $0[0] }
            rejected += try SQLiteRows.query(part, "SELECT ordinal FROM items_rejects ORDER BY ordinal").map { $0[0] }
        }
        #expect(ids == (1...3_000).filter { $0 % 101 != 0 }.map { .integer(Int64($0)) })
        #expect(rejected == (1...29).map { .integer(Int64($0 * 101)) })
        let total = try Self.summary(dump.path("out/summary.json"))
        #expect(total["records_read"] as? Int == 3_000 && total["records_written"] as? Int == 2_971, "\(total)")
    }

    @Test func aShardThatKeepsFailingFailsTheRun() throws {
        let dump = try Dump()
        let wrapper = dump.path("broken-sluice")
        try """
        #!/bin/sh
        case " $* " in *"plan.json:0 "*) echo "sluice: error: the disk is full" >&2; exit 1 ;; esac
        exec "\(CommandLineTests.executable.path)" "$@"
        """.write(toFile: wrapper, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper)
        let outcome = try Self.recipe(dump, input: "dump.ndjson", parts: 2, out: "out", sluice: wrapper, extra: ["--retries", "1"])
        #expect(outcome.status == 1 && outcome.standardError.contains("shard 0: sluice exited 1: sluice: error: the disk is full"), "\(outcome.standardError)")
        #expect(!FileManager.default.fileExists(atPath: dump.path("out/summary.json")))
    }

    /// A driver that holds a client already calls `import_file` with the command line's options; without --parts
    /// the small file is one shard per worker.
    @Test func aDriverWithItsOwnClientImportsTheSameParts() throws {
        let dump = try Dump()
        let whole = try Self.run(CommandLineTests.executable.path, ["import", "-m", dump.mapping, dump.path("dump.json"), "--to", dump.path("whole.ndjson"), "--quiet"])
        #expect(whole.status == 2, "\(whole.standardError)")
        let driver = dump.path("driver.py")
        try """
        import sys
        import dask
        from dask.distributed import Client, LocalCluster
        # The worker processes start by importing this module: only the driver runs the import.
        if __name__ == "__main__":
            sys.path.insert(0, sys.argv[1])
            import dask_import
            # Dask's scratch space stays in the test's directory.
            dask.config.set({"temporary-directory": sys.argv[2]})
            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                              local_directory=sys.argv[2]) as cluster, Client(cluster) as client:
                sys.exit(dask_import.import_file(client, sys.argv[3:]))
        """.write(toFile: driver, atomically: false, encoding: .utf8)
        let outcome = try Self.run(try Self.python(), [driver, Self.recipe.deletingLastPathComponent().path, dump.path("scratch"), dump.path("dump.json"), "-m", dump.mapping,
                                                       "--out", dump.path("out"), "--kind", "ndjson", "--sluice", CommandLineTests.executable.path])
        #expect(outcome.status == 2, "\(outcome.standardError)")
        let parts = try FileManager.default.contentsOfDirectory(atPath: dump.path("out")).filter { $0.hasSuffix(".ndjson") && !$0.contains("rejects") }.sorted()
        #expect(parts == ["part-00000.ndjson", "part-00001.ndjson"])
        #expect(try parts.map { try Self.text(dump.path("out/\($0)")) }.joined() == Self.text(dump.path("whole.ndjson")))
        #expect(try Self.summary(dump.path("out/summary.json"))["records_read"] as? Int == 3_000)
    }
}
