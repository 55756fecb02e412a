import Foundation
import Testing

/// However an import ends, its summary adds up (records read = written + rejected + rolled back + already imported)
/// and says what the destination holds: every way a run can end, through `--summary-json` and the database itself.
@Suite struct AccountingTests {
    typealias Dump = ImportCommandTests.Dump

    struct Counts: Equatable, CustomStringConvertible {
        var read = 0, written = 0, rejected = 0, rolledBack = 0, skipped = 0, skippedRejected = 0
        var description: String {
            "read \(read), written \(written), rejected \(rejected), rolled back \(rolledBack), already imported \(skipped) (\(skippedRejected) rejected)"
        }
    }

    static func counts(_ summaryPath: String) throws -> Counts {
        let data = try Data(contentsOf: URL(fileURLWithPath: summaryPath))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        func number(_ key: String) throws -> Int { try #require(object[key] as? Int, "no \(key) in \(String(decoding: data, as: UTF8.self))") }
        return Counts(read: try number("records_read"), written: try number("records_written"), rejected: try number("records_rejected"),
                      rolledBack: try number("records_rolled_back"), skipped: try number("records_skipped"),
                      skippedRejected: try number("records_skipped_rejected"))
    }

    /// The identity, and that a SQLite database that started empty holds what the counts say.
    static func expectAddsUp(_ counts: Counts, database: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(counts.read == counts.written + counts.rejected + counts.rolledBack + counts.skipped, "\(counts)", sourceLocation: sourceLocation)
        guard let database else { return }
        let rows = try ImportCommandTests.table(database, "SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM items_rejects)")
        #expect(rows == [[.integer(Int64(counts.written + counts.skipped - counts.skippedRejected)), .integer(Int64(counts.rejected + counts.skippedRejected))]],
                "\(counts)", sourceLocation: sourceLocation)
    }

    /// Runs `sluice` with `arguments` plus `--summary-json`; returns its status, standard error and counts.
    static func run(_ arguments: [String], in dump: Dump) throws -> (status: Int32, standardError: String, counts: Counts) {
        let summary = dump.path("summary-\(UUID().uuidString).json")
        let outcome = try ImportCommandTests.run(arguments + ["--summary-json", summary])
        return (outcome.status, outcome.standardError, try counts(summary))
    }

    @Test func aRunThatEndsWellOrAtItsLimit() throws {
        let dump = try Dump(count: 3000)
        let database = dump.path("out.db")
        let limited = try Self.run(["import", "-m", dump.mapping, dump.input, "--to", database, "--limit", "1000", "-q"], in: dump)
        #expect(limited.status == 2 && limited.counts == Counts(read: 1000, written: 990, rejected: 10), "\(limited.counts)")
        try Self.expectAddsUp(limited.counts, database: database)
        // The rest, resumed: the status tells of the whole import, and the earlier part's rejections are counted.
        let resumed = try Self.run(["import", "-m", dump.mapping, dump.input, "--to", database, "--resume", "-q"], in: dump)
        #expect(resumed.status == 2 && resumed.counts == Counts(read: 3000, written: 1980, rejected: 20, skipped: 1000, skippedRejected: 10), "\(resumed.counts)")
        try Self.expectAddsUp(resumed.counts, database: database)
        let again = try Self.run(["import", "-m", dump.mapping, dump.input, "--to", database, "--resume"], in: dump)
        #expect(again.status == 2, "a resumed import that rejected records earlier exits 2 even when this part rejects none: \(again.standardError)")
        #expect(again.standardError.contains("sluice: 3,000 records read, 0 written to \(database), 0 rejected, 3,000 already imported (30 of them rejected)"), "\(again.standardError)")
        try Self.expectAddsUp(again.counts, database: database)
    }

    /// `--max-rejects` stops the run: what was read since the last commit is rolled back, and counted so.
    @Test func aStopAtTheRejectionLimit() throws {
        let dump = try Dump(count: 3000, rejectEvery: 7)
        let database = dump.path("out.db")
        let stopped = try Self.run(["import", "-m", dump.mapping, dump.input, "--to", database, "--max-rejects", "5", "--commit-every", "10", "-q"], in: dump)
        #expect(stopped.status == 1, "\(stopped.standardError)")
        #expect(stopped.counts.read == 42 && stopped.counts.rolledBack > 0, "\(stopped.counts)")
        try Self.expectAddsUp(stopped.counts, database: database)
        let files = try Self.run(["import", "-m", dump.mapping, dump.input, "--to", dump.path("out.csv"), "--max-rejects", "5"], in: dump)
        #expect(files.counts == Counts(read: 42, rolledBack: 42), "\(files.counts)")
        #expect(files.standardError.contains("sluice: 42 records read, 0 written to \(dump.path("out.csv")), 0 rejected, 42 rolled back, "), "\(files.standardError)")
        try Self.expectAddsUp(files.counts)
    }

    /// SIGINT and SIGTERM commit what was written; SIGKILL leaves the last commit, and `--resume` counts what it
    /// holds as already imported.
    @Test(arguments: [SIGINT, SIGTERM, SIGKILL])
    func aSignal(_ signal: Int32) throws {
        let dump = try Dump(count: 400_000)
        let database = dump.path("out.db")
        let summary = dump.path("signalled.json")
        // Small commits and batches on one worker, so that the run is still going when the signal comes.
        let process = try ImportCommandTests.start(["import", "-m", dump.mapping, dump.input, "--to", database, "--commit-every", "1000", "--batch-size", "64",
                                                    "--workers", "1", "--summary-json", summary])
        // Signalled once the first commit is in.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && process.isRunning
            && (try? ImportCommandTests.table(database, "SELECT count(*) FROM _sluice_checkpoints WHERE ordinal > 0")) != [[.integer(1)]] {
            usleep(5000)
        }
        #expect(process.isRunning, "the import ended before the signal")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        if signal == SIGKILL {
            #expect(process.terminationReason == .uncaughtSignal)
        } else {
            #expect(process.terminationStatus == 130)
            try Self.expectAddsUp(try Self.counts(summary), database: database)
        }
        let resumed = try Self.run(["import", "-m", dump.mapping, dump.input, "--to", database, "--resume", "-q"], in: dump)
        #expect(resumed.status == 2 && resumed.counts.read == 400_000 && resumed.counts.skipped > 0, "\(resumed.counts)")
        try Self.expectAddsUp(resumed.counts, database: database)
    }

    /// The disk fills (a file size limit, which fails writes as a full disk does) in the middle of a batch: the
    /// rows of that batch written before the failure are rolled back with the rest since the last commit.
    @Test func aFullDisk() throws {
        let dump = try Dump(count: 100_000)
        let database = dump.path("out.db")
        let summary = dump.path("full.json")
        let (status, message) = try ImportCommandTests.runOnAFullDisk(blocks: 1024, [
            "import", "-m", dump.mapping, dump.input, "--to", database, "--commit-every", "5000", "--summary-json", summary,
        ])
        #expect(status == 1, "\(message)")
        let counts = try Self.counts(summary)
        #expect(counts.rolledBack > 0 && counts.read < 100_000, "\(counts)")
        #expect(message.contains("rolled back to the last commit"), "\(message)")
        try Self.expectAddsUp(counts, database: database)
    }

    /// A gzip member that fails its check: the records of the member are rolled back.
    @Test func aFailedCheckOfCompressedData() throws {
        let dump = try Dump(count: 20_000)
        var compressed = Compressor.gzip(Array(try String(contentsOfFile: dump.input, encoding: .utf8).utf8))
        // The CRC-32 in the trailer no longer matches.
        compressed[compressed.count - 6] ^= 0xFF
        let input = dump.path("damaged.ndjson.gz")
        try Data(compressed).write(to: URL(fileURLWithPath: input))
        let database = dump.path("out.db")
        let damaged = try Self.run(["import", "-m", dump.mapping, input, "--to", database, "-q"], in: dump)
        #expect(damaged.status == 1, "\(damaged.standardError)")
        #expect(damaged.counts == Counts(read: 20_000, rolledBack: 20_000), "\(damaged.counts)")
        try Self.expectAddsUp(damaged.counts, database: database)
    }

    /// Standard output closed by its reader: the run ends with status 1 and its summary; what it counts as
    /// written reached the pipe, and the batch the pipe refused is counted as rolled back.
    @Test func aClosedPipe() throws {
        let dump = try Dump(count: 200_000)
        let summary = dump.path("pipe.json")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        // The reader takes 1,000,000 bytes and closes the pipe; wc counts the whole lines it got; the shell exits
        // with sluice's status.
        process.arguments = ["-c", "\"$0\" \"$@\" | head -c 1000000 | wc -l; exit ${PIPESTATUS[0]}", CommandLineTests.executable.path,
                             "import", "-m", dump.mapping, dump.input, "--to", "-", "--summary-json", summary]
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let lines = Int(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1, "\(message)")
        #expect(message.contains("sluice: error: <stdout>: write error: its reader closed it"), "\(message)")
        let counts = try Self.counts(summary)
        #expect(counts.read < 200_000 && counts.written > 0 && counts.rolledBack > 0, "\(counts)")
        #expect(lines >= counts.written, "\(lines) lines received, \(counts)")
        try Self.expectAddsUp(counts)
        #expect(try Self.errorCategory(summary) == "sink")
    }

    /// The summary says whose problem stopped a failed run (the destination's, the data's, the input's reading), and
    /// a run that did not fail names none.
    @Test func aFailedRunNamesItsErrorsCategory() throws {
        let dump = try Dump(count: 300, rejectEvery: 7)
        let limited = dump.path("limited.json")
        #expect(try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", dump.path("out.db"), "--max-rejects", "5", "--summary-json", limited]).status == 1)
        #expect(try Self.errorCategory(limited) == "data")
        let missing = dump.path("missing.json")
        #expect(try ImportCommandTests.run(["import", "-m", dump.mapping, dump.path("no-such-file.ndjson"), "--to", dump.path("other.db"), "--summary-json", missing]).status == 1)
        #expect(try Self.errorCategory(missing) == "io")
        let fine = dump.path("fine.json")
        #expect(try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", dump.path("fine.db"), "--summary-json", fine]).status == 2)
        #expect(try Self.errorCategory(fine) == nil)
    }

    static func errorCategory(_ summaryPath: String) throws -> String? {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryPath))) as? [String: Any]
        return object?["error_category"] as? String
    }
}
