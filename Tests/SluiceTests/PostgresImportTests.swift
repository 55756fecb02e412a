import CPostgres
import Foundation
import Testing
@testable import Sluice
@testable import SluiceImport

/// Imports into a real PostgreSQL server, which `scripts/test` starts (scripts/with-postgres) and names in
/// `SLUICE_TEST_POSTGRES`. Each test works in a database of its own.
@Suite struct PostgresImportTests {
    /// A database created for one test and dropped after it.
    final class TestDatabase {
        let url: String
        private let name: String
        private let adminURL: String

        init() throws {
            adminURL = try #require(ProcessInfo.processInfo.environment["SLUICE_TEST_POSTGRES"],
                                    "no PostgreSQL server: run the tests through scripts/test (or scripts/with-postgres)")
            name = "sluice_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            _ = try Self.query(adminURL, "CREATE DATABASE \(name)")
            url = adminURL.replacingOccurrences(of: "@/postgres?", with: "@/\(name)?")
        }

        deinit {
            _ = try? Self.query(adminURL, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        }

        func query(_ sql: String) throws -> [[String?]] { try Self.query(url, sql) }

        /// The rows of `sql`, each value as PostgreSQL's text (NULL as nil).
        static func query(_ url: String, _ sql: String) throws -> [[String?]] {
            let connection = PQconnectdb(url)
            defer { PQfinish(connection) }
            guard PQstatus(connection) == CONNECTION_OK else { throw QueryError(message: String(cString: PQerrorMessage(connection))) }
            let result = PQexec(connection, sql)
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else { throw QueryError(message: String(cString: PQresultErrorMessage(result))) }
            return (0..<PQntuples(result)).map { row in
                (0..<PQnfields(result)).map { column in PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column)) }
            }
        }

        struct QueryError: Error { var message: String }
    }

    @Test func everyTypeHasItsPostgresColumnType() throws {
        let database = try TestDatabase()
        let workspace = try ImportTests.Workspace()
        let summary = Importer(workspace.job(.postgres(url: database.url))).run()
        #expect(summary.outcome == .complete, "\(summary.outcome)")
        let types = try database.query("SELECT column_name || ' ' || data_type FROM information_schema.columns WHERE table_name = 't' ORDER BY ordinal_position")
        #expect(types.map { $0[0] ?? "" } == ["i bigint", "u numeric", "d double precision", "b boolean", "t timestamp with time zone", "url text",
                                               "raw bytea", "lang bigint", "code text", "j jsonb", "tags jsonb", "s text"])
        let rows = try database.query("""
            SET TIME ZONE 'UTC'; SELECT i::text, u::text, d::text, b::text, t::text, url, encode(raw, 'hex'), lang::text, code, j::text, tags::text, s \
            FROM t ORDER BY coalesce(i, 0), lang
            """)
        #expect(rows.count == 4)
        #expect(rows[0] == ["-9223372036854775808", "9223372036854775807", "-0", "true", "1969-12-31 23:59:59.5+00", "https://x.org/a?b=c", "000100ff", "2", "f",
                            #"{"a": [1, 2]}"#, #"["x", "y"]"#, ""])
        // numeric(20) holds every uint64.
        #expect(rows.contains { $0[1] == "18446744073709551615" })
        #expect(rows.contains { $0 == [nil, nil, nil, nil, nil, nil, nil, "0", "?", nil, nil, nil] })
        // Microseconds, the finest a timestamptz keeps (rounded); text with every escape COPY knows.
        #expect(rows.contains { $0[4] == "2040-01-01 00:00:00.123457+00" && $0[11] == "tab\tquote\"comma,newline\n😀" && $0[2] == "1e+300" && $0[10] == "[]" })
        #expect(try database.query("SELECT table_name, ordinal, complete FROM _sluice_checkpoints") == [["t", "4", "t"]])
    }

    @Test func rejectionsAndUpsertsLandInTheDatabase() throws {
        let database = try TestDatabase()
        let workspace = try ImportTests.Workspace(records: [#"{"id": 1, "v": "a"}"#, #"{"id": "x", "v": "b"}"#, #"{"id": 1, "v": "c"}"#, #"{"id": 2, "v": "d"}"#],
                                                  mapping: "fields:\n  - {name: id, type: int64}\n  - {name: v, type: string}\n")
        var job = workspace.job(.postgres(url: database.url), workers: 1)
        job.tables[0].keyColumns = [0]
        #expect(Importer(job).run().outcome == .someRejected)
        #expect(try database.query("SELECT id, v FROM t ORDER BY id") == [["1", "c"], ["2", "d"]])
        #expect(try database.query("SELECT ordinal, line, failures->0->>'path', raw FROM t_rejects") == [["2", "2", "$.id", #"{"id": "x", "v": "b"}"#]])
        // Again, appending: the key keeps one row per id.
        job.ifExists = .append
        #expect(Importer(job).run().outcome == .someRejected)
        #expect(try database.query("SELECT count(*) FROM t") == [["2"]])
        job.ifExists = .fail
        guard case .failed(let message) = Importer(job).run().outcome else { Issue.record("an existing table was accepted"); return }
        #expect(message.contains("table t already exists"))
    }

    /// PostgreSQL text and jsonb cannot hold U+0000: such a record is rejected with its key path, the rest imported.
    @Test func textPostgreSQLCannotHoldIsARejection() throws {
        let database = try TestDatabase()
        let workspace = try ImportTests.Workspace(records: [#"{"s": "a\u0000b"}"#, #"{"j": {"k": "\u0000"}}"#, #"{"j": {"k": "\\u0000"}, "s": "ok"}"#],
                                                  mapping: "fields:\n  - {name: s, type: string, optional: true}\n  - {name: j, type: json, optional: true}\n")
        let summary = Importer(workspace.job(.postgres(url: database.url))).run()
        #expect(summary.outcome == .someRejected, "\(summary.outcome)")
        #expect(try database.query("SELECT s, j::text FROM t") == [["ok", #"{"k": "\\u0000"}"#]])
        #expect(try database.query("SELECT ordinal, failures->0->>'path', failures->0->>'expected' FROM t_rejects ORDER BY ordinal") ==
                [["1", "$.s", "no U+0000 (PostgreSQL text cannot hold it)"], ["2", "$.j", "no \\u0000 (PostgreSQL jsonb cannot hold it)"]])
    }

    /// The binary forms the rows travel in: numeric's base-10,000 digits at every length, and instants rounded to
    /// the microsecond (ties to even, before 1970 too), read back as the server prints them.
    @Test func binaryFormsReadBackExactly() throws {
        let database = try TestDatabase()
        let unsigned: [UInt64] = [0, 1, 9_999, 10_000, 10_001, 100_000_000, 1_000_000_000_000, UInt64(Int64.max) + 1, .max]
        let instants = ["1970-01-01T00:00:00.0000005Z", "1970-01-01T00:00:00.0000015Z", "1969-12-31T23:59:59.9999995Z",
                        "1969-12-31T23:59:59.9999994Z", "2000-01-01T00:00:00Z", "1677-09-22T00:00:00Z"]
        let records = unsigned.indices.map { index in
            #"{"n": \#(index), "u": \#(unsigned[index])\#(index < instants.count ? #", "t": ""# + instants[index] + "\"" : "")}"#
        }
        let workspace = try ImportTests.Workspace(records: records, mapping: """
            fields:
              - {name: n, type: int64}
              - {name: u, type: uint64}
              - {name: t, type: date, optional: true, formats: [iso8601]}
            """)
        #expect(Importer(workspace.job(.postgres(url: database.url))).run().outcome == .complete)
        let rows = try database.query("SET TIME ZONE 'UTC'; SELECT u::text, t::text FROM t ORDER BY n")
        #expect(rows.map { $0[0] } == unsigned.map { String($0) })
        #expect(rows.map { $0[1] } == ["1970-01-01 00:00:00+00", "1970-01-01 00:00:00.000002+00", "1970-01-01 00:00:00+00",
                                       "1969-12-31 23:59:59.999999+00", "2000-01-01 00:00:00+00", "1677-09-22 00:00:00+00", nil, nil, nil])
    }

    /// Decimals travel as numeric's base-10,000 digits aligned on the point (groups before and after it, leading
    /// and trailing zero groups, every scale), into numeric(p,s) columns, and read back as the canonical text.
    @Test func decimalsReadBackExactlyAsNumeric() throws {
        let database = try TestDatabase()
        let shapes = [(38, 10), (10, 2), (5, 5), (20, 0), (9, 4)]
        var random = ParquetCase.Generator(state: 38)
        // Written by hand for each shape, then read back as numeric(p,s) prints them (`printed`).
        let fixed = [["-0.00001", "0.01", "0.00001", "9999", "0.0001"], ["9999.9999", "9999.99", "0.9999", "10000", "9999.9999"],
                     ["-10000.0001", "-10000.01", "-0.0001", "-100000000", "-10000.0001"], ["1e-10", "1e-2", "1e-5", "1e4", "1e-4"],
                     ["99999999999999999999999999999999999999e-10", "99999999.99", "0.99999", "99999999999999999999", "99999.9999"]]
        let printed = [["0", "-0.0000100000", "0.01", "0.00001", "9999", "0.0001"], ["1", "9999.9999000000", "9999.99", "0.99990", "10000", "9999.9999"],
                       ["2", "-10000.0001000000", "-10000.01", "-0.00010", "-100000000", "-10000.0001"], ["3", "0.0000000001", "0.01", "0.00001", "10000", "0.0001"],
                       ["4", "9999999999999999999999999999.9999999999", "99999999.99", "0.99999", "99999999999999999999", "99999.9999"]]
        var records: [String] = []
        for index in 0..<300 {
            var members = ["\"n\": \(index)"]
            for (column, (precision, scale)) in shapes.enumerated() {
                var text = index < fixed.count ? fixed[index][column] : ""
                if text.isEmpty {
                    let integer = String((0..<Int(random.next() % UInt64(precision - scale + 1))).map { _ in Character(String(random.next() % 10)) })
                    let fraction = String((0..<Int(random.next() % UInt64(scale + 1))).map { _ in Character(String(random.next() % 10)) })
                    text = (random.next() % 2 == 0 ? "-" : "") + (integer.isEmpty ? "0" : integer) + (fraction.isEmpty ? "" : "." + fraction)
                }
                members.append("\"d\(column)\": \(text)")
            }
            records.append("{" + members.joined(separator: ", ") + "}")
        }
        let mapping = "fields:\n  - {name: n, type: int64}\n" + shapes.enumerated().map { column, shape in
            "  - {name: d\(column), type: decimal, precision: \(shape.0), scale: \(shape.1), optional: true}\n"
        }.joined()
        let workspace = try ImportTests.Workspace(records: records, mapping: mapping)
        let summary = Importer(workspace.job(.postgres(url: database.url))).run()
        #expect(summary.recordsWritten + summary.recordsRejected == 300 && summary.recordsWritten > 0, "\(summary.line)")
        let types = try database.query("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 't'::regclass AND attnum > 1 ORDER BY attnum")
        #expect(types.map { $0[0] ?? "" } == shapes.map { "numeric(\($0.0),\($0.1))" })
        // What Sluice's own reader mapped, in the canonical text that PostgreSQL prints numeric(p,s) in.
        let schema = try MappingSchema(mappingText: mapping)
        var expected: [[String?]] = []
        let reader = try ColumnarReader(input: .bytes(Array(records.map { $0 + "\n" }.joined().utf8)), schema: schema, options: ReaderOptions(rejectionPolicy: .collect))
        while let batch = try reader.next() {
            for row in 0..<batch.count { expected.append([String(batch.column(0).int64(row) ?? -1)] + (1..<schema.fields.count).map { batch.column($0).string(row) }) }
        }
        #expect(expected.count == summary.recordsWritten)
        let rows = try database.query("SELECT n::text, d0::text, d1::text, d2::text, d3::text, d4::text FROM t ORDER BY t.n")
        #expect(rows == expected)
        #expect(Array(rows.prefix(5)) == printed.map { $0.map(Optional.some) })
    }

    /// COPY's binary rows carry each type's own form: appending to a table whose column has another type is refused
    /// before anything is written, with the column named.
    @Test func appendingToAColumnOfAnotherTypeIsRefused() throws {
        let database = try TestDatabase()
        _ = try database.query("CREATE TABLE t (id integer, v text)")
        let workspace = try ImportTests.Workspace(records: [#"{"id": 1, "v": "a"}"#], mapping: "fields:\n  - {name: id, type: int64}\n  - {name: v, type: string}\n")
        var job = workspace.job(.postgres(url: database.url))
        job.ifExists = .append
        guard case .failed(let message) = Importer(job).run().outcome else { Issue.record("a column of another type was appended to"); return }
        #expect(message.contains("column id of table t is integer, where this import writes bigint"), "\(message)")
        #expect(try database.query("SELECT count(*) FROM t") == [["0"]])
        _ = try database.query("ALTER TABLE t ALTER COLUMN id TYPE bigint")
        #expect(Importer(job).run().outcome == .complete)
        #expect(try database.query("SELECT id, v FROM t") == [["1", "a"]])
        // A table the import made itself, every type in it (the catalog spells timestamptz and numeric(20) its own
        // way), is appended to and resumed.
        let fresh = try TestDatabase()
        let every = try ImportTests.Workspace()
        var first = every.job(.postgres(url: fresh.url))
        #expect(Importer(first).run().outcome == .complete)
        first.ifExists = .append
        #expect(Importer(first).run().outcome == .complete, "appending")
        first.resumes = true
        #expect(Importer(first).run().outcome == .complete, "resuming")
    }

    /// SIGKILL at random moments, resumed each time: the table and its rejections end equal to one uninterrupted
    /// import's, row for row.
    @Test func killedAtRandomPointsAndResumedEqualsOneRun() throws {
        let reference = try TestDatabase()
        let resumed = try TestDatabase()
        let dump = try ImportCommandTests.Dump(count: 60_000)
        let started = Date()
        #expect(try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", reference.url, "-q"]).status == 2)
        let kills = try ImportCommandTests.killRepeatedly(["import", "-m", dump.mapping, dump.input, "--to", resumed.url, "--resume",
                                                           "--commit-every", "1500", "--workers", "2", "-q"],
                                                          oneRunTook: Date().timeIntervalSince(started)) {
            _ = try resumed.query("DROP TABLE IF EXISTS items, items_rejects, _sluice_checkpoints")
        }
        #expect(kills >= 3, "the import was killed only \(kills) times")
        for query in ["SELECT * FROM items ORDER BY id", "SELECT ordinal, line, byte_offset, failures::text, raw FROM items_rejects ORDER BY ordinal"] {
            let expected = try reference.query(query)
            let got = try resumed.query(query)
            #expect(got.count == expected.count, "\(query)")
            #expect(got == expected, "\(query)")
        }
    }

    /// The server closes the connection in the middle of a COPY: the run fails with a write error that names the
    /// destination, and --resume then completes the import from the last committed checkpoint.
    @Test func aServerThatGoesAwayMidCopyIsAWriteErrorAndResumes() throws {
        let database = try TestDatabase()
        let dump = try ImportCommandTests.Dump(count: 300_000)
        let process = Process()
        process.executableURL = CommandLineTests.executable
        let summary = dump.path("lost.json")
        process.arguments = ["import", "-m", dump.mapping, dump.input, "--to", database.url, "--commit-every", "5000", "-q", "--summary-json", summary]
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        usleep(400_000)
        _ = try database.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1, "\(message)")
        #expect(message.contains("sluice: error: \(database.url): write error: "), "\(message)")
        #expect(message.contains("rolled back to the last commit (--resume continues from there)") && !message.contains("\t"), "\(message)")
        // The summary adds up, and says what the database kept.
        let counts = try AccountingTests.counts(summary)
        #expect(counts.read == counts.written + counts.rejected + counts.rolledBack, "\(counts)")
        #expect(try database.query("SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM items_rejects)") == [["\(counts.written)", "\(counts.rejected)"]], "\(counts)")
        let resumed = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", database.url, "--resume", "-q"])
        #expect(resumed.status == 2, "\(resumed.standardError)")
        try Self.expectEachRecordOnce(in: database, of: 300_000)
    }

    /// The checkpoint keeps what the rows mean: `--resume` through another mapping is refused, as is a checkpoint
    /// table of an earlier version (no mapping column); `--if-exists replace` starts over.
    @Test func resumingWithAnotherMappingIsRefused() throws {
        let database = try TestDatabase()
        let dump = try ImportCommandTests.Dump(count: 3000)
        #expect(try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", database.url, "--limit", "1000", "-q"]).status == 2)
        // (A column of another type is refused before, by the table's own column types.)
        let otherKey = try TableMeaningTests.tweak(dump, as: "other-key") { $0.replacingOccurrences(of: "{name: name, type: string}", with: "{name: name, path: title, type: string}") }
        let refused = try ImportCommandTests.run(["import", "-m", otherKey, dump.input, "--to", database.url, "--resume", "-q"])
        #expect(refused.status == 1 && refused.standardError.contains(#""name" was string from "name" and is now string from "title""#), "\(refused.standardError)")
        _ = try database.query("ALTER TABLE _sluice_checkpoints DROP COLUMN mapping")
        let old = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", database.url, "--resume", "-q"])
        #expect(old.status == 1 && old.standardError.contains("written by an earlier version of Sluice"), "\(old.standardError)")
        #expect(try database.query("SELECT count(*) FROM items") == [["990"]])
        #expect(try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", database.url, "--if-exists", "replace", "--limit", "500", "-q"]).status == 2)
        #expect(try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", database.url, "--resume", "-q"]).status == 2)
        #expect(try database.query("SELECT count(*), count(DISTINCT id) FROM items") == [["2970", "2970"]])
    }

    /// The whole dump of `count` records (every 97th rejected) is in the table or its rejections, each once.
    static func expectEachRecordOnce(in database: TestDatabase, of count: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try database.query("SELECT count(*), count(DISTINCT id) FROM items") == [["\(count - count / 97)", "\(count - count / 97)"]], sourceLocation: sourceLocation)
        #expect(try database.query("SELECT count(*), count(DISTINCT ordinal) FROM items_rejects") == [["\(count / 97)", "\(count / 97)"]], sourceLocation: sourceLocation)
    }

    // MARK: - Commits in flight

    /// Makes every commit that writes a checkpoint into `database` take two seconds, until `slow_commits` is
    /// emptied: a deferred trigger sleeps in the COMMIT, after the client has sent it.
    static func slowDownCommits(_ database: TestDatabase, dump: ImportCommandTests.Dump) throws {
        // A first import creates the checkpoint table as the sink does.
        #expect(try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", database.url, "--table", "warmup", "--limit", "1", "-q"]).status == 0)
        _ = try database.query("""
            CREATE TABLE slow_commits (slow boolean); INSERT INTO slow_commits VALUES (true);
            CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF EXISTS (SELECT 1 FROM slow_commits) THEN PERFORM pg_sleep(2); END IF; RETURN NULL; END $$;
            CREATE CONSTRAINT TRIGGER slow AFTER INSERT OR UPDATE ON _sluice_checkpoints DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW EXECUTE FUNCTION slow_commit()
            """)
    }

    /// Waits until an import's `number`th slow commit (counted from 1) is in flight.
    static func waitForCommit(_ number: Int, in database: TestDatabase, of process: Process) throws {
        var seen: Set<String> = []
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            #expect(process.isRunning, "the import ended before its commit \(number)")
            guard process.isRunning else { return }
            let started = try database.query("""
                SELECT xact_start::text FROM pg_stat_activity WHERE application_name LIKE 'sluice import, pid \(process.processIdentifier) %' \
                AND query = 'COMMIT' AND wait_event = 'PgSleep'
                """)
            seen.formUnion(started.compactMap { $0.first ?? nil })
            if seen.count >= number { return }
            usleep(20_000)
        }
        Issue.record("commit \(number) was not seen within a minute")
    }

    /// `kill -9` while a COMMIT is in flight, then `--resume` at once: the server still commits the killed run's
    /// transaction and its checkpoint, and the resumed run waits for that (its table lock) before it reads the
    /// checkpoint, so no record is written twice. The kill lands in the first commit, and in a later one.
    @Test(arguments: [1, 3])
    func resumingRightAfterAKillDuringCommitWritesNothingTwice(killedInCommit: Int) throws {
        let database = try TestDatabase()
        let dump = try ImportCommandTests.Dump(count: 40_000)
        try Self.slowDownCommits(database, dump: dump)
        let killed = try ImportCommandTests.start(["import", "-m", dump.mapping, dump.input, "--to", database.url, "--commit-every", "2000", "-q"])
        try Self.waitForCommit(killedInCommit, in: database, of: killed)
        kill(killed.processIdentifier, SIGKILL)
        killed.waitUntilExit()
        _ = try database.query("DELETE FROM slow_commits")
        let resumed = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", database.url, "--resume", "-q"])
        #expect(resumed.status == 2, "\(resumed.standardError)")
        try Self.expectEachRecordOnce(in: database, of: 40_000)
    }

    /// A second import into a table another import holds waits `--lock-wait` seconds, then fails naming the
    /// process that holds it; the first goes on undisturbed.
    @Test func aSecondImportIntoTheSameTableWaitsThenNamesTheHolder() throws {
        let database = try TestDatabase()
        let dump = try ImportCommandTests.Dump(count: 20_000)
        try Self.slowDownCommits(database, dump: dump)
        let first = try ImportCommandTests.start(["import", "-m", dump.mapping, dump.input, "--to", database.url, "--commit-every", "5000", "-q"])
        try Self.waitForCommit(1, in: database, of: first)
        let started = Date()
        let second = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", database.url, "--if-exists", "append", "--lock-wait", "1", "-q"])
        #expect(Date().timeIntervalSince(started) >= 1)
        #expect(second.status == 1, "\(second.standardError)")
        #expect(second.standardError.contains("table items is being imported by another run (server process "), "\(second.standardError)")
        #expect(second.standardError.contains("for sluice import, pid \(first.processIdentifier) on "), "\(second.standardError)")
        #expect(second.standardError.contains("waited 1 s for it to end (--lock-wait)"), "\(second.standardError)")
        _ = try database.query("DELETE FROM slow_commits")
        first.waitUntilExit()
        #expect(first.terminationStatus == 2)
        #expect(try database.query("SELECT count(*), count(DISTINCT id) FROM items") == [["\(20_000 - 20_000 / 97)", "\(20_000 - 20_000 / 97)"]])
    }
}
