/// Writes one converted list element, held in a one-row scratch column, as JSON text at the end of a list
/// column: straight into its bytes, so that the common element types (text, integers, Booleans, json) cost no
/// allocation. Doubles, dates and bytes go through their text forms.
enum ListElementText {
    static func append(_ scratch: ColumnStorage, type: FieldType, to list: UnsafeMutablePointer<ColumnStorage>) {
        switch type {
        case .string, .url, .enumeration:
            list.pointee.appendJSONString(scratch.textBytes(0))
        case .json:
            let text = scratch.textBytes(0)
            if let base = text.baseAddress { list.pointee.appendText(base, count: text.count) }
        case .int64:
            let value = scratch.values.assumingMemoryBound(to: Int64.self)[0]
            if value < 0 { list.pointee.appendText(byte: UInt8(ascii: "-")) }
            appendDigits(value.magnitude, to: list)
        case .uint64:
            appendDigits(scratch.values.assumingMemoryBound(to: UInt64.self)[0], to: list)
        case .bool:
            for byte in (scratch.values.assumingMemoryBound(to: UInt8.self)[0] != 0 ? "true" : "false").utf8 { list.pointee.appendText(byte: byte) }
        case .double:
            for byte in String(scratch.values.assumingMemoryBound(to: Double.self)[0]).utf8 { list.pointee.appendText(byte: byte) }
        case .date:
            var text = DateText.rfc3339(scratch.values.assumingMemoryBound(to: Int64.self)[0])
            text.withUTF8 { list.pointee.appendJSONString($0) }
        case .bytes:
            var text = Base64.encode(scratch.textBytes(0))
            text.withUTF8 { list.pointee.appendJSONString($0) }
        }
    }

    /// Decimal digits of `value`, most significant first, without building a string.
    private static func appendDigits(_ value: UInt64, to list: UnsafeMutablePointer<ColumnStorage>) {
        var divisor: UInt64 = 1
        while value / divisor >= 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            list.pointee.appendText(byte: UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
