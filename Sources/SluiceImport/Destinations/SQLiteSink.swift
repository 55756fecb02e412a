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
    /// Per table: one statement inserting ``groupRows`` rows at once (nil where rows are too wide to group): a
    /// statement per row costs more than most rows. A keyed table without child tables upserts each row of a group
    /// in turn; one with child tables inserts a group as new rows (see ``prepare(_:ifExists:)``).
    private var groupInserts: [(statement: SQLiteConnection.Statement, rows: Int)?] = []
    /// Per table: whether it is a child table kept in the order of its links, which are its primary key.
    private var clustered: [Bool] = []
    /// Per keyed table with child tables: its rows inserted without the upsert, so that a row new to the table (most
    /// rows) needs no delete in the child tables; a row whose key is there already is upserted after the deletes.
    private var newRowInserts: [SQLiteConnection.Statement?] = []
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
        for index in tables.indices {
            // Resuming appends after the last checkpoint; a table an interrupted run never committed is created.
            try prepare(index, ifExists: resuming ? .append : ifExists)
        }
        for index in tables.indices {
            try prepareChildDeletes(of: index)
            newRowInserts.append(childDeletes[index].isEmpty ? nil : try connection.prepare(insertSQL(tables[index], groupOf: 1),
                                                                                            doing: "cannot prepare the insert into \(tables[index].name)"))
        }
        // The tables exist from here on, even if the run is stopped before its first rows are committed.
        try commit([])
        try begin()
    }

    private func prepare(_ index: Int, ifExists: FileOutput.ExistingFile) throws(SluiceError) {
        let table = tables[index]
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
        // SQLite checks it only with foreign_keys on.
        if let foreignKey = tables.foreignKey(of: index, quoted: SQLiteConnection.quoted) { columns.append(foreignKey) }
        let links = table.fields.prefix(table.links).map { SQLiteConnection.quoted($0.name) }
        // Beneath a keyed table a row's links are unique (the key, then positions), so the table is kept in their
        // order, one B-tree instead of a table and an index on them (7 % off the child-table import of
        // docs/benchmarks.md). Linked by source and ordinal, an input imported twice under one name repeats them.
        let clustered = tables.isKeyedChild(index)
        if clustered { columns.append("PRIMARY KEY (" + links.joined(separator: ", ") + ")") }
        self.clustered.append(clustered)
        try connection.execute("CREATE TABLE IF NOT EXISTS \(name) (" + columns.joined(separator: ", ") + ")" + (clustered ? " WITHOUT ROWID" : ""),
                               doing: "cannot create table \(table.name)")
        if table.parent != nil && !clustered {
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
        var upsert = ""
        if !keyNames.isEmpty {
            let others = table.fields.indices.filter { !table.keyColumns.contains($0) }.map { names[$0] }
            upsert = " ON CONFLICT (" + keyNames.joined(separator: ", ") + ") DO "
            upsert += others.isEmpty ? "NOTHING" : "UPDATE SET " + others.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        }
        inserts.append(try connection.prepare(insertSQL(table, groupOf: 1) + upsert, doing: "cannot prepare the insert into \(table.name)"))
        let variables = Int(sqlite3_limit(connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        let group = min(Self.groupRows, variables / max(table.fields.count, 1))
        // A row replacing one of its key must take the old row's child rows out first, which a statement of many rows
        // cannot: a keyed table with child tables inserts its rows in groups as new, and a group that meets a key
        // already present goes again row by row. Without child tables, the upsert applies to each row of a group in
        // turn, as it would one row at a time.
        let hasChildTables = tables.contains { $0.parent == index }
        groupInserts.append(group > 1 ? (try connection.prepare(insertSQL(table, groupOf: group) + (hasChildTables ? "" : upsert),
                                                                doing: "cannot prepare the insert into \(table.name)"), group) : nil)
        rejectInserts.append(table.parent != nil ? nil
                             : try connection.prepare("INSERT INTO \(rejectsName) VALUES (?, ?, ?, ?, ?, ?, ?)", doing: "cannot prepare the insert into \(table.name)_rejects"))
        bindings.append(table.fields.map(binding))
    }

    /// The most rows one insert statement takes: a statement per row cost more than a narrow row's insert (measured in
    /// docs/benchmarks.md, "Child tables": the JSON-column import 2.12 s → 1.72 s, the child-table one far more).
    static let groupRows = 32

    /// The extended codes of a key already in the table: SQLITE_CONSTRAINT_PRIMARYKEY, and SQLITE_CONSTRAINT_UNIQUE
    /// for an existing table's key index (macros C does not bring into Swift).
    private static let keyConflicts: Set<Int32> = [SQLITE_CONSTRAINT | (6 << 8), SQLITE_CONSTRAINT | (8 << 8)]

    /// `INSERT INTO table (columns) VALUES (?, …), …` for `rows` rows.
    private func insertSQL(_ table: TableLayout, groupOf rows: Int) -> String {
        let names = table.fields.map { SQLiteConnection.quoted($0.name) }
        let row = "(" + names.map { _ in "?" }.joined(separator: ", ") + ")"
        return "INSERT INTO \(SQLiteConnection.quoted(table.name)) (" + names.joined(separator: ", ") + ") VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
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
        let binds = bindings[table]
        let columns = batch.columns
        let count = binds.count
        var row = rows.lowerBound
        if let group = groupInserts[table] {
            while rows.upperBound - row >= group.rows {
                for offset in 0..<group.rows {
                    for index in 0..<count {
                        bind(columns + index, binds[index], batch, row: row + offset, at: Int32(offset * count + index + 1), in: group.statement.pointer)
                    }
                }
                let status = sqlite3_step(group.statement.pointer)
                sqlite3_reset(group.statement.pointer)
                if status != SQLITE_DONE {
                    // A constraint failed, and the statement took none of its rows: they go again one by one, so that a
                    // failure names its record and a replaced key's child rows are taken out. Any other failure (a full
                    // disk, an I/O error) may have rolled the transaction back: nothing more is written.
                    guard sqlite3_extended_errcode(connection.handle) & 0xFF == SQLITE_CONSTRAINT else {
                        throw connection.error("cannot insert records \(batch.location(ofRow: row).ordinal) to \(batch.location(ofRow: row + group.rows - 1).ordinal) into \(tables[table].name)")
                    }
                    for offset in 0..<group.rows { try writeRow(row + offset, batch, binds, table: table) }
                }
                row += group.rows
            }
        }
        for row in row..<rows.upperBound { try writeRow(row, batch, binds, table: table) }
    }

    private func writeRow(_ row: Int, _ batch: ColumnarBatch, _ binds: [Binding], table: Int) throws(SluiceError) {
        if let insert = newRowInserts[table]?.pointer {
            bindRow(row, batch, binds, in: insert)
            // Reset at once: text is bound in place (not copied), and the batch it points into is recycled.
            let status = sqlite3_step(insert)
            sqlite3_reset(insert)
            if status == SQLITE_DONE { return }
            guard Self.keyConflicts.contains(sqlite3_extended_errcode(connection.handle)) else {
                throw connection.error("cannot insert record \(batch.location(ofRow: row).ordinal) into \(tables[table].name)")
            }
            try deleteChildRows(ofRow: row, batch, binds, table: table, ordinal: batch.location(ofRow: row).ordinal)
        }
        bindRow(row, batch, binds, in: inserts[table].pointer)
        try step(inserts[table].pointer, insertFailure(batch.location(ofRow: row).ordinal, table: table))
    }

    /// What a failed insert of record `ordinal`'s row into `table` says. A child table beneath a keyed table holds
    /// a key's rows only while its record is in the table (an upsert replaces them), unless rows were deleted by hand
    /// or an import through another mapping left them.
    private func insertFailure(_ ordinal: Int, table: Int) -> String {
        var what = "cannot insert record \(ordinal) into \(tables[table].name)"
        if clustered[table] && sqlite3_extended_errcode(connection.handle) == SQLITE_CONSTRAINT | (6 << 8) {
            what += " (the table holds child rows of its key already, whose record is not in \(tables[tables.recordsTable(of: table)].name): "
                + "delete them, or import with --if-exists replace)"
        }
        return what
    }

    private func bindRow(_ row: Int, _ batch: ColumnarBatch, _ binds: [Binding], in statement: OpaquePointer) {
        let columns = batch.columns
        for index in binds.indices { bind(columns + index, binds[index], batch, row: row, at: Int32(index + 1), in: statement) }
    }

    /// Steps a statement and resets it at once: text is bound in place (not copied), and the batch it points into is
    /// recycled.
    private func step(_ statement: OpaquePointer, _ what: @autoclosure () -> String) throws(SluiceError) {
        let status = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard status == SQLITE_DONE else { throw connection.error(what()) }
    }

    /// Takes the rows of the record whose key is in `row` out of every child table beneath `table`.
    private func deleteChildRows(ofRow row: Int, _ batch: ColumnarBatch, _ binds: [Binding], table: Int, ordinal: Int) throws(SluiceError) {
        for delete in childDeletes[table] {
            for (position, key) in tables[table].keyColumns.enumerated() {
                bind(batch.columns + key, binds[key], batch, row: row, at: Int32(position + 1), in: delete.pointer)
            }
            try step(delete.pointer, "cannot delete the child rows of record \(ordinal)'s key")
        }
    }

    /// Binds the value in `row` of `column` (a column of `batch`), read from its storage: a `ColumnarBatch.Column`
    /// per value would cost reference counting and checks for every value bound.
    private func bind(_ column: UnsafeMutablePointer<ColumnStorage>, _ binding: Binding, _ batch: ColumnarBatch, row: Int, at position: Int32,
                      in statement: OpaquePointer) {
        guard column.pointee.isValid(row) else {
            sqlite3_bind_null(statement, position)
            return
        }
        let values = column.pointee.values
        switch binding {
        case .integer:
            sqlite3_bind_int64(statement, position, values.load(fromByteOffset: row * 8, as: Int64.self))
        case .unsignedInteger:
            // The mapping rejects values above Int64.max for this destination.
            sqlite3_bind_int64(statement, position, Int64(clamping: values.load(fromByteOffset: row * 8, as: UInt64.self)))
        case .real:
            sqlite3_bind_double(statement, position, values.load(fromByteOffset: row * 8, as: Double.self))
        case .boolean:
            sqlite3_bind_int(statement, position, values.load(fromByteOffset: row, as: UInt8.self) != 0 ? 1 : 0)
        case .dateEpoch(let unit):
            let nanoseconds = values.load(fromByteOffset: row * 8, as: Int64.self)
            sqlite3_bind_int64(statement, position, unit == 1 ? nanoseconds : DateStorage.floored(nanoseconds, to: unit))
        case .dateText:
            scratch.removeAll(keepingCapacity: true)
            batch.column(column - batch.columns).appendText(row, to: &scratch)
            scratch.withUnsafeBufferPointer { Self.bindText($0, at: position, in: statement) }
        case .text:
            Self.bindText(column.pointee.textBytes(row), at: position, in: statement, copied: false)
        case .blob:
            let bytes = column.pointee.textBytes(row)
            if bytes.isEmpty {
                sqlite3_bind_zeroblob(statement, position, 0)
            } else {
                // In place (SQLITE_STATIC, a null destructor): the row is stepped before the batch changes.
                _ = sqlite3_bind_blob(statement, position, bytes.baseAddress, Int32(bytes.count), nil)
            }
        case .enumInteger, .enumNumber:
            let text = column.pointee.textBytes(row)
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
        releaseStatements()
        connection.close()
    }

    /// Statements are finalised before their connection closes.
    private func releaseStatements() {
        inserts.removeAll()
        groupInserts.removeAll()
        newRowInserts.removeAll()
        rejectInserts.removeAll()
        childDeletes.removeAll()
    }

    func abandon() {
        if inTransaction { try? connection.execute("ROLLBACK", doing: "cannot roll back") }
        inTransaction = false
        releaseStatements()
        connection.close()
    }
}
