import CSQLite
import Foundation
import Testing

/// `sluice import` run as a process: exit statuses, interrupts, and crashes at random points that `--resume`
/// recovers from exactly.
@Suite struct ImportCommandTests {
    /// A directory with a generated dump: `count` records, every `rejectEvery`-th one rejected by the mapping.
    final class Dump {
        let directory: URL
        let input: String
        let mapping: String

        init(count: Int, rejectEvery: Int = 97) throws {
            directory = scratchPath("import-cli")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            input = directory.appendingPathComponent("dump.ndjson").path
            mapping = directory.appendingPathComponent("items.mapping.yaml").path
            try "fields:\n  - {name: id, type: int64}\n  - {name: name, type: string}\n  - {name: tags, path: \"tags.*\", type: string, optional: true}\n"
                .write(toFile: mapping, atomically: false, encoding: .utf8)
            var text = ""
            for id in 1...count {
                text += id % rejectEvery == 0 ? "{\"id\":\"bad\(id)\",\"name\":\"n\"}\n" : "{\"id\":\(id),\"name\":\"name \(id)\",\"tags\":[\"t\(id % 5)\"]}\n"
            }
            try text.write(toFile: input, atomically: false, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    }

    static func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = CommandLineTests.executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs sluice with `arguments`; with a `launcher` (a program and its arguments), through it, sluice's path
    /// following the launcher's arguments.
    static func run(_ arguments: [String], launchedBy launcher: [String] = []) throws -> (status: Int32, standardError: String) {
        let process = Process()
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [CommandLineTests.executable.path] + arguments
        } else {
            process.executableURL = CommandLineTests.executable
            process.arguments = arguments
        }
        let error = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs sluice under a file size limit of `blocks` 512-byte blocks, which fails writes past it as a full disk
    /// does: SIGXFSZ is ignored (and so across exec), so a write past the limit fails with EFBIG instead of killing.
    static func runOnAFullDisk(blocks: Int, _ arguments: [String]) throws -> (status: Int32, standardError: String) {
        try run(arguments, launchedBy: ["/bin/sh", "-c", "trap '' XFSZ; ulimit -f \(blocks); exec \"$0\" \"$@\""])
    }

    static func table(_ database: String, _ sql: String) throws -> [[SQLiteValue]] {
        try SQLiteRows.query(database, sql)
    }

    @Test func exitStatusSaysHowTheRunEnded() throws {
        let dump = try Dump(count: 50, rejectEvery: 1000)
        #expect(try Self.run(["import", "-m", dump.mapping, dump.input, "--to", dump.path("a.db")]).status == 0)
        let rejecting = try Dump(count: 50, rejectEvery: 10)
        let some = try Self.run(["import", "-m", rejecting.mapping, rejecting.input, "--to", rejecting.path("b.db")])
        #expect(some.status == 2)
        #expect(some.standardError.contains("sluice: \(rejecting.input): rejected record 10 (line 10, byte 351): $.id: expected int64, found string \"bad10\""))
        // A flood is counted by kind after the first lines.
        let flooded = try Dump(count: 200, rejectEvery: 3)
        let flood = try Self.run(["import", "-m", flooded.mapping, flooded.input, "--to", flooded.path("f.db")])
        #expect(flood.status == 2)
        #expect(flood.standardError.split(separator: "\n").filter { $0.contains(": rejected record ") }.count == 10)
        #expect(flood.standardError.contains("sluice:   66 × $.id: expected int64, found string \"bad3\" (first: \(flooded.input) record 3 (line 3, byte "))
        let existing = try Self.run(["import", "-m", dump.mapping, dump.input, "--to", dump.path("a.db")])
        #expect(existing.status == 1)
        #expect(existing.standardError.hasSuffix("sluice: error: \(dump.path("a.db")): write error: table items already exists (choose --if-exists append or replace, or --resume)\n"), "\(existing.standardError)")
        // Not JSON at all: every line rejected, nothing written, and the status says so.
        let garbage = try Self.run(["import", "-m", dump.mapping, dump.mapping, "--to", dump.path("c.csv")])
        #expect(garbage.status == 2, "\(garbage.standardError)")
        #expect(garbage.standardError.contains("0 written to"))
        let usage = try Self.run(["import", "-m", dump.mapping, dump.input, "--to", dump.path("d.db"), "--workers", "0"])
        #expect(usage.status == 64)
        #expect(usage.standardError.contains("--workers takes 1 to 1024 threads, not 0."))
        let unknown = try Self.run(["import", "-m", dump.mapping, dump.input, "--to", dump.path("out.xlsx")])
        #expect(unknown.status == 64, "a destination Sluice does not write is a usage error")
        #expect(unknown.standardError.contains("cannot tell what to write from the name. Sluice writes PostgreSQL (a postgresql:// URL), SQLite (FILE.sqlite"), "\(unknown.standardError)")
        #expect(unknown.standardError.contains("Parquet (FILE.parquet, or DIR/ for a directory of files)"), "\(unknown.standardError)")
        let summary = dump.path("summary.json")
        #expect(try Self.run(["import", "-m", rejecting.mapping, rejecting.input, "--to", dump.path("e.ndjson"), "--summary-json", summary]).status == 2)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as? [String: Any])
        #expect(json["records_read"] as? Int == 50 && json["records_written"] as? Int == 45 && json["records_rejected"] as? Int == 5)
        #expect(json["exit_status"] as? Int == 2 && json["status"] as? String == "some_rejected")
    }

    /// `--limit N`: the first N records (written or rejected, never beyond), with any worker count; the import is
    /// not complete, and `--resume` reads the rest.
    @Test func aLimitTakesTheFirstRecordsAndResumeReadsTheRest() throws {
        let dump = try Dump(count: 3000, rejectEvery: 7)
        for workers in ["1", "2"] {
            let database = dump.path("limited-\(workers).db")
            let limited = try Self.run(["import", "-m", dump.mapping, dump.input, "--to", database, "--limit", "1000", "--workers", workers, "--chunk-size", "4096"])
            #expect(limited.status == 2, "\(limited.standardError)")
            #expect(limited.standardError.contains("1,000 records read, 858 written to"), "\(limited.standardError)")
            #expect(try Self.table(database, "SELECT count(*), max(id) FROM items") == [[.integer(858), .integer(1000)]])
            #expect(try Self.table(database, "SELECT count(*) FROM items_rejects") == [[.integer(142)]])
            #expect(try Self.run(["import", "-m", dump.mapping, dump.input, "--to", database, "--resume", "--workers", workers]).status == 2)
            #expect(try Self.table(database, "SELECT count(*), count(DISTINCT id) FROM items") == [[.integer(2572), .integer(2572)]])
            #expect(try Self.table(database, "SELECT count(*) FROM items_rejects") == [[.integer(428)]])
        }
        let bad = try Self.run(["import", "-m", dump.mapping, dump.input, "--to", dump.path("x.db"), "--limit", "0"])
        #expect(bad.status == 64 && bad.standardError.contains("--limit takes 1 to"))
    }

    /// Starts `arguments` (a resumable import) again and again, each run killed with SIGKILL at a random moment
    /// within the time one whole run took, until a run ends by itself; returns how many runs were killed. Should a
    /// run end before three were (a machine faster than the time measured), `startOver` clears the destination and
    /// the kills come sooner. Every way out leaves the import finished.
    static func killRepeatedly(_ arguments: [String], oneRunTook seconds: TimeInterval, startOver: () throws -> Void) throws -> Int {
        var window = UInt32(max(seconds, 0.1) * 1e6)
        var kills = 0
        for _ in 0..<60 {
            let process = try start(arguments)
            usleep(UInt32.random(in: window / 20...window * 3 / 4))
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                kills += 1
            }
            process.waitUntilExit()
            guard process.terminationReason == .exit else { continue }
            if kills >= 3 { return kills }
            try startOver()
            kills = 0
            window = max(window / 2, 20_000)
        }
        // Never ended by itself in time: finish it uninterrupted.
        let last = try run(arguments)
        #expect(last.status == 0 || last.status == 2, "\(last.standardError)")
        return kills
    }

    /// A destination that cannot be written ends the run with status 1 and a message that says it was a write, to
    /// which destination: a full disk (/dev/full), a target whose directory is a file, a database another process
    /// holds locked. The locked database's last checkpoint then resumes to the same table as one run.
    @Test func writeFailuresNameTheDestinationAndResume() throws {
        let dump = try Dump(count: 3_000)
        let full = try Self.run(["map", "-m", dump.mapping, dump.input, "-o", "/dev/full", "-q"])
        #expect(full.status == 1)
        #expect(full.standardError.contains("sluice: error: /dev/full: write error: "), "\(full.standardError)")
        let nowhere = dump.path("dump.ndjson/out.db")
        let unopenable = try Self.run(["import", "-m", dump.mapping, dump.input, "--to", nowhere, "-q"])
        #expect(unopenable.status == 1)
        #expect(unopenable.standardError.contains("sluice: error: \(nowhere): write error: cannot open the database: a part of the path is not a directory"), "\(unopenable.standardError)")
        let missing = dump.path("missing/out.db")
        let noDirectory = try Self.run(["import", "-m", dump.mapping, dump.input, "--to", missing, "-q"])
        #expect(noDirectory.standardError.contains("cannot open the database: the directory \(dump.path("missing")) does not exist"), "\(noDirectory.standardError)")

        let reference = dump.path("reference.db")
        #expect(try Self.run(["import", "-m", dump.mapping, dump.input, "--to", reference, "-q"]).status == 2)
        let locked = dump.path("locked.db")
        var holder: OpaquePointer?
        #expect(sqlite3_open(locked, &holder) == SQLITE_OK)
        #expect(sqlite3_exec(holder, "PRAGMA journal_mode=WAL; CREATE TABLE held (x); BEGIN EXCLUSIVE; INSERT INTO held VALUES (1)", nil, nil, nil) == SQLITE_OK)
        let refused = try Self.run(["import", "-m", dump.mapping, dump.input, "--to", locked, "-q"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("sluice: error: \(locked): write error: ") && refused.standardError.contains("locked"), "\(refused.standardError)")
        #expect(sqlite3_exec(holder, "COMMIT", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(holder)
        #expect(try Self.run(["import", "-m", dump.mapping, dump.input, "--to", locked, "--resume", "-q"]).status == 2)
        #expect(try Self.table(locked, "SELECT * FROM items ORDER BY id") == Self.table(reference, "SELECT * FROM items ORDER BY id"))
    }

    /// Killed with SIGKILL at random moments, again and again, each time resumed: the table ends equal, row for
    /// row, to an import that was never interrupted, and so do its rejections.
    @Test func killedAtRandomPointsAndResumedEqualsOneRun() throws {
        let dump = try Dump(count: 60_000)
        let reference = dump.path("reference.db")
        let started = Date()
        #expect(try Self.run(["import", "-m", dump.mapping, dump.input, "--to", reference, "-q"]).status == 2)
        let resumed = dump.path("resumed.db")
        let kills = try Self.killRepeatedly(["import", "-m", dump.mapping, dump.input, "--to", resumed, "--resume", "--commit-every", "1500", "--workers", "2", "-q"],
                                            oneRunTook: Date().timeIntervalSince(started)) {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: resumed + suffix) }
        }
        #expect(kills >= 3, "the import was killed only \(kills) times")
        for query in ["SELECT * FROM items ORDER BY id", "SELECT ordinal, line, byte_offset, failures, raw FROM items_rejects ORDER BY ordinal"] {
            let expected = try Self.table(reference, query)
            let got = try Self.table(resumed, query)
            #expect(got.count == expected.count, "\(query): \(got.count) rows, \(expected.count) expected")
            #expect(got == expected, "\(query)")
        }
        let count = try Self.table(resumed, "SELECT count(*) FROM items")
        #expect(count == [[SQLiteValue.integer(Int64(60_000 - 60_000 / 97))]])
    }

    /// SIGINT finishes the batch in hand, commits, and exits 130; --resume then completes the import exactly.
    @Test func anInterruptCommitsAndResumes() throws {
        let dump = try Dump(count: 300_000)
        let database = dump.path("interrupted.db")
        let process = try Self.start(["import", "-m", dump.mapping, dump.input, "--to", database, "--commit-every", "5000", "-q"])
        usleep(300_000)
        #expect(process.isRunning, "the import finished before it could be interrupted")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        let checkpoint = try Self.table(database, "SELECT ordinal, complete FROM _sluice_checkpoints")
        let committedRows = try Self.table(database, "SELECT count(*) FROM items")
        let committedRejects = try Self.table(database, "SELECT count(*) FROM items_rejects")
        #expect(checkpoint.first?[1] == .integer(0))
        if case .integer(let ordinal) = checkpoint.first?[0], case .integer(let rows) = committedRows.first?[0], case .integer(let rejects) = committedRejects.first?[0] {
            // What is committed is exactly the records up to the checkpoint.
            #expect(rows + rejects == ordinal)
        } else {
            Issue.record("no checkpoint: \(checkpoint)")
        }
        let resumed = try Self.run(["import", "-m", dump.mapping, dump.input, "--to", database, "--resume"])
        #expect(resumed.status == 2, "\(resumed.standardError)")
        let written = Int64(300_000 - 300_000 / 97)
        let rejected = Int64(300_000 / 97)
        let counts = try Self.table(database, "SELECT count(*), count(DISTINCT id) FROM items")
        #expect(counts == [[SQLiteValue.integer(written), SQLiteValue.integer(written)]])
        let rejects = try Self.table(database, "SELECT count(*) FROM items_rejects")
        #expect(rejects == [[SQLiteValue.integer(rejected)]])
    }

    /// Interrupting a file destination leaves no file under its name.
    @Test func anInterruptedFileImportLeavesNoFile() throws {
        let dump = try Dump(count: 300_000)
        let output = dump.path("out.csv")
        let process = try Self.start(["import", "-m", dump.mapping, dump.input, "--to", output, "--workers", "1", "-q"])
        usleep(200_000)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dump.directory.path).sorted() == ["dump.ndjson", "items.mapping.yaml"])
    }
}
