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
/// The first value decides, because pretty-printing (and NDJSON's one-line rule) applies to every value of a
/// dump alike, while a later value may be a damaged line: an array that is alone, or does not end in view, is
/// `.array`; a first value that spans lines, or shares its line with the next value, makes `.concatenated`;
/// otherwise `.ndjson`. Input that does not start with `{` or `[` is read as NDJSON. A file that mixes one-line
/// and multi-line values needs the shape given explicitly.
enum ShapeDetector {
    /// 3 when `bytes` start with a UTF-8 byte order mark, else 0.
    static func byteOrderMarkLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    /// Whether the line ending at `lineFeed` ends with an element of the top-level array, and the next line goes on
    /// with something other than the `,` or `]` that must follow it in an array.
    private static func endsLineWithoutSeparator(_ bytes: UnsafeBufferPointer<UInt8>, lineFeed: Int) -> Bool {
        var before = lineFeed - 1
        while before >= 0, isWhitespace(bytes[before]) { before -= 1 }
        guard before >= 0, bytes[before] != UInt8(ascii: "["), bytes[before] != UInt8(ascii: ",") else { return false }
        var after = lineFeed + 1
        while after < bytes.count, isWhitespace(bytes[after]) { after += 1 }
        return after < bytes.count && bytes[after] != UInt8(ascii: ",") && bytes[after] != UInt8(ascii: "]")
    }

    /// - Parameter bytes: The first bytes of the input, after any byte order mark.
    static func detect(_ bytes: UnsafeBufferPointer<UInt8>) -> InputShape {
        detection(bytes).shape
    }

    /// The shape that the first bytes of a file show, a byte order mark in front or not.
    static func detect(fileStart bytes: [UInt8]) -> InputShape {
        bytes.withUnsafeBufferPointer { detect(UnsafeBufferPointer(rebasing: $0[byteOrderMarkLength($0)...])) }
    }

    /// The shape of an input as its first bytes show it, decompressed when they are compressed.
    static func shape(atStartOf input: Input, maximumWindow: Int = Compression.defaultMaximumWindow) throws(SluiceError) -> InputShape {
        var source = try Compression.decompressing(input.openRaw(), maximumWindow: maximumWindow)
        return detect(fileStart: try source.peek(64 << 10))
    }

    /// The shape `bytes` show, and whether more bytes could change it (`isFinal` false): a reader of a pipe looks
    /// no further than it must, so that its first records are mapped as they arrive.
    static func detection(_ bytes: UnsafeBufferPointer<UInt8>) -> (shape: InputShape, isFinal: Bool) {
        var position = 0
        skipWhitespace(bytes, &position)
        guard position < bytes.count else { return (.ndjson, false) }
        let opener = bytes[position]
        guard opener == UInt8(ascii: "{") || opener == UInt8(ascii: "[") else { return (.ndjson, true) }
        let isArray = opener == UInt8(ascii: "[")

        // The first value, tracking strings and escapes; note line feeds inside it.
        var depth = 0
        var inString = false
        var escaped = false
        var spansLines = false
        var ended = false
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
            case 0x0A:
                // An object over several lines starts a stream of values, whatever follows.
                if !isArray { return (.concatenated, true) }
                if !spansLines && depth == 1 && endsLineWithoutSeparator(bytes, lineFeed: position - 1) {
                    // `["id","name"` then `[1,"a"]`: no array goes on so, but NDJSON with a cut-off first line does.
                    return (.ndjson, true)
                }
                spansLines = true
            default: break
            }
        }
        // A first value longer than the bytes in view.
        guard ended else { return (isArray ? .array : .ndjson, false) }
        var lineFeedBetween = false
        while position < bytes.count, isWhitespace(bytes[position]) {
            if bytes[position] == 0x0A {
                lineFeedBetween = true
                if !spansLines { return (.ndjson, true) }
            }
            position += 1
        }
        // Nothing follows in view: a lone array holds the records; a lone object is one record.
        if position == bytes.count { return (isArray ? .array : spansLines ? .concatenated : .ndjson, false) }
        return (!spansLines && lineFeedBetween ? .ndjson : .concatenated, true)
    }

    @inline(__always) static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, _ position: inout Int) {
        while position < bytes.count, isWhitespace(bytes[position]) { position += 1 }
    }
}
