/// `enum`: a string, number or Boolean whose text is a key of the field's value map, stored as what it maps to;
/// anything else the field's default, if it has one.
enum EnumDecoder {
    @inline(never)
    static func decode(_ value: ScalarValue, conversion: UnsafePointer<ColumnConversion>, into slot: ColumnSlot) -> DecodeFailure? {
        var index: Int?
        if let (base, count) = value.text {
            index = conversion.pointee.enumTable?.index(of: base, count)
        } else if value.kind == .bool {
            index = Array((value.boolValue ? "true" : "false").utf8).withUnsafeBufferPointer { buffer in
                buffer.baseAddress.flatMap { conversion.pointee.enumTable?.index(of: $0, buffer.count) }
            }
        }
        if let index {
            conversion.pointee.enumTable?.withValue(at: index) { slot.storage.pointee.writeText($0, count: $1, row: slot.row) }
        } else if let defaultValue = conversion.pointee.defaultValue {
            slot.storage.pointee.write(defaultValue, row: slot.row)
        } else {
            return .mismatch(conversion.pointee.enumTable?.expectation ?? "enum", narrowing: nil)
        }
        return nil
    }
}
