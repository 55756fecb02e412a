/// `json` holding a scalar: the value's JSON text, a string re-encoded as a string literal. (Objects and arrays
/// are captured whole from the input, not decoded.)
enum JSONScalarDecoder {
    @inline(__always)
    static func decode(
        _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool, into storage: UnsafeMutablePointer<ColumnStorage>, row: Int
    ) -> DecodeFailure? {
        storage.pointee.beginText(row: row)
        switch kind {
        case .string:
            JSONText.appendStringLiteral(UnsafeBufferPointer(start: bytes, count: length)) { storage.pointee.appendText(byte: $0) }
        case .number:
            if let bytes { storage.pointee.appendText(bytes, count: length) }
        case .bool:
            for byte in (boolValue ? "true" : "false").utf8 { storage.pointee.appendText(byte: byte) }
        case .null:
            for byte in "null".utf8 { storage.pointee.appendText(byte: byte) }
        }
        storage.pointee.endText(row: row)
        return nil
    }
}
