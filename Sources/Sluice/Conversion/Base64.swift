/// Decodes base64 text, standard (`+/`) or URL-safe (`-_`) alphabet, with or without `=` padding.
package enum Base64 {
    /// The 6-bit value of each byte, 0xFF for bytes outside both alphabets.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8).enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "/"))] = 63
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    /// Whether `text` is valid base64: characters of one alphabet or the other, padding only at the end and only
    /// as much as completes the last group, and no group of a single character.
    static func isValid(_ text: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        var end = length
        var padding = 0
        while end > 0 && text[end - 1] == UInt8(ascii: "=") && padding < 2 {
            end -= 1
            padding += 1
        }
        if padding > 0 && length % 4 != 0 { return false }
        if end % 4 == 1 { return false }
        for index in 0..<end where values[Int(text[index])] == 0xFF { return false }
        return true
    }

    /// Decodes valid text (check with ``isValid(_:_:)`` first), handing each byte to `append`.
    package static func decode(_ text: UnsafePointer<UInt8>, _ length: Int, _ append: (UInt8) -> Void) {
        var end = length
        while end > 0 && text[end - 1] == UInt8(ascii: "=") { end -= 1 }
        var accumulator: UInt32 = 0
        var bits = 0
        for index in 0..<end {
            accumulator = accumulator << 6 | UInt32(values[Int(text[index])])
            bits += 6
            if bits >= 8 {
                bits -= 8
                append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
    }

    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard base64 with padding, for writing bytes back out.
    package static func encode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int(group >> UInt32(shift) & 63)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let group = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(rest == 2 ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "="))
            output.append(UInt8(ascii: "="))
        }
        return String(decoding: output, as: UTF8.self)
    }
}
