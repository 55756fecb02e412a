/// FNV-1a: a short, stable hash for telling things apart that nobody forges (an input's first MiB, a table's
/// meaning, an advisory lock's key); stable across runs and versions, unlike Swift's `Hasher`.
enum FNV1a {
    /// The 64-bit hash, fed a byte at a time (for values read in pieces, not gathered first).
    struct Hasher64 {
        private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

        mutating func add(_ byte: UInt8) {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01B3
        }

        mutating func add(_ bytes: some Sequence<UInt8>) {
            for byte in bytes { add(byte) }
        }
    }

    /// The 64-bit hash as 16 hex digits.
    static func hex64(_ bytes: some Sequence<UInt8>) -> String {
        var hasher = Hasher64()
        hasher.add(bytes)
        let hex = String(hasher.value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The 32-bit hash.
    static func hash32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in bytes {
            hash ^= UInt32(byte)
            hash &*= 0x0100_0193
        }
        return hash
    }
}
