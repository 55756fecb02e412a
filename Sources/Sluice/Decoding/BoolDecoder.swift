/// `bool`: `true` and `false`, and the strings and numbers `BoolConversion` reads as them.
enum BoolDecoder {
    @inline(__always)
    static func decode(
        _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool, into storage: UnsafeMutablePointer<ColumnStorage>, row: Int
    ) -> DecodeFailure? {
        if kind == .bool {
            storage.pointee.write(boolValue, row: row)
        } else if let bytes, let value = BoolConversion.value(bytes, length, isNumber: kind == .number) {
            storage.pointee.write(value, row: row)
        } else {
            return .mismatch("bool", narrowing: nil)
        }
        return nil
    }
}
