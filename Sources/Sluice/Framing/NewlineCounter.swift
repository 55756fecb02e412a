/// Counts line feeds eight bytes at a time, for the line numbers of records in streams that are not NDJSON.
enum NewlineCounter {
    static func count(in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var total = 0
        var position = 0
        let raw = UnsafeRawPointer(base)
        while position + 8 <= bytes.count {
            // A byte equal to 0x0A becomes 0 after the xor; the classic zero-byte test marks it with its high bit.
            let word = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self) ^ 0x0A0A_0A0A_0A0A_0A0A
            let marks = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
            if marks != 0 {
                // The subtraction's borrow can mark a 0x01 byte above a real match: count exactly in that case.
                for offset in 0..<8 where base[position + offset] == 0x0A { total += 1 }
            }
            position += 8
        }
        while position < bytes.count {
            if base[position] == 0x0A { total += 1 }
            position += 1
        }
        return total
    }
}
