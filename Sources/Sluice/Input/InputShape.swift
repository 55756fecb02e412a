/// How records are laid out in the input.
public enum InputShape: String, Sendable, Hashable, CaseIterable {
    /// Look at the first bytes and decide (see `docs/mapping.md`, "Input shapes").
    case automatic
    /// One JSON value per line. Blank lines, CRLF line ends and a last line without a line feed are fine; a bad
    /// line is rejected and reading goes on at the next line.
    case ndjson
    /// One top-level JSON array whose elements are the records.
    case array
    /// JSON values one after another, separated by optional whitespace (`{"a":1}{"a":2}`, pretty-printed dumps).
    case concatenated
    /// The whole input is one record.
    case document
}

/// Decides the shape of an input from its first bytes.
///
/// Rules, applied to the values that end within the bytes looked at: a lone array, or an array that does not end
/// in view, is `.array`; values that each sit on their own line are `.ndjson`; values that span lines or share a
/// line are `.concatenated`. Input that does not start with `{` or `[` is read as NDJSON.
enum ShapeDetector {
    /// - Parameter bytes: The first bytes of the input, after any byte order mark.
    static func detect(_ bytes: UnsafeBufferPointer<UInt8>) -> InputShape {
        var position = 0
        skipWhitespace(bytes, &position)
        guard position < bytes.count else { return .ndjson }
        let opener = bytes[position]
        guard opener == UInt8(ascii: "{") || opener == UInt8(ascii: "[") else { return .ndjson }

        var valuesSeen = 0
        while position < bytes.count {
            // One value, tracking strings and escapes; note line feeds inside it.
            var depth = 0
            var inString = false
            var escaped = false
            var spansLines = false
            var ended = false
            let first = bytes[position]
            guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return .concatenated }
            while position < bytes.count && !ended {
                let byte = bytes[position]
                position += 1
                if inString {
                    if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    ended = depth == 0
                case 0x0A: spansLines = true
                default: break
                }
            }
            valuesSeen += 1
            if !ended {
                // A value longer than the bytes in view.
                if valuesSeen == 1 && opener == UInt8(ascii: "[") { return .array }
                return spansLines ? .concatenated : .ndjson
            }
            if spansLines { return valuesSeen == 1 && opener == UInt8(ascii: "[") && restIsWhitespace(bytes, position) ? .array : .concatenated }
            var lineFeedBetween = false
            while position < bytes.count, isWhitespace(bytes[position]) {
                if bytes[position] == 0x0A { lineFeedBetween = true }
                position += 1
            }
            if position == bytes.count {
                return valuesSeen == 1 && opener == UInt8(ascii: "[") ? .array : .ndjson
            }
            if !lineFeedBetween { return .concatenated }
        }
        return .ndjson
    }

    private static func restIsWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, _ position: Int) -> Bool {
        var position = position
        skipWhitespace(bytes, &position)
        return position == bytes.count
    }

    @inline(__always) static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, _ position: inout Int) {
        while position < bytes.count, isWhitespace(bytes[position]) { position += 1 }
    }
}
