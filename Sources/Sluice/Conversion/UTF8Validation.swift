/// Well-formed UTF-8 as the Unicode standard defines it (its table of well-formed byte sequences, RFC 3629): no
/// overlong forms, no encoded surrogates, nothing above U+10FFFF. yajl's own check is looser (it lets overlong
/// forms, encoded surrogates and lead bytes F5–F7 through), so mapped text is checked again here, once, before
/// it is written anywhere a loader would refuse it.
enum UTF8Validation {
    /// The offset of the first byte that does not begin a well-formed sequence, or `nil` when all of it is
    /// well-formed. ASCII runs are passed over eight bytes at a time.
    @inline(__always)
    static func firstInvalidOffset(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int? {
        var index = 0
        let raw = UnsafeRawPointer(bytes)
        while index + 8 <= count {
            if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
            index += 8
        }
        while index < count && bytes[index] < 0x80 { index += 1 }
        return index == count ? nil : firstInvalidOffset(bytes, count, from: index)
    }

    @inline(never)
    private static func firstInvalidOffset(_ bytes: UnsafePointer<UInt8>, _ count: Int, from start: Int) -> Int? {
        var index = start
        let raw = UnsafeRawPointer(bytes)
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                // Text in most scripts mixes ASCII runs between its sequences: pass them a word at a time.
                index += 1
                while index + 8 <= count && raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { index += 8 }
                continue
            }
            // The sequence's length, and the range its second byte must fall in.
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return index
            }
            guard index + length <= count, (low...high).contains(bytes[index + 1]) else { return index }
            for next in index + 2..<index + length where bytes[next] & 0xC0 != 0x80 { return index }
            index += length
        }
        return nil
    }

    /// How a rejection shows the ill-formed sequence: its offset in the text and its bytes in hex (the byte there
    /// and the continuation bytes after it, at most four).
    static func describe(_ bytes: UnsafePointer<UInt8>, _ count: Int, at offset: Int) -> String {
        "\(describeSequence(bytes, count, at: offset)) at byte \(offset) of it"
    }

    /// The ill-formed sequence alone, for a failure whose byte offset says where it is.
    static func describeSequence(_ bytes: UnsafePointer<UInt8>, _ count: Int, at offset: Int) -> String {
        var end = offset + 1
        while end < min(offset + 4, count) && bytes[end] & 0xC0 == 0x80 { end += 1 }
        let shown = (offset..<end).map { hexByte(bytes[$0]) }.joined(separator: " ")
        return "text with ill-formed UTF-8 (\(shown))"
    }

    private static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
