import CPostgres
import Sluice
import SluiceWriters

/// Writes tables into PostgreSQL through libpq with `COPY … FROM STDIN` in binary format, in transactions that
/// also write the import's checkpoints (`_sluice_checkpoints`) and the rejected records (`<table>_rejects`).
///
/// Column types: int64 `bigint`, uint64 `numeric(20)`, double `double precision`, bool `boolean`, dates
/// `timestamptz` (PostgreSQL keeps microseconds: finer instants are rounded), string and url `text`, bytes `bytea`,
/// json and lists `jsonb`, enums `bigint`, `double precision` or `text` after their stored values. With a key, rows
/// (and their child tables' rows) are copied into temporary staging tables and merged at each commit
/// (``PostgresStaging``).
final class PostgresSink: TableSink {
    let destinationName: String
    var keepsCheckpoints: Bool { true }
    private var connection: OpaquePointer?
    private let tables: [TableLayout]
    /// The table whose COPY is open, if one is.
    private var copying: Int?
    private var buffer: [UInt8] = []
    private var pendingRejections: [(rejection: Rejection, source: String, table: Int)] = []
    /// Which tables are staged, and how they are merged.
    private let staging: PostgresStaging
    /// Counts rows copied into keyed records' staging tables, so that the last of several rows with one key wins,
    /// and their writes, which tell a record's child rows (see ``PostgresStaging``).
    private var stagedRows: Int64 = 0
    private var runs: Int64 = 0
    /// Per table and column, how values are written into COPY's binary rows.
    private var encodings: [[PostgresBinaryCopy.Encoding]] = []

    static let checkpointTable = "_sluice_checkpoints"

    /// `lockWaitSeconds`: how long to wait for another import into one of `tables` to end (``lockTables(waiting:)``).
    init(url: String, tables: [TableLayout], ifExists: FileOutput.ExistingFile, resuming: Bool, lockWaitSeconds: Int) throws(SluiceError) {
        destinationName = Destination.withoutPassword(url)
        self.tables = tables
        staging = PostgresStaging(tables: tables)
        connection = PQconnectdb(url)
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.trimmed(String(cString: PQerrorMessage(connection)))
            PQfinish(connection)
            connection = nil
            throw .write(destination: destinationName, message: "cannot connect: \(message)")
        }
        try execute("SET client_min_messages = warning", doing: "cannot set up the session")
        try execute("SET application_name = \(Self.literal(ImportLock.applicationName))", doing: "cannot set up the session")
        try lockTables(waiting: lockWaitSeconds)
        try execute("BEGIN", doing: "cannot start a transaction")
        try execute("""
            CREATE TABLE IF NOT EXISTS \(Self.checkpointTable) (input text NOT NULL, table_name text NOT NULL, size bigint, \
            modified_ns bigint, head_hash text, ordinal bigint, line bigint, byte_offset bigint, complete boolean, mapping text, rejected bigint, \
            PRIMARY KEY (input, table_name))
            """, doing: "cannot create the checkpoint table")
        // Looked up first, as ALTER TABLE would wait for every import's transaction.
        let present = try rows("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '\(Self.checkpointTable)'")
        for (column, type) in Checkpoint.laterColumns where !present.contains([column]) {
            try execute("ALTER TABLE \(Self.checkpointTable) ADD COLUMN IF NOT EXISTS \(column) \(type)", doing: "cannot add \(column) to the checkpoint table")
        }
        let ifExists = resuming ? .append : ifExists
        if ifExists == .replace {
            // Child tables first: their foreign keys name their parents.
            for table in tables.reversed() { try drop(table) }
        }
        for index in tables.indices {
            try prepare(index, ifExists: ifExists)
        }
        try execute("COMMIT", doing: "cannot commit")
        try execute("BEGIN", doing: "cannot start a transaction")
    }

    deinit { if let connection { PQfinish(connection) } }

    /// Takes a session-level advisory lock per table, held until the connection closes, before anything reads a
    /// checkpoint or changes a table. A run killed while its COMMIT was in flight leaves a server process that
    /// commits that transaction (and its checkpoint) afterwards: read earlier, the checkpoint would be the one
    /// before, and a resumed run would write that transaction's records again. That process holds the lock until
    /// its transaction has ended, so the resumed run waits for it; so does a second import into the same table,
    /// for at most `seconds`, and then fails naming the process that holds it.
    private func lockTables(waiting seconds: Int) throws(SluiceError) {
        guard let schema = try rows("SELECT current_schema()").first?.first ?? nil else {
            throw .write(destination: destinationName, message: "cannot lock the tables: the session has no schema (check search_path)")
        }
        let locks = Set(tables.map { ImportLock(schema: schema, table: $0.name) }).sorted { $0.key < $1.key }
        // In one order, so that two imports of overlapping tables cannot each hold a lock the other waits for.
        for lock in locks {
            try execute("SET lock_timeout = \(max(1, seconds * 1000))", doing: "cannot set up the session")
            let result = PQexec(connection, "SELECT pg_advisory_lock(\(ImportLock.namespace), \(lock.key))")
            let status = PQresultStatus(result)
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let message = Self.trimmed(String(cString: PQresultErrorMessage(result)))
            PQclear(result)
            if status == PGRES_TUPLES_OK { continue }
            // 55P03: lock_timeout passed.
            guard state == "55P03" else {
                throw .write(destination: destinationName, message: "cannot lock table \(lock.table): \(message)\(connectionNote)")
            }
            throw .write(destination: destinationName, message: "table \(lock.table) is being imported by another run (\(try holder(of: lock))); "
                         + "waited \(seconds) s for it to end (--lock-wait)")
        }
        try execute("RESET lock_timeout", doing: "cannot set up the session")
    }

    /// Who holds `lock`, as the server knows it.
    private func holder(of lock: ImportLock) throws(SluiceError) -> String {
        let found = try rows("""
            SELECT a.pid, a.application_name, CASE WHEN a.client_port = -1 THEN 'a local socket' ELSE coalesce(host(a.client_addr), '?') END, \
            coalesce(to_char(a.backend_start, 'YYYY-MM-DD HH24:MI:SS TZ'), '?'), coalesce(a.state, 'state not shown to this role') \
            FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted \
            AND l.classid = \(UInt32(bitPattern: ImportLock.namespace)) AND l.objid = \(UInt32(bitPattern: lock.key)) AND l.objsubid = 2 \
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """)
        guard let row = found.first else { return "it has just ended: run the import again" }
        let name = (row[1] ?? "").isEmpty ? "a client" : row[1] ?? ""
        return "server process \(row[0] ?? "?") for \(name) from \(row[2] ?? "?"), connected since \(row[3] ?? "?"), \(row[4] ?? "?")"
    }

    /// libpq's message on one line: its line breaks and tabs (it indents its continuation lines) as single spaces.
    private static func trimmed(_ message: String) -> String {
        message.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }

    private func exists(_ table: TableLayout) throws(SluiceError) -> Bool {
        try !rows("SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = \(Self.literal(table.name))").isEmpty
    }

    /// `--if-exists replace`: drops the table, its rejections and its checkpoints. A child table of an earlier
    /// mapping that this import does not write may name the table in its foreign key: the key goes, the table stays.
    private func drop(_ table: TableLayout) throws(SluiceError) {
        guard try exists(table) else { return }
        let name = Self.quoted(table.name)
        let naming = try rows("SELECT conrelid::regclass::text, conname FROM pg_constraint WHERE contype = 'f' AND confrelid = \(Self.literal(name))::regclass")
        for row in naming {
            guard row.count == 2, let child = row[0], let constraint = row[1] else { continue }
            try execute("ALTER TABLE \(child) DROP CONSTRAINT \(Self.quoted(constraint))", doing: "cannot drop the foreign key \(constraint) of \(child)")
        }
        try execute("DROP TABLE \(name)", doing: "cannot drop table \(table.name)")
        try execute("DROP TABLE IF EXISTS \(Self.quoted(table.name + "_rejects"))", doing: "cannot drop table \(table.name)_rejects")
        try execute("DELETE FROM \(Self.checkpointTable) WHERE table_name = \(Self.literal(table.name))", doing: "cannot clear the checkpoints of \(table.name)")
    }

    private func prepare(_ index: Int, ifExists: FileOutput.ExistingFile) throws(SluiceError) {
        let table = tables[index]
        let name = Self.quoted(table.name)
        let rejects = Self.quoted(table.name + "_rejects")
        let exists = try exists(table)
        if exists && ifExists == .fail {
            throw .write(destination: destinationName, message: "table \(table.name) already exists (choose --if-exists append or replace, or --resume)")
        }
        var columns = table.fields.map { Self.quoted($0.name) + " " + Self.declaredType($0) }
        let keyNames = table.keyColumns.map { Self.quoted(table.fields[$0].name) }
        if !keyNames.isEmpty { columns.append("PRIMARY KEY (" + keyNames.joined(separator: ", ") + ")") }
        if let foreignKey = tables.foreignKey(of: index, quoted: Self.quoted) { columns.append(foreignKey) }
        try execute("CREATE TABLE IF NOT EXISTS \(name) (" + columns.joined(separator: ", ") + ")", doing: "cannot create table \(table.name)")
        if !keyNames.isEmpty && exists {
            try execute("CREATE UNIQUE INDEX IF NOT EXISTS " + Self.derivedName(table.name, "_sluice_key") + " ON \(name) (" + keyNames.joined(separator: ", ") + ")",
                        doing: "cannot index table \(table.name) on its key")
        }
        if let creation = staging.creation(index) {
            try execute(creation, doing: "cannot create the staging table of \(table.name)")
        }
        if table.parent == nil {
            try execute("""
                CREATE TABLE IF NOT EXISTS \(rejects) (source text, ordinal bigint, line bigint, byte_offset bigint, failures jsonb, \
                raw text, raw_bytes bytea, raw_truncated boolean)
                """, doing: "cannot create table \(table.name)_rejects")
        } else {
            // A child table's records are rejected into its records' table's rejections.
            let links = table.fields.prefix(table.links).map { Self.quoted($0.name) }
            try execute("CREATE INDEX IF NOT EXISTS " + Self.derivedName(table.name, "_sluice_links") + " ON \(name) (" + links.joined(separator: ", ") + ")",
                        doing: "cannot index table \(table.name) on its links")
        }
        if exists && ifExists == .append {
            try checkColumnTypes(of: table)
        }
        encodings.append(table.fields.map(Self.encoding))
    }

    /// Refuses to append to a table whose columns have other types than this import writes: binary COPY sends
    /// each type's own form, which the server does not convert.
    private func checkColumnTypes(of table: TableLayout) throws(SluiceError) {
        let present = try rows("""
            SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute             WHERE attrelid = \(Self.literal(Self.quoted(table.name)))::regclass AND attnum > 0 AND NOT attisdropped
            """)
        for field in table.fields {
            guard let row = present.first(where: { $0[0] == field.name }), let type = row[1] else {
                throw .write(destination: destinationName, message: "table \(table.name) has no column \(field.name) (use --if-exists replace, or add the column)")
            }
            let expected = Self.declaredType(field)
            // The catalog spells two of the declared types its own way.
            let spelled = ["timestamptz": "timestamp with time zone", "numeric(20)": "numeric(20,0)"][expected] ?? expected
            if type != spelled {
                throw .write(destination: destinationName, message: "column \(field.name) of table \(table.name) is \(type), where this import writes \(expected) "
                             + "(use --if-exists replace, or give the column that type)")
            }
        }
    }

    private static func encoding(_ field: FieldSpec) -> PostgresBinaryCopy.Encoding {
        if field.isList { return .jsonb }
        switch field.type {
        case .int64: return .bigint
        case .uint64: return .numeric
        case .double: return .double
        case .bool: return .boolean
        case .date: return .timestamptz
        case .string, .url: return .text
        case .bytes: return .bytea
        case .json: return .jsonb
        case .decimal: return .decimal
        case .enumeration:
            switch field.enumStoredKind {
            case .integer: return .enumBigint
            case .number: return .enumDouble
            case .text: return .text
            }
        }
    }

    static func declaredType(_ field: FieldSpec) -> String {
        if field.isList { return "jsonb" }
        switch field.type {
        case .int64: return "bigint"
        case .uint64: return "numeric(20)"
        case .double: return "double precision"
        case .bool: return "boolean"
        case .date: return "timestamptz"
        case .string, .url: return "text"
        case .bytes: return "bytea"
        case .json: return "jsonb"
        case .decimal:
            let format = field.decimalFormat ?? DecimalFormat(precision: DecimalFormat.maximumPrecision)
            return "numeric(\(format.precision),\(format.scale))"
        case .enumeration:
            switch field.enumStoredKind {
            case .integer: return "bigint"
            case .number: return "double precision"
            case .text: return "text"
            }
        }
    }

    // MARK: - Writing

    func write(_ batch: ColumnarBatch, rows: Range<Int>, table: Int) throws(SluiceError) {
        if copying != table {
            try endCopy()
            try beginCopy(table)
        }
        let columns = tables[table].fields.indices.map { batch.column($0) }
        let encoding = encodings[table]
        let numbersRows = staging.numbersRows(table)
        let staged = staging.isStaged(table)
        if numbersRows { runs += 1 }
        let fieldCount = Int16(columns.count + staging.extraColumns(table).count)
        // A local buffer: appending to a property would check exclusive access on every byte.
        var buffer = self.buffer
        self.buffer = []
        defer { self.buffer = buffer }
        for row in rows {
            PostgresBinaryCopy.appendInt16(fieldCount, to: &buffer)
            for index in columns.indices {
                if columns[index].isNull(row) {
                    PostgresBinaryCopy.appendNull(to: &buffer)
                } else {
                    PostgresBinaryCopy.appendField(columns[index], row: row, as: encoding[index], to: &buffer)
                }
            }
            if numbersRows {
                stagedRows += 1
                PostgresBinaryCopy.appendWord(stagedRows, to: &buffer)
            }
            if staged { PostgresBinaryCopy.appendWord(runs, to: &buffer) }
            if buffer.count >= 1 << 20 { try send(&buffer) }
        }
    }

    private func beginCopy(_ table: Int) throws(SluiceError) {
        let layout = tables[table]
        var names = layout.fields.map { Self.quoted($0.name) }
        let target = staging.isStaged(table) ? staging.stagingName(table) : Self.quoted(layout.name)
        names += staging.extraColumns(table)
        let result = PQexec(connection, "COPY \(target) (" + names.joined(separator: ", ") + ") FROM STDIN (FORMAT binary)")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COPY_IN else { throw failure("cannot start copying into \(layout.name)") }
        copying = table
        buffer += PostgresBinaryCopy.signature
    }

    /// Sends what `buffer` holds into the open COPY and empties it.
    private func send(_ buffer: inout [UInt8]) throws(SluiceError) {
        guard !buffer.isEmpty else { return }
        let status = buffer.withUnsafeBufferPointer { bytes in
            bytes.baseAddress.map { $0.withMemoryRebound(to: CChar.self, capacity: bytes.count) { PQputCopyData(connection, $0, Int32(bytes.count)) } } ?? 1
        }
        buffer.removeAll(keepingCapacity: true)
        guard status == 1 else { throw failure("cannot send rows to \(copying.map { tables[$0].name } ?? "the server")") }
    }

    private func endCopy() throws(SluiceError) {
        guard let table = copying else { return }
        buffer += PostgresBinaryCopy.trailer
        try send(&buffer)
        copying = nil
        guard PQputCopyEnd(connection, nil) == 1 else { throw failure("cannot finish copying into \(tables[table].name)") }
        while let result = PQgetResult(connection) {
            defer { PQclear(result) }
            if PQresultStatus(result) != PGRES_COMMAND_OK {
                throw .write(destination: destinationName, message: "copying into \(tables[table].name) failed: " + Self.trimmed(String(cString: PQresultErrorMessage(result))))
            }
        }
    }

    func reject(_ rejection: Rejection, source: String, table: Int) throws(SluiceError) {
        // Written at the next commit: no other statement can run while a COPY is open.
        pendingRejections.append((rejection, source, table))
    }

    private func writeRejections() throws(SluiceError) {
        for (rejection, source, table) in pendingRejections {
            let raw = String(validating: rejection.rawText, as: UTF8.self)
            // NUL cannot be in PostgreSQL text: such raw text goes into raw_bytes.
            let text = raw.flatMap { $0.utf8.contains(0) ? nil : $0 }
            let bytes = text == nil ? "'\\x" + rejection.rawText.map { String(format: "%02x", $0) }.joined() + "'::bytea" : "NULL"
            try execute("""
                INSERT INTO \(Self.quoted(tables[table].name + "_rejects")) VALUES (\(Self.literal(source)), \(rejection.location.ordinal), \
                \(rejection.location.line), \(rejection.location.byteOffset), \(Self.literal(rejection.failuresJSONText))::jsonb, \
                \(text.map(Self.literal) ?? "NULL"), \(bytes), \(rejection.isRawTextTruncated))
                """, doing: "cannot record rejected record \(rejection.location.ordinal) in \(tables[table].name)_rejects")
        }
        pendingRejections.removeAll()
    }

    private func mergeStagedRows() throws(SluiceError) {
        for (sql, doing) in staging.merges() { try execute(sql, doing: doing) }
    }

    // MARK: - Transactions and checkpoints

    func commit(_ checkpoints: [Checkpoint]) throws(SluiceError) {
        try settle(checkpoints)
    }

    func beginTransaction() throws(SluiceError) {
        try execute("BEGIN", doing: "cannot start a transaction")
    }

    /// Ends the open COPY, writes what waits, and commits.
    private func settle(_ checkpoints: [Checkpoint]) throws(SluiceError) {
        try endCopy()
        try mergeStagedRows()
        try writeRejections()
        for checkpoint in checkpoints {
            try execute("""
                INSERT INTO \(Self.checkpointTable) (\(Checkpoint.columns)) VALUES (\(checkpoint.values(literal: Self.literal))) \
                ON CONFLICT (input, table_name) DO UPDATE SET size = EXCLUDED.size, modified_ns = EXCLUDED.modified_ns, \
                head_hash = EXCLUDED.head_hash, ordinal = EXCLUDED.ordinal, line = EXCLUDED.line, byte_offset = EXCLUDED.byte_offset, \
                complete = EXCLUDED.complete, mapping = EXCLUDED.mapping, rejected = EXCLUDED.rejected
                """, doing: "cannot write the checkpoint")
        }
        try execute("COMMIT", doing: "cannot commit")
    }

    func committedCheckpoints() throws(SluiceError) -> [Checkpoint] {
        try rows("SELECT \(Checkpoint.columns) FROM \(Self.checkpointTable)").map(Checkpoint.init(row:))
    }

    func finish(_ checkpoints: [Checkpoint]) throws(SluiceError) {
        try settle(checkpoints)
        PQfinish(connection)
        connection = nil
    }

    func abandon() {
        // Closing the connection rolls back what was not committed, an open COPY included.
        if let connection { PQfinish(connection) }
        connection = nil
    }

    // MARK: - Statements

    private func execute(_ sql: String, doing what: String) throws(SluiceError) {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw .write(destination: destinationName, message: "\(what): " + Self.trimmed(String(cString: PQresultErrorMessage(result))) + connectionNote)
        }
    }

    private func rows(_ sql: String) throws(SluiceError) -> [[String?]] {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK else {
            throw .write(destination: destinationName, message: "query failed: " + Self.trimmed(String(cString: PQresultErrorMessage(result))))
        }
        return (0..<PQntuples(result)).map { row in
            (0..<PQnfields(result)).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            }
        }
    }

    private var connectionNote: String {
        PQstatus(connection) == CONNECTION_OK ? "" : " (the connection to the server was lost)"
    }

    private func failure(_ what: String) -> SluiceError {
        .write(destination: destinationName, message: "\(what): " + Self.trimmed(String(cString: PQerrorMessage(connection))) + connectionNote)
    }

    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// PostgreSQL's longest name, in bytes: it cuts longer ones short without a word.
    static let maximumNameBytes = 63

    /// The quoted name of something Sluice makes for table `table` (an index): `table` and `suffix`, or, where that
    /// would be too long, `table` cut short and a hash of it, so that two long names still make two names.
    static func derivedName(_ table: String, _ suffix: String) -> String {
        let whole = table + suffix
        guard whole.utf8.count > maximumNameBytes else { return quoted(whole) }
        var hasher = FNV1a.Hasher64()
        hasher.add(table.utf8)
        let hash = "_" + String(hasher.value, radix: 16)
        var kept = ""
        for character in table {
            guard kept.utf8.count + character.utf8.count + hash.utf8.count + suffix.utf8.count <= maximumNameBytes else { break }
            kept.append(character)
        }
        return quoted(kept + hash + suffix)
    }

    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
