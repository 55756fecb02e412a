import CSQLite
import Foundation
import Testing
@testable import Sluice
@testable import SluiceImport

/// `Importer` into real SQLite files and real CSV, TSV and NDJSON files, read back and compared value by value.
@Suite struct ImportTests {
    static let mapping = """
        fields:
          - {name: i, type: int64, optional: true}
          - {name: u, type: uint64, optional: true}
          - {name: d, type: double, optional: true}
          - {name: b, type: bool, optional: true}
          - {name: t, type: date, optional: true}
          - {name: url, type: url, optional: true}
          - {name: raw, path: bytes, type: bytes, optional: true}
          - {name: lang, type: enum, values: {en: 1, fr: 2}, default: 0}
          - {name: code, path: lang, type: enum, values: {en: "e", fr: "f"}, default: "?"}
          - {name: j, type: json, optional: true}
          - {name: tags, path: "tags.*", type: string, optional: true}
          - {name: s, type: string, optional: true}
        """

    static let records = [
        #"{"i": -9223372036854775808, "u": 9223372036854775807, "d": -0.0, "b": true, "t": "1969-12-31T23:59:59.5Z", "url": "https://x.org/a?b=c", "bytes": "AAEA/w==", "lang": "fr", "j": {"a": [1, 2]}, "tags": ["x", null, "y"], "s": ""}"#,
        #"{"i": 1, "u": 18446744073709551615}"#,
        #"{"lang": "de"}"#,
        #"{"t": "2040-01-01T00:00:00.123456789Z", "s": "tab\tquote\"comma,newline\n\ud83d\ude00", "d": 1e300, "tags": [], "b": false, "lang": "en"}"#,
    ]

    /// A temporary directory with the mapping and the records, removed afterwards.
    final class Workspace {
        let directory: URL
        let schema: MappingSchema
        let input: String

        init(records: [String] = ImportTests.records, mapping: String = ImportTests.mapping) throws {
            directory = scratchPath("import")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let mappingURL = directory.appendingPathComponent("t.mapping.yaml")
            try mapping.write(to: mappingURL, atomically: false, encoding: .utf8)
            schema = try MappingSchema(contentsOfFile: mappingURL.path)
            input = directory.appendingPathComponent("in.ndjson").path
            try (records.joined(separator: "\n") + "\n").write(toFile: input, atomically: false, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        func job(_ destination: Destination, workers: Int = 2) -> ImportJob {
            var job = ImportJob(inputs: [input], schemas: [schema], tables: [TableLayout(name: "t", fields: schema.fields)], destination: destination)
            job.readerOptions = ReaderOptions(batchCapacity: 2, workers: workers)
            return job
        }
    }

    @Test func everyTypeHasItsSQLiteColumnType() throws {
        let workspace = try Workspace()
        let database = workspace.path("out.db")
        let summary = Importer(workspace.job(.sqlite(path: database))).run()
        #expect(summary.outcome == .someRejected)
        #expect(summary.recordsWritten == 3 && summary.recordsRejected == 1)
        let columns = try SQLiteRows.query(database, "SELECT name || ' ' || type FROM pragma_table_info('t') ORDER BY cid").map { $0[0] }
        #expect(columns == ["i INTEGER", "u INTEGER", "d REAL", "b INTEGER", "t TEXT", "url TEXT", "raw BLOB", "lang INTEGER", "code TEXT", "j TEXT", "tags TEXT", "s TEXT"].map { .text($0) })

        let rows = try SQLiteRows.query(database, "SELECT * FROM t ORDER BY rowid")
        #expect(rows.count == 3)
        // A json field keeps its value's text as it was in the input; a list is built as compact JSON.
        #expect(rows[0] == [.integer(Int64.min), .integer(Int64.max), .real(0), .integer(1), .text("1969-12-31T23:59:59.500Z"),
                            .text("https://x.org/a?b=c"), .blob([0, 1, 0, 255]), .integer(2), .text("f"), .text(#"{"a": [1, 2]}"#), .text(#"["x","y"]"#), .text("")])
        // SQLite writes a REAL with no fraction as an integer on disk, which loses the sign of -0.0 (documented).
        #expect(!rows[0][2].isNegativeZero)
        #expect(rows[1] == [.null, .null, .null, .null, .null, .null, .null, .integer(0), .text("?"), .null, .null, .null])
        #expect(rows[2] == [.null, .null, .real(1e300), .integer(0), .text("2040-01-01T00:00:00.123456789Z"), .null, .null, .integer(1), .text("e"),
                            .null, .text("[]"), .text("tab\tquote\"comma,newline\n😀")])
        #expect(try SQLiteRows.query(database, "SELECT json_valid(j), json_valid(tags) FROM t WHERE rowid = 1") == [[.integer(1), .integer(1)]])
        // The uint64 beyond SQLite's integers is a rejection that says so, with the record's raw text.
        let rejects = try SQLiteRows.query(database, "SELECT ordinal, line, byte_offset, failures, raw, raw_truncated FROM t_rejects")
        #expect(rejects.count == 1)
        #expect(rejects.first?[0] == .integer(2) && rejects.first?[1] == .integer(2))
        #expect(rejects.first?[3] == .text(#"[{"path":"$.u","kind":"validation","expected":"max(9223372036854775807)","found":"18446744073709551615"}]"#))
        #expect(rejects.first?[4] == .text(Self.records[1]))
        let checkpoint = try SQLiteRows.query(database, "SELECT table_name, ordinal, complete FROM _sluice_checkpoints")
        #expect(checkpoint == [[.text("t"), .integer(4), .integer(1)]])
    }

    @Test(arguments: DateStorage.allCases)
    func datesAreStoredAsChosen(_ storage: DateStorage) throws {
        let workspace = try Workspace(records: [#"{"t": "1969-12-31T23:59:59.5Z"}"#, #"{"t": "2040-01-01T00:00:00.123456789Z"}"#],
                                      mapping: "fields:\n  - {name: t, type: date}\n")
        let database = workspace.path("dates.db")
        var job = workspace.job(.sqlite(path: database))
        job.dateStorage = storage
        #expect(Importer(job).run().outcome == .complete)
        let values = try SQLiteRows.query(database, "SELECT t FROM t ORDER BY rowid").map { $0[0] }
        switch storage {
        case .text: #expect(values == [.text("1969-12-31T23:59:59.500Z"), .text("2040-01-01T00:00:00.123456789Z")])
        case .epochNanoseconds: #expect(values == [.integer(-500_000_000), .integer(2_208_988_800_123_456_789)])
        case .epochMilliseconds: #expect(values == [.integer(-500), .integer(2_208_988_800_123)])
        case .epochSeconds: #expect(values == [.integer(-1), .integer(2_208_988_800)])
        }
    }

    @Test func anExistingTableIsRefusedAppendedToOrReplaced() throws {
        let workspace = try Workspace(records: [#"{"id": 1}"#, #"{"id": 2}"#], mapping: "fields:\n  - {name: id, type: int64}\n")
        let database = workspace.path("again.db")
        #expect(Importer(workspace.job(.sqlite(path: database))).run().outcome == .complete)
        let refused = Importer(workspace.job(.sqlite(path: database))).run()
        guard case .failed(let message) = refused.outcome else { Issue.record("\(refused.outcome)"); return }
        #expect(message.contains("table t already exists"))
        var append = workspace.job(.sqlite(path: database))
        append.ifExists = .append
        #expect(Importer(append).run().outcome == .complete)
        #expect(try SQLiteRows.query(database, "SELECT count(*) FROM t") == [[.integer(4)]])
        var replace = workspace.job(.sqlite(path: database))
        replace.ifExists = .replace
        #expect(Importer(replace).run().outcome == .complete)
        #expect(try SQLiteRows.query(database, "SELECT count(*) FROM t") == [[.integer(2)]])
    }

    @Test func aKeyUpsertsRows() throws {
        let workspace = try Workspace(records: [#"{"id": 1, "v": "a"}"#, #"{"id": 2, "v": "b"}"#, #"{"id": 1, "v": "c"}"#],
                                      mapping: "fields:\n  - {name: id, type: int64}\n  - {name: v, type: string}\n")
        let database = workspace.path("upsert.db")
        var job = workspace.job(.sqlite(path: database), workers: 1)
        job.tables[0].keyColumns = [0]
        #expect(Importer(job).run().outcome == .complete)
        #expect(try SQLiteRows.query(database, "SELECT id, v FROM t ORDER BY id") == [[.integer(1), .text("c")], [.integer(2), .text("b")]])
    }

    @Test(arguments: [(",", "out.csv"), ("\t", "out.tsv")])
    func csvAndTSVFollowRFC4180(_ delimiter: String, _ name: String) throws {
        let workspace = try Workspace()
        let path = workspace.path(name)
        #expect(Importer(workspace.job(try Destination(parsing: path))).run().outcome == .complete)
        let rows = try CSVRows.parse(String(contentsOfFile: path, encoding: .utf8), delimiter: Character(delimiter))
        #expect(rows.first == ["i", "u", "d", "b", "t", "url", "raw", "lang", "code", "j", "tags", "s"])
        #expect(rows.count == 5)
        #expect(rows[1] == ["-9223372036854775808", "9223372036854775807", "-0.0", "true", "1969-12-31T23:59:59.500Z", "https://x.org/a?b=c",
                            "AAEA/w==", "2", "f", #"{"a":[1,2]}"#, #"["x","y"]"#, "\"\""])
        // uint64 is exact in text: no cap outside SQLite.
        #expect(rows[2][1] == "18446744073709551615")
        #expect(rows[4][11] == "tab\tquote\"comma,newline\n😀")
        #expect(rows[4][1] == "" && rows[4][4] == "2040-01-01T00:00:00.123456789Z" && rows[4][3] == "false" && rows[4][10] == "[]")
        // Null is an empty field; empty text is quoted (kept as the raw "" marker by this reader).
        #expect(rows[3][0] == "" && rows[1][11] == "\"\"")
        #expect(rows[3][7] == "0" && rows[3][8] == "?")
    }

    @Test func aFailedRunLeavesNoFileUnderItsName() throws {
        let workspace = try Workspace(records: [#"{"id": 1}"#], mapping: "fields:\n  - {name: id, type: int64}\n")
        let path = workspace.path("out.ndjson")
        var job = workspace.job(.ndjson(path: path))
        job.inputs.append(workspace.path("missing.ndjson"))
        guard case .failed(let message) = Importer(job).run().outcome else { Issue.record("the run did not fail"); return }
        #expect(message.contains("missing.ndjson"))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path).allSatisfy { !$0.contains("partial") })
        // A file appended to is cut back to what it held.
        try "kept\n".write(toFile: path, atomically: false, encoding: .utf8)
        job.ifExists = .append
        _ = Importer(job).run()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "kept\n")
    }

    /// A device is written as it is, never replaced by a rename.
    @Test func aDeviceIsWrittenInPlace() throws {
        let workspace = try Workspace(records: [#"{"id": 1}"#], mapping: "fields:\n  - {name: id, type: int64}\n")
        #expect(Importer(workspace.job(.ndjson(path: "/dev/null"))).run().outcome == .complete)
        let attributes = try FileManager.default.attributesOfItem(atPath: "/dev/null")
        #expect(attributes[.type] as? FileAttributeType == .typeCharacterSpecial)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "/dev").allSatisfy { !$0.contains("sluice") })
    }

    @Test func rejectLimitsStopTheRun() throws {
        let records = (1...2000).map { $0 % 10 == 0 ? #"{"id": "x"}"# : #"{"id": \#($0)}"# }
        let workspace = try Workspace(records: records, mapping: "fields:\n  - {name: id, type: int64}\n")
        for (limit, fails) in [(RejectLimit.count(199), true), (.count(200), false), (.percent(9.9), true), (.percent(10), false)] {
            var job = workspace.job(.ndjson(path: workspace.path("limited.ndjson")))
            job.ifExists = .replace
            job.rejectLimit = limit
            let outcome = Importer(job).run().outcome
            if fails {
                guard case .failed(let message) = outcome else { Issue.record("\(limit): \(outcome)"); continue }
                #expect(message.contains("more than --max-rejects \(limit)"))
            } else {
                #expect(outcome == .someRejected, "\(limit)")
            }
        }
    }

    /// A share is judged from the 1,000th record read on, which is usually not a rejection: the run stops there.
    @Test func aShareOfRejectionsStopsTheRunAtTheRecordFromWhichItIsJudged() throws {
        let records = (1...2000).map { $0 <= 150 ? #"{"id": "x"}"# : #"{"id": \#($0)}"# }
        let workspace = try Workspace(records: records, mapping: "fields:\n  - {name: id, type: int64}\n")
        for batchCapacity in [7, 4096] {
            var job = workspace.job(.ndjson(path: workspace.path("share.ndjson")))
            job.ifExists = .replace
            job.rejectLimit = .percent(10)
            job.readerOptions.batchCapacity = batchCapacity
            let outcome = Importer(job).run().outcome
            guard case .failed(let message) = outcome else { Issue.record("\(batchCapacity): \(outcome)"); continue }
            #expect(message.hasPrefix("stopped: 150 of 1,000 records rejected, more than --max-rejects 10.0%; the last: record 150 (line 150, "), "\(message)")
        }
    }

    @Test func aResumedImportSkipsWhatWasCommitted() throws {
        let records = (1...50).map { $0 % 7 == 0 ? #"{"id": "x\#($0)"}"# : #"{"id": \#($0)}"# }
        let workspace = try Workspace(records: records, mapping: "fields:\n  - {name: id, type: int64}\n")
        let database = workspace.path("resume.db")
        // An earlier run that committed up to record 20, then died.
        let layout = TableLayout(name: "t", fields: workspace.schema.fields)
        let sink = try SQLiteSink(path: database, tables: [layout], ifExists: .fail, resuming: false, dateStorage: .text)
        let reader = try ColumnarReader(input: .file(workspace.input), schema: workspace.schema, options: ReaderOptions(batchCapacity: 20, rejectionPolicy: .collect))
        let batch = try #require(try reader.next())
        let firstRows = (0..<batch.count).filter { batch.location(ofRow: $0).ordinal <= 20 }
        try sink.write(batch, rows: 0..<(firstRows.last.map { $0 + 1 } ?? 0), table: 0)
        for rejection in batch.rejections where rejection.location.ordinal <= 20 { try sink.reject(rejection, source: workspace.input, table: 0) }
        let identity = try #require(try InputIdentity.of(path: workspace.input))
        let meaning = TableMeaning(layout: layout, options: workspace.schema.options, dateStorage: .text)
        try sink.commit([Checkpoint(input: identity, table: "t", ordinal: 20, line: 20, byteOffset: 0, meaning: meaning.text)])
        sink.abandon()

        var job = workspace.job(.sqlite(path: database))
        job.resumes = true
        let summary = Importer(job).run()
        #expect(summary.outcome == .someRejected)
        #expect(summary.tables[0].recordsSkipped == 20)
        #expect(try SQLiteRows.query(database, "SELECT id FROM t ORDER BY rowid").map { $0[0] } == records.indices.filter { ($0 + 1) % 7 != 0 }.map { .integer(Int64($0 + 1)) })
        #expect(try SQLiteRows.query(database, "SELECT ordinal FROM t_rejects ORDER BY ordinal").map { $0[0] } == [7, 14, 21, 28, 35, 42, 49].map { .integer($0) })
        // Once complete, resuming again imports nothing.
        #expect(Importer(job).run().recordsWritten == 0)
        // A changed input is not resumed.
        try (records.joined(separator: "\n") + "\n{\"id\": 51}\n").write(toFile: workspace.input, atomically: false, encoding: .utf8)
        guard case .failed(let message) = Importer(job).run().outcome else { Issue.record("a changed input was resumed"); return }
        #expect(message.contains("has changed since it was imported"))
    }
}

/// Values read back from SQLite with their storage class.
enum SQLiteValue: Equatable, CustomStringConvertible {
    case null, integer(Int64), real(Double), text(String), blob([UInt8])

    var isNegativeZero: Bool {
        if case .real(let value) = self { return value == 0 && value.sign == .minus }
        return false
    }

    var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): "\(value)"
        case .real(let value): "\(value)"
        case .text(let value): "'\(value)'"
        case .blob(let value): "x'\(value.map { String($0, radix: 16) }.joined())'"
        }
    }
}

enum SQLiteRows {
    static func query(_ path: String, _ sql: String) throws -> [[SQLiteValue]] {
        var database: OpaquePointer?
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw QueryError(message: "cannot open \(path)") }
        defer { sqlite3_close(database) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else {
            throw QueryError(message: String(cString: sqlite3_errmsg(database)))
        }
        defer { sqlite3_finalize(statement) }
        var rows: [[SQLiteValue]] = []
        var status = sqlite3_step(statement)
        while status == SQLITE_ROW {
            rows.append((0..<sqlite3_column_count(statement)).map { column in
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
                case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
                case SQLITE_TEXT:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    return .text(String(decoding: UnsafeBufferPointer(start: sqlite3_column_text(statement, column), count: count), as: UTF8.self))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    guard let bytes = sqlite3_column_blob(statement, column) else { return .blob([]) }
                    return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
                default: return .null
                }
            })
            status = sqlite3_step(statement)
        }
        guard status == SQLITE_DONE else { throw QueryError(message: String(cString: sqlite3_errmsg(database))) }
        return rows
    }

    /// Runs a statement that changes the database.
    static func execute(_ path: String, _ sql: String) throws {
        var database: OpaquePointer?
        defer { sqlite3_close(database) }
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
              sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK else {
            throw QueryError(message: "\(path): " + String(cString: sqlite3_errmsg(database)))
        }
    }

    struct QueryError: Error { var message: String }
}

/// An RFC 4180 reader for the tests: quoted fields may hold delimiters, quotes (doubled) and line breaks. A field
/// that was quoted and empty comes back as `""`, to tell it from an empty (null) field.
enum CSVRows {
    static func parse(_ text: String, delimiter: Character) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var wasQuoted = false
        var characters = Array(text.unicodeScalars.map(Character.init))[...]
        while let character = characters.popFirst() {
            if quoted {
                if character == "\"" {
                    if characters.first == "\"" { field.append("\""); characters.removeFirst() } else { quoted = false }
                } else {
                    field.append(character)
                }
            } else if character == "\"" {
                quoted = true
                wasQuoted = true
            } else if character == delimiter {
                row.append(wasQuoted && field.isEmpty ? "\"\"" : field)
                field = ""
                wasQuoted = false
            } else if character == "\r" || character == "\n" {
                if character == "\r" && characters.first == "\n" { characters.removeFirst() }
                row.append(wasQuoted && field.isEmpty ? "\"\"" : field)
                rows.append(row)
                row = []
                field = ""
                wasQuoted = false
            } else {
                field.append(character)
            }
        }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        return rows
    }
}
