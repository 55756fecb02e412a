#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The PostgreSQL advisory lock an import holds on a table for its whole run: one key per schema-qualified table
/// name, in a namespace of Sluice's own (the two-key form of `pg_advisory_lock`).
struct ImportLock: Hashable {
    /// 'Slce', so that Sluice's locks do not collide with an application's one-key locks or its other namespaces.
    static let namespace: Int32 = 0x536C_6365

    let table: String
    /// FNV-1a of `schema.table`: two tables that share a key only wait for each other.
    let key: Int32

    init(schema: String, table: String) {
        self.table = table
        key = Int32(bitPattern: FNV1a.hash32((schema + "." + table).utf8))
    }

    /// How the session names itself to the server (`application_name`, at most 63 bytes), so that the message of
    /// an import that waited in vain names the process and the machine that hold its table.
    static var applicationName: String {
        var host = [CChar](repeating: 0, count: 256)
        let hostName = gethostname(&host, host.count - 1) == 0 ? String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        let name = "sluice import, pid \(getpid()) on \(hostName)"
        return String(decoding: name.utf8.prefix(63), as: UTF8.self)
    }
}
