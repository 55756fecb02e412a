/// Renders the JSON value a rejection found, for its message: `string "abc"`, `number 1e400`, `an object`.
enum ValueDescription {
    static let maximumShownBytes = 64

    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        "string " + quoted(bytes)
    }

    static func number(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        "number " + String(decoding: bytes.prefix(maximumShownBytes), as: UTF8.self)
            + (bytes.count > maximumShownBytes ? "…" : "")
    }

    static func bool(_ value: Bool) -> String { value ? "true" : "false" }

    static let null = "null"

    /// The value whose JSON text (as a json column holds it) is `text`.
    static func jsonText(_ text: UnsafeBufferPointer<UInt8>) -> String {
        switch text.first {
        case UInt8(ascii: "\""):
            guard case .string(let content)? = JSONValue(jsonText: text) else { return string(text) }
            return "string " + quoted(content)
        case UInt8(ascii: "{"): return object
        case UInt8(ascii: "["): return array
        case UInt8(ascii: "t"): return bool(true)
        case UInt8(ascii: "f"): return bool(false)
        case UInt8(ascii: "n"), nil: return null
        default: return number(text)
        }
    }
    static let object = "an object"
    static let array = "an array"

    /// The text as a JSON string literal, shortened to its first bytes when long.
    static func quoted(_ text: String) -> String {
        var text = text
        return text.withUTF8 { quoted($0) }
    }

    /// The text as a JSON string literal, shortened to its first bytes when long.
    static func quoted(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var prefix = Array(bytes.prefix(maximumShownBytes))
        // Do not cut a UTF-8 sequence in half.
        while let last = prefix.last, bytes.count > prefix.count, last & 0xC0 == 0x80 || last >= 0xC0 { prefix.removeLast() }
        var encoded: [UInt8] = []
        prefix.withUnsafeBufferPointer { JSONText.appendStringLiteral($0, to: &encoded) }
        if bytes.count > prefix.count { encoded.insert(contentsOf: Array("…".utf8), at: encoded.count - 1) }
        return String(decoding: encoded, as: UTF8.self)
    }
}

/// Writing JSON text.
package enum JSONText {
    /// `text` as a JSON string literal.
    package static func stringLiteral(_ text: String) -> String {
        var bytes: [UInt8] = []
        Array(text.utf8).withUnsafeBufferPointer { appendStringLiteral($0, to: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `bytes` as a JSON string literal: quotes, and escapes for `"`, `\` and control characters.
    package static func appendStringLiteral(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        appendStringLiteral(bytes) { output.append($0) }
    }

    /// The same, one byte at a time into any sink (a column's byte buffer, an output buffer).
    @inline(__always)
    static func appendStringLiteral(_ bytes: UnsafeBufferPointer<UInt8>, _ append: (UInt8) -> Void) {
        append(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                append(0x5C)
                append(byte)
            case 0x0A:
                append(0x5C)
                append(UInt8(ascii: "n"))
            case 0x0D:
                append(0x5C)
                append(UInt8(ascii: "r"))
            case 0x09:
                append(0x5C)
                append(UInt8(ascii: "t"))
            case 0..<0x20:
                for escaped in [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 15)]] {
                    append(escaped)
                }
            default:
                append(byte)
            }
        }
        append(UInt8(ascii: "\""))
    }

    /// Appends the decimal digits of `value` to `output`: one call a value for the writers in another module,
    /// where a closure would be called once a digit.
    package static func appendInteger(_ value: Int64, to output: inout [UInt8]) {
        appendInteger(value) { output.append($0) }
    }

    /// ``appendInteger(_:to:)`` for an unsigned value.
    package static func appendInteger(_ value: UInt64, to output: inout [UInt8]) {
        appendInteger(value) { output.append($0) }
    }

    /// Appends the decimal digits of `value`, most significant first, without building a string.
    @inline(__always)
    package static func appendInteger(_ value: Int64, _ append: (UInt8) -> Void) {
        if value < 0 { append(UInt8(ascii: "-")) }
        appendInteger(value.magnitude, append)
    }

    @inline(__always)
    package static func appendInteger(_ value: UInt64, _ append: (UInt8) -> Void) {
        var divisor: UInt64 = 1
        while value / divisor >= 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// The texts of the elements of a JSON array's text (`[1,"a",{"b":2}]` → `1`, `"a"`, `{"b":2}`), found by
    /// tracking strings and nesting; whitespace around the elements is dropped, inside them kept. Empty unless the
    /// text is an array.
    static func arrayElements(_ text: UnsafeBufferPointer<UInt8>) -> [[UInt8]] {
        var elements: [[UInt8]] = []
        forEachArrayElement(text) { elements.append(Array($0)) }
        return elements
    }

    /// Calls `body` with the text of each element of a JSON array's text, in place (see ``arrayElements(_:)``).
    package static func forEachArrayElement<Failure: Error>(_ text: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Void) throws(Failure) {
        var depth = 0
        var inString = false
        var escaped = false
        var elementStart: Int?
        var elementEnd = 0
        func element() -> UnsafeBufferPointer<UInt8>? {
            elementStart.map { UnsafeBufferPointer(rebasing: text[$0..<elementEnd]) }
        }
        for (index, byte) in text.enumerated() {
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                elementEnd = index + 1
                continue
            }
            switch byte {
            case 0x20, 0x0A, 0x0D, 0x09:
                continue
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth == 1 { continue }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 {
                    if let element = element() { try body(element) }
                    return
                }
            case UInt8(ascii: ",") where depth == 1:
                if let element = element() { try body(element) }
                elementStart = nil
                continue
            case UInt8(ascii: "\""):
                inString = true
            default:
                break
            }
            if depth >= 1 {
                if elementStart == nil { elementStart = index }
                elementEnd = index + 1
            }
        }
    }

    /// Appends the content of a JSON string literal (quotes included in `literal`), escapes decoded, as UTF-8.
    /// Returns `false` for a malformed escape; a lone surrogate is left out.
    package static func appendUnescaped(_ literal: UnsafeBufferPointer<UInt8>, _ append: (UInt8) -> Void) -> Bool {
        guard literal.count >= 2 else { return false }
        var index = 1
        let end = literal.count - 1
        var pendingHighSurrogate: UInt32?
        func hex(_ start: Int) -> UInt32? {
            var code: UInt32 = 0
            for byte in literal[start..<start + 4] {
                guard let digit = hexDigits.firstIndex(of: byte | 0x20) else { return nil }
                code = code << 4 | UInt32(digit)
            }
            return code
        }
        while index < end {
            let byte = literal[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < end else {
                append(byte)
                index += 1
                continue
            }
            let escape = literal[index + 1]
            index += 2
            guard escape == UInt8(ascii: "u") else {
                append(JSONValue.byte(escapedBy: escape))
                pendingHighSurrogate = nil
                continue
            }
            guard index + 4 <= end, let code = hex(index) else { return false }
            index += 4
            if (0xD800...0xDBFF).contains(code) {
                pendingHighSurrogate = code
                continue
            }
            let scalar = (0xDC00...0xDFFF).contains(code) ? pendingHighSurrogate.map { 0x10000 + (($0 - 0xD800) << 10) + (code - 0xDC00) } : code
            pendingHighSurrogate = nil
            if let scalar, let unicodeScalar = Unicode.Scalar(scalar) {
                UTF8.encode(unicodeScalar, into: append)
            }
        }
        return true
    }

    /// ``appendCompact(_:_:)`` into `output`: one call a value for the writers in another module.
    package static func appendCompact(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        appendCompact(bytes) { output.append($0) }
    }

    /// Appends JSON text without the whitespace between its tokens (strings kept as they are), so that a
    /// pretty-printed object captured by a json field stays on one NDJSON line.
    package static func appendCompact(_ bytes: UnsafeBufferPointer<UInt8>, _ append: (UInt8) -> Void) {
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                continue
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            }
            append(byte)
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
