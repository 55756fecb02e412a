/// `enum`: a string, number or Boolean whose text is a key of the field's value map, stored as what it maps to;
/// anything else the field's default, if it has one.
enum EnumDecoder {
    @inline(never)
    static func decode(
        _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool, conversion: UnsafePointer<ColumnConversion>,
        into storage: UnsafeMutablePointer<ColumnStorage>, row: Int
    ) -> DecodeFailure? {
        var index: Int?
        if let bytes, kind == .string || kind == .number {
            index = conversion.pointee.enumTable?.index(of: bytes, length)
        } else if kind == .bool {
            index = Array((boolValue ? "true" : "false").utf8).withUnsafeBufferPointer { buffer in
                buffer.baseAddress.flatMap { conversion.pointee.enumTable?.index(of: $0, buffer.count) }
            }
        }
        if let index {
            conversion.pointee.enumTable?.withValue(at: index) { storage.pointee.writeText($0, count: $1, row: row) }
        } else if let defaultValue = conversion.pointee.defaultValue {
            storage.pointee.write(defaultValue, row: row)
        } else {
            return .mismatch(conversion.pointee.enumTable?.expectation ?? "enum", narrowing: nil)
        }
        return nil
    }
}
