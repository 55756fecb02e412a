#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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
            let cause = handle.map { Self.cause(ofSystemError: sqlite3_system_errno($0), path: path) } ?? nil
            sqlite3_close(handle)
            self.handle = nil
            throw .write(destination: path, message: "cannot open the database: " + (cause.map { "\($0) (\(message))" } ?? message))
        }
        // SQLite opens a file it may not write read-only, without a word; the first write would fail less clearly.
        if sqlite3_db_readonly(handle, "main") == 1 {
            sqlite3_close(handle)
            self.handle = nil
            let writable = access(path, W_OK) == 0
            let cause = writable ? Self.cause(ofSystemError: EACCES, path: path) ?? "it is read-only"
                : errno == EROFS ? "\(path) is on a read-only file system" : "permission denied: this user cannot write \(path)"
            throw .write(destination: path, message: "cannot open the database for writing: \(cause)")
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
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(what) }
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
        let message = String(cString: sqlite3_errmsg(handle))
        let primary = sqlite3_errcode(handle) & 0xff
        // A journal or WAL file that cannot be made beside an existing database fails the first write, not the open.
        if primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY || primary == SQLITE_IOERR,
           let cause = Self.cause(ofSystemError: primary == SQLITE_READONLY ? EACCES : sqlite3_system_errno(handle), path: path) {
            return .write(destination: path, message: "\(what): \(cause) (\(message))")
        }
        return .write(destination: path, message: "\(what): " + message)
    }

    /// Why the system refused a file of the database, which SQLite's own message does not say: it is "unable to
    /// open database file" for a missing directory and for one that cannot be written alike.
    private static func cause(ofSystemError code: Int32, path: String) -> String? {
        let directory = path.lastIndex(of: "/").map { path[...$0].count == 1 ? "/" : String(path[..<$0]) } ?? "."
        var code = code
        if code == ENOENT {
            var status = stat()
            guard stat(directory, &status) == 0 else { return "the directory \(directory) does not exist" }
            // SQLite retries a file it could not create read-only, and reports that try's "no such file": creating
            // a file of another name beside it tells why the first try failed, without touching the database's name
            // (which another process may be creating meanwhile).
            let probePath = directory + "/.sluice-probe-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let probe = open(probePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if probe >= 0 {
                closeDescriptor(probe)
                unlink(probePath)
            } else {
                code = errno
            }
        }
        switch code {
        case 0, EEXIST: return nil
        case EACCES, EPERM:
            return access(directory, W_OK) != 0
                ? "permission denied: this user cannot create files in \(directory)"
                : "permission denied: this user cannot write \(path) or the files beside it"
        case EROFS: return "\(directory) is on a read-only file system"
        case ENOTDIR: return "a part of the path is not a directory"
        case EISDIR: return "\(path) is a directory"
        case ENOSPC: return "no space left on the device of \(directory)"
        default: return String(cString: strerror(code))
        }
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

/// `close(2)`, which inside the connection's methods its own `close()` hides.
private func closeDescriptor(_ descriptor: Int32) {
    close(descriptor)
}
