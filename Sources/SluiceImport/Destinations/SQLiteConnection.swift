import CSQLite
import Sluice

/// One connection to a SQLite database through the C library, with errors that name the database and what was
/// being done.
final class SQLiteConnection {
    let path: String
    private(set) var handle: OpaquePointer?

    init(path: String) throws(SluiceError) {
        self.path = path
        var handle: OpaquePointer?
        // One thread uses the connection: no mutex inside SQLite.
        let status = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        self.handle = handle
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "status \(status)"
            sqlite3_close(handle)
            self.handle = nil
            throw .write(destination: path, message: "cannot open the database: \(message)")
        }
        // Another writer holding the database makes us wait this long before "database is locked".
        sqlite3_busy_timeout(handle, 5000)
    }

    deinit { close() }

    func close() {
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    func execute(_ sql: String, doing what: String) throws(SluiceError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_free(message)
            throw .write(destination: path, message: "\(what): \(text)")
        }
    }

    func prepare(_ sql: String, doing what: String) throws(SluiceError) -> Statement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw error(what)
        }
        return Statement(statement)
    }

    /// The connection's last error, as a write error.
    func error(_ what: String) -> SluiceError {
        .write(destination: path, message: "\(what): " + String(cString: sqlite3_errmsg(handle)))
    }

    /// The rows of a query whose columns are read as text (NULL as nil): for the small lookups an import makes.
    func rows(_ sql: String, doing what: String) throws(SluiceError) -> [[String?]] {
        let statement = try prepare(sql, doing: what)
        var rows: [[String?]] = []
        while true {
            let status = sqlite3_step(statement.pointer)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw error(what) }
            rows.append((0..<sqlite3_column_count(statement.pointer)).map { column in
                sqlite3_column_text(statement.pointer, column).map { String(cString: $0) }
            })
        }
        return rows
    }

    /// A prepared statement, finalized with its owner.
    final class Statement {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { sqlite3_finalize(pointer) }
    }

    /// `name` as an SQL identifier: double-quoted, inner quotes doubled.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` as an SQL string literal.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
