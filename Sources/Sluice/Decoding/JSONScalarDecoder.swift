/// `json` holding a scalar: the value's JSON text, a string re-encoded as a string literal. (Objects and arrays
/// are captured whole from the input, not decoded.)
enum JSONScalarDecoder {
    @inline(__always)
    static func decode(_ value: ScalarValue, into slot: ColumnSlot) -> DecodeFailure? {
        let storage = slot.storage
        storage.pointee.beginText(row: slot.row)
        switch value.kind {
        case .string:
            JSONText.appendStringLiteral(UnsafeBufferPointer(start: value.bytes, count: value.length)) { storage.pointee.appendText(byte: $0) }
        case .number:
            if let bytes = value.bytes { storage.pointee.appendText(bytes, count: value.length) }
        case .bool:
            for byte in (value.boolValue ? "true" : "false").utf8 { storage.pointee.appendText(byte: byte) }
        case .null:
            for byte in "null".utf8 { storage.pointee.appendText(byte: byte) }
        }
        storage.pointee.endText(row: slot.row)
        return nil
    }
}
