/// Writes one converted list element, held in a one-row scratch column, as JSON text at the end of a list
/// column: straight into its bytes, so that the common element types (text, integers, Booleans, json) cost no
/// allocation. Doubles, dates and bytes go through their text forms.
enum ListElementText {
    static func append(_ scratch: ColumnStorage, type: FieldType, to list: UnsafeMutablePointer<ColumnStorage>) {
        switch type {
        case .string, .url, .enumeration:
            list.pointee.appendJSONString(scratch.textBytes(0))
        case .json, .decimal:
            // A decimal's canonical text is a JSON number as it stands.
            let text = scratch.textBytes(0)
            if let base = text.baseAddress { list.pointee.appendText(base, count: text.count) }
        case .int64:
            JSONText.appendInteger(scratch.values.assumingMemoryBound(to: Int64.self)[0]) { list.pointee.appendText(byte: $0) }
        case .uint64:
            JSONText.appendInteger(scratch.values.assumingMemoryBound(to: UInt64.self)[0]) { list.pointee.appendText(byte: $0) }
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
}
