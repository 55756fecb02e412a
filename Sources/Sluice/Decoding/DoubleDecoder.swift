/// `double`: any number, or a numeric string in JSON number syntax, correctly rounded; refused when it rounds to
/// infinity.
enum DoubleDecoder {
    @inline(__always)
    static func decode(_ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, into storage: UnsafeMutablePointer<ColumnStorage>, row: Int) -> DecodeFailure? {
        guard let bytes, kind == .number || (kind == .string && NumberConversion.isNumberText(bytes, length)) else { return .mismatch("double") }
        guard let value = NumberConversion.double(bytes, length) else { return .outOfRange("double (finite)", narrowing: .range) }
        storage.pointee.write(value, row: row)
        return nil
    }
}
