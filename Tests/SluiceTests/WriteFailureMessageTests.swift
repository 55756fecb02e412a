import Foundation
import Testing

/// A destination that refuses to be written names itself and the reason, not only what the library said.
@Suite struct WriteFailureMessageTests {
    /// Runs `arguments` as a user without rights to what the test made read-only: root may write anything, so a root
    /// test runs sluice as `nobody` (through setpriv); nil when that is not possible here.
    static func runWithoutRights(_ arguments: [String]) throws -> (status: Int32, standardError: String)? {
        guard getuid() == 0 else { return try ImportCommandTests.run(arguments) }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return nil }
        return try ImportCommandTests.run(arguments, launchedBy: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
    }

    /// A SQLite database in a directory the user cannot write, or a database file it cannot write: SQLite says
    /// "unable to open database file" or "attempt to write a readonly database"; Sluice says which is refused.
    @Test func aReadOnlyDirectoryOrDatabaseIsNamed() throws {
        let dump = try ImportCommandTests.Dump(count: 10)
        let locked = dump.path("locked")
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
        let existing = locked + "/existing.db"
        #expect(try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", existing, "-q"]).status == 0)
        // The whole tree must be readable by the user the import runs as (scripts/test's temporary directory is
        // its own user's alone: it is opened for passing through).
        var status = stat()
        if stat(FileManager.default.temporaryDirectory.path, &status) == 0 { chmod(FileManager.default.temporaryDirectory.path, status.st_mode & 0o7777 | 0o011) }
        for path in [scratchDirectory.path, dump.directory.path] { chmod(path, 0o755) }
        chmod(dump.input, 0o644)
        chmod(dump.mapping, 0o644)
        chmod(existing, 0o444)
        chmod(locked, 0o555)
        defer { chmod(locked, 0o755) }

        guard let created = try Self.runWithoutRights(["import", "-m", dump.mapping, dump.input, "--to", locked + "/new.db", "-q"]) else { return }
        #expect(created.status == 1)
        #expect(created.standardError.contains("\(locked)/new.db: write error: cannot open the database: permission denied: this user cannot create files in \(locked) (unable to open database file)"),
                "\(created.standardError)")
        let appended = try #require(try Self.runWithoutRights(["import", "-m", dump.mapping, dump.input, "--to", existing, "--if-exists", "append", "-q"]))
        #expect(appended.status == 1)
        #expect(appended.standardError.contains("\(existing): write error: cannot open the database for writing: permission denied: this user cannot write \(existing)"),
                "\(appended.standardError)")
    }

    /// The disk fills (a file size limit fails writes as a full disk does) while a Parquet file's pages wait beside
    /// it: the error names the file being written, not the directory of its pages.
    @Test func aFullDiskUnderParquetNamesTheFile() throws {
        let dump = try ImportCommandTests.Dump(count: 100_000)
        let output = dump.path("out.parquet")
        let (status, message) = try ImportCommandTests.runOnAFullDisk(blocks: 256, ["import", "-m", dump.mapping, dump.input, "--to", output, "--compression", "none", "-q"])
        #expect(status == 1, "\(message)")
        #expect(message.contains("sluice: error: \(output): write error: "), "\(message)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dump.directory.path).sorted() == ["dump.ndjson", "items.mapping.yaml"])
    }
}
