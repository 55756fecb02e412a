import CSQLite
import Sluice
import SluiceWriters

/// Writes tables into a SQLite database through prepared statements in large transactions (WAL journal,
/// `synchronous=NORMAL` while loading). Each commit also writes the import's checkpoints, in the same
/// transaction, into `_sluice_checkpoints`; rejected records go to `<table>_rejects`.
///
/// Column types: int64, uint64 and bool `INTEGER` (bool 0/1; uint64 values above 2^63−1 are rejected by the
/// mapping, since SQLite integers are signed), double `REAL`, string, url and json `TEXT` (json as the value's
/// JSON text, which `json_valid` accepts), lists `TEXT` (a JSON array), bytes `BLOB`, dates `TEXT` (RFC 3339,
/// UTC) or `INTEGER` epochs by ``DateStorage``, enums `INTEGER`, `REAL` or `TEXT` after their stored values.
final class SQLiteSink: TableSink {
    let destinationName: String
    var keepsCheckpoints: Bool { true }
    private let connection: SQLiteConnection
    private let tables: [TableLayout]
    private let dateStorage: DateStorage
    private var inserts: [SQLiteConnection.Statement] = []
    /// Per table: its rejections' insert; none for a child table, whose records' rejections are its parent's.
    private var rejectInserts: [SQLiteConnection.Statement?] = []
    /// Per table with a key and child tables: the deletes of a replaced row's rows in them, each bound to the key.
    private var childDeletes: [[SQLiteConnection.Statement]] = []
    private var bindings: [[Binding]] = []
    private var inTransaction = false
    private var scratch: [UInt8] = []

    static let checkpointTable = "_sluice_checkpoints"

    /// How one column's values are bound.
    private enum Binding {
        case integer, unsignedInteger, real, boolean, text, blob, dateText, dateEpoch(Int64), enumInteger, enumNumber
    }

    /// Opens (or creates) the database and prepares every table: created when missing, refused, appended to or
    /// replaced when present, by `ifExists`; with `resuming`, appended to.
    init(path: String, tables: [TableLayout], ifExists: FileOutput.ExistingFile, resuming: Bool, dateStorage: DateStorage) throws(SluiceError) {
        destinationName = path
        connection = try SQLiteConnection(path: path)
        self.tables = tables
        self.dateStorage = dateStorage
        try connection.execute("PRAGMA journal_mode=WAL", doing: "cannot use the WAL journal")
        try connection.execute("PRAGMA synchronous=NORMAL", doing: "cannot set synchronous=NORMAL")
        try begin()
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS \(Self.checkpointTable) (input TEXT NOT NULL, table_name TEXT NOT NULL, size INTEGER, \
            modified_ns INTEGER, head_hash TEXT, ordinal INTEGER, line INTEGER, byte_offset INTEGER, complete INTEGER, mapping TEXT, rejected INTEGER, \
            PRIMARY KEY (input, table_name))
            """, doing: "cannot create the checkpoint table")
        let present = try connection.rows("SELECT name FROM pragma_table_info('\(Self.checkpointTable)')", doing: "cannot read the checkpoint table")
        for (column, type) in Checkpoint.laterColumns where !present.contains([column]) {
            try connection.execute("ALTER TABLE \(Self.checkpointTable) ADD COLUMN \(column) \(type)", doing: "cannot add \(column) to the checkpoint table")
        }
        for table in tables {
            // Resuming appends after the last checkpoint; a table an interrupted run never committed is created.
            try prepare(table, ifExists: resuming ? .append : ifExists)
        }
        for index in tables.indices {
            try prepareChildDeletes(of: index)
        }
        // The tables exist from here on, even if the run is stopped before its first rows are committed.
        try commit([])
        try begin()
    }

    private func prepare(_ table: TableLayout, ifExists: FileOutput.ExistingFile) throws(SluiceError) {
        let name = SQLiteConnection.quoted(table.name)
        let rejectsName = SQLiteConnection.quoted(table.name + "_rejects")
        let exists = try !connection.rows("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = \(SQLiteConnection.literal(table.name))",
                                          doing: "cannot look up table \(table.name)").isEmpty
        if exists && ifExists == .fail {
            throw .write(destination: destinationName, message: "table \(table.name) already exists (choose --if-exists append or replace, or --resume)")
        }
        if exists && ifExists == .replace {
            try connection.execute("DROP TABLE \(name)", doing: "cannot drop table \(table.name)")
            try connection.execute("DROP TABLE IF EXISTS \(rejectsName)", doing: "cannot drop table \(table.name)_rejects")
            try connection.execute("DELETE FROM \(Self.checkpointTable) WHERE table_name = \(SQLiteConnection.literal(table.name))",
                                   doing: "cannot clear the checkpoints of \(table.name)")
        }
        var columns = table.fields.map { SQLiteConnection.quoted($0.name) + " " + declaredType($0) }
        let keyNames = table.keyColumns.map { SQLiteConnection.quoted(table.fields[$0].name) }
        if !keyNames.isEmpty { columns.append("PRIMARY KEY (" + keyNames.joined(separator: ", ") + ")") }
        if let parent = table.parent, case let parentKeys = tables[parent].keyColumns, !parentKeys.isEmpty {
            // A child of a keyed table: its first links are that key (SQLite checks it only with foreign_keys on).
            let links = table.fields.prefix(parentKeys.count).map { SQLiteConnection.quoted($0.name) }
            let referenced = parentKeys.map { SQLiteConnection.quoted(tables[parent].fields[$0].name) }
            columns.append("FOREIGN KEY (" + links.joined(separator: ", ") + ") REFERENCES " + SQLiteConnection.quoted(tables[parent].name)
                           + " (" + referenced.joined(separator: ", ") + ")")
        }
        try connection.execute("CREATE TABLE IF NOT EXISTS \(name) (" + columns.joined(separator: ", ") + ")", doing: "cannot create table \(table.name)")
        if table.parent != nil {
            let links = table.fields.prefix(table.links).map { SQLiteConnection.quoted($0.name) }
            try connection.execute("CREATE INDEX IF NOT EXISTS " + SQLiteConnection.quoted(table.name + "_sluice_links") + " ON \(name) ("
                                   + links.joined(separator: ", ") + ")", doing: "cannot index table \(table.name) on its links")
        }
        if !keyNames.isEmpty && exists {
            // An existing table needs a unique index on the key for the upsert to match on.
            try connection.execute("CREATE UNIQUE INDEX IF NOT EXISTS " + SQLiteConnection.quoted(table.name + "_sluice_key") + " ON \(name) ("
                                   + keyNames.joined(separator: ", ") + ")", doing: "cannot index table \(table.name) on its key")
        }
        if table.parent == nil {
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS \(rejectsName) (source TEXT, ordinal INTEGER, line INTEGER, byte_offset INTEGER, \
                failures TEXT, raw BLOB, raw_truncated INTEGER)
                """, doing: "cannot create table \(table.name)_rejects")
        }

        let names = table.fields.map { SQLiteConnection.quoted($0.name) }
        var sql = "INSERT INTO \(name) (" + names.joined(separator: ", ") + ") VALUES (" + names.map { _ in "?" }.joined(separator: ", ") + ")"
        if !keyNames.isEmpty {
            let others = table.fields.indices.filter { !table.keyColumns.contains($0) }.map { names[$0] }
            sql += " ON CONFLICT (" + keyNames.joined(separator: ", ") + ") DO "
            sql += others.isEmpty ? "NOTHING" : "UPDATE SET " + others.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        }
        inserts.append(try connection.prepare(sql, doing: "cannot prepare the insert into \(table.name)"))
        rejectInserts.append(table.parent != nil ? nil
                             : try connection.prepare("INSERT INTO \(rejectsName) VALUES (?, ?, ?, ?, ?, ?, ?)", doing: "cannot prepare the insert into \(table.name)_rejects"))
        bindings.append(table.fields.map(binding))
    }

    /// A row that replaces another of the same key takes the replaced row's rows in the child tables with it: every
    /// table beneath a keyed one links its rows by that key first.
    private func prepareChildDeletes(of index: Int) throws(SluiceError) {
        var deletes: [SQLiteConnection.Statement] = []
        let keys = tables[index].keyColumns
        if !keys.isEmpty {
            for (descendant, table) in tables.enumerated() where isBeneath(descendant, index) {
                let condition = table.fields.prefix(keys.count).enumerated().map { "\(SQLiteConnection.quoted($1.name)) = ?\($0 + 1)" }
                deletes.append(try connection.prepare("DELETE FROM \(SQLiteConnection.quoted(table.name)) WHERE " + condition.joined(separator: " AND "),
                                                      doing: "cannot prepare the delete from \(table.name)"))
            }
        }
        childDeletes.append(deletes)
    }

    /// Whether table `table` lies beneath table `ancestor`.
    private func isBeneath(_ table: Int, _ ancestor: Int) -> Bool {
        var parent = tables[table].parent
        while let current = parent {
            if current == ancestor { return true }
            parent = tables[current].parent
        }
        return false
    }

    /// The column's declared type.
    private func declaredType(_ field: FieldSpec) -> String {
        switch binding(field) {
        case .integer, .unsignedInteger, .boolean, .dateEpoch, .enumInteger: "INTEGER"
        case .real, .enumNumber: "REAL"
        case .text, .dateText: "TEXT"
        case .blob: "BLOB"
        }
    }

    private func binding(_ field: FieldSpec) -> Binding {
        if field.isList { return .text }
        switch field.type {
        case .int64: return .integer
        case .uint64: return .unsignedInteger
        case .double: return .real
        case .bool: return .boolean
        // SQLite has no exact decimal: a NUMERIC column would turn 0.1 into a double. Its canonical text is exact,
        // and sorts and compares right through the decimal extension (decimal_cmp) or a cast where a double will do.
        case .string, .url, .json, .decimal: return .text
        case .bytes: return .blob
        case .date: return dateStorage == .text ? .dateText : .dateEpoch(dateStorage.unit)
        case .enumeration:
            switch field.enumStoredKind {
            case .integer: return .enumInteger
            case .number: return .enumNumber
            case .text: return .text
            }
        }
    }

    // MARK: - Writing

    func write(_ batch: ColumnarBatch, rows: Range<Int>, table: Int) throws(SluiceError) {
        let statement = inserts[table].pointer
        let binds = bindings[table]
        let columns = binds.indices.map { batch.column($0) }
        let keys = tables[table].keyColumns
        for row in rows {
            for delete in childDeletes[table] {
                for (position, key) in keys.enumerated() { bind(columns[key], binds[key], row: row, at: Int32(position + 1), in: delete.pointer) }
                let status = sqlite3_step(delete.pointer)
                sqlite3_reset(delete.pointer)
                guard status == SQLITE_DONE else {
                    throw connection.error("cannot delete the child rows of record \(batch.location(ofRow: row).ordinal)'s key")
                }
            }
            for index in columns.indices {
                bind(columns[index], binds[index], row: row, at: Int32(index + 1), in: statement)
            }
            let status = sqlite3_step(statement)
            // Reset at once: text is bound in place (not copied), and the batch it points into is recycled.
            sqlite3_reset(statement)
            guard status == SQLITE_DONE else {
                throw connection.error("cannot insert record \(batch.location(ofRow: row).ordinal) into \(tables[table].name)")
            }
        }
    }

    private func bind(_ column: ColumnarBatch.Column, _ binding: Binding, row: Int, at position: Int32, in statement: OpaquePointer) {
        if column.isNull(row) {
            sqlite3_bind_null(statement, position)
            return
        }
        switch binding {
        case .integer:
            sqlite3_bind_int64(statement, position, column.int64(row) ?? 0)
        case .unsignedInteger:
            // The mapping rejects values above Int64.max for this destination.
            sqlite3_bind_int64(statement, position, Int64(clamping: column.uint64(row) ?? 0))
        case .real:
            sqlite3_bind_double(statement, position, column.double(row) ?? 0)
        case .boolean:
            sqlite3_bind_int(statement, position, column.bool(row) == true ? 1 : 0)
        case .dateEpoch(let unit):
            let nanoseconds = column.dateNanoseconds(row) ?? 0
            // Floored, so that an instant before 1970 stays before the unit it falls in.
            let value = nanoseconds >= 0 ? nanoseconds / unit : -((-(nanoseconds + 1)) / unit) - 1
            sqlite3_bind_int64(statement, position, unit == 1 ? nanoseconds : value)
        case .dateText:
            scratch.removeAll(keepingCapacity: true)
            column.appendText(row, to: &scratch)
            scratch.withUnsafeBufferPointer { Self.bindText($0, at: position, in: statement) }
        case .text:
            column.withUTF8(row) { text in
                guard let text else { return }
                Self.bindText(text, at: position, in: statement, copied: false)
            }
        case .blob:
            column.withUTF8(row) { bytes in
                guard let bytes else { return }
                if bytes.isEmpty {
                    sqlite3_bind_zeroblob(statement, position, 0)
                } else {
                    // In place (SQLITE_STATIC, a null destructor): the row is stepped before the batch changes.
                    _ = sqlite3_bind_blob(statement, position, bytes.baseAddress, Int32(bytes.count), nil)
                }
            }
        case .enumInteger, .enumNumber:
            column.withUTF8(row) { text in
                guard let text else { return }
                let value = String(decoding: text, as: UTF8.self)
                if case .enumInteger = binding, let integer = Int64(value) {
                    sqlite3_bind_int64(statement, position, integer)
                } else if let number = Double(value) {
                    sqlite3_bind_double(statement, position, number)
                } else {
                    _ = csqlite_bind_text_transient(statement, position, value, Int32(text.count))
                }
            }
        }
    }

    /// Binds UTF-8 text, copied by SQLite or, when it outlives the statement's next step, in place; empty text
    /// binds as '' (a null pointer would bind NULL).
    private static func bindText(_ text: UnsafeBufferPointer<UInt8>, at position: Int32, in statement: OpaquePointer, copied: Bool = true) {
        guard let base = text.baseAddress, !text.isEmpty else {
            _ = csqlite_bind_text_transient(statement, position, "", 0)
            return
        }
        base.withMemoryRebound(to: CChar.self, capacity: text.count) {
            if copied {
                _ = csqlite_bind_text_transient(statement, position, $0, Int32(text.count))
            } else {
                _ = sqlite3_bind_text(statement, position, $0, Int32(text.count), nil)
            }
        }
    }

    func reject(_ rejection: Rejection, source: String, table: Int) throws(SluiceError) {
        guard let statement = rejectInserts[table]?.pointer else { return }
        sqlite3_reset(statement)
        _ = csqlite_bind_text_transient(statement, 1, source, -1)
        sqlite3_bind_int64(statement, 2, Int64(rejection.location.ordinal))
        sqlite3_bind_int64(statement, 3, Int64(rejection.location.line))
        sqlite3_bind_int64(statement, 4, Int64(rejection.location.byteOffset))
        _ = csqlite_bind_text_transient(statement, 5, rejection.failuresJSONText, -1)
        rejection.rawText.withUnsafeBufferPointer { raw in
            // Text when it is UTF-8, as it almost always is; the bytes as they were otherwise.
            if String(validating: raw, as: UTF8.self) != nil {
                Self.bindText(raw, at: 6, in: statement)
            } else {
                _ = csqlite_bind_blob_transient(statement, 6, raw.baseAddress, Int32(raw.count))
            }
        }
        sqlite3_bind_int(statement, 7, rejection.isRawTextTruncated ? 1 : 0)
        guard sqlite3_step(statement) == SQLITE_DONE else {
            throw connection.error("cannot record rejected record \(rejection.location.ordinal) in \(tables[table].name)_rejects")
        }
    }

    // MARK: - Transactions and checkpoints

    private func begin() throws(SluiceError) {
        try connection.execute("BEGIN IMMEDIATE", doing: "cannot start a transaction")
        inTransaction = true
    }

    func commit(_ checkpoints: [Checkpoint]) throws(SluiceError) {
        try writeCheckpoints(checkpoints)
        try connection.execute("COMMIT", doing: "cannot commit")
        inTransaction = false
    }

    func beginTransaction() throws(SluiceError) { try begin() }

    private func writeCheckpoints(_ checkpoints: [Checkpoint]) throws(SluiceError) {
        for checkpoint in checkpoints {
            try connection.execute("INSERT OR REPLACE INTO \(Self.checkpointTable) (\(Checkpoint.columns)) VALUES (\(checkpoint.values(literal: SQLiteConnection.literal)))",
                                   doing: "cannot write the checkpoint")
        }
    }

    func committedCheckpoints() throws(SluiceError) -> [Checkpoint] {
        try connection.rows("SELECT \(Checkpoint.columns) FROM \(Self.checkpointTable)",
                            doing: "cannot read the checkpoints").map(Checkpoint.init(row:))
    }

    func finish(_ checkpoints: [Checkpoint]) throws(SluiceError) {
        try writeCheckpoints(checkpoints)
        try connection.execute("COMMIT", doing: "cannot commit")
        inTransaction = false
        inserts.removeAll()
        rejectInserts.removeAll()
        childDeletes.removeAll()
        connection.close()
    }

    func abandon() {
        if inTransaction { try? connection.execute("ROLLBACK", doing: "cannot roll back") }
        inTransaction = false
        inserts.removeAll()
        rejectInserts.removeAll()
        childDeletes.removeAll()
        connection.close()
    }
}
