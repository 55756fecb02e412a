/// The distinct byte arrays of a column chunk, in the order first seen, already in the dictionary page's plain
/// encoding (a 4-byte little-endian length before each), with an open-addressing table to find an entry by its
/// bytes without building a key per value.
struct ByteArrayDictionary {
    /// The dictionary page's body.
    private(set) var plain: [UInt8] = []
    private var starts: [Int] = []
    private var lengths: [Int] = []
    private var hashes: [UInt64] = []
    /// Entry index + 1 per slot, 0 for an empty slot; the count is a power of two.
    private var slots = [Int32](repeating: 0, count: 1024)

    var count: Int { starts.count }

    /// The index of `bytes`, added if new.
    mutating func index(of bytes: UnsafeBufferPointer<UInt8>) -> (index: Int, isNew: Bool) {
        let hash = Self.hash(bytes)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = Int(slots[slot]) - 1
            if entry < 0 { break }
            if hashes[entry] == hash && lengths[entry] == bytes.count && equals(entry, bytes) { return (entry, false) }
            slot = (slot + 1) & mask
        }
        let index = starts.count
        var length = UInt32(bytes.count).littleEndian
        withUnsafeBytes(of: &length) { plain.append(contentsOf: $0) }
        starts.append(plain.count)
        lengths.append(bytes.count)
        hashes.append(hash)
        plain.append(contentsOf: bytes)
        slots[slot] = Int32(index + 1)
        if starts.count * 2 > slots.count { grow() }
        return (index, true)
    }

    mutating func removeAll() {
        plain.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        lengths.removeAll(keepingCapacity: true)
        hashes.removeAll(keepingCapacity: true)
        for index in slots.indices { slots[index] = 0 }
    }

    private func equals(_ entry: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        return plain.withUnsafeBufferPointer { plain in
            guard let start = plain.baseAddress else { return false }
            return memcmp(start + starts[entry], base, bytes.count) == 0
        }
    }

    private mutating func grow() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (entry, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(entry + 1)
        }
    }

    /// A multiply-and-fold hash, eight bytes at a time.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let raw = UnsafeRawBufferPointer(bytes)
        var hash = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= raw.count {
            hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 29
            offset += 8
        }
        if offset < raw.count {
            var tail: UInt64 = 0
            for index in offset..<raw.count { tail = tail << 8 | UInt64(raw[index]) }
            hash = (hash ^ tail) &* 0xFF51_AFD7_ED55_8CCD
        }
        hash ^= hash >> 32
        hash &*= 0xC4CE_B9FE_1A85_EC53
        return hash ^ (hash >> 29)
    }
}

import Sluice
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
