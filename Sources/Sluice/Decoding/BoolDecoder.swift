/// `bool`: `true` and `false`, and unless the column takes only Booleans, the strings and numbers `BoolConversion`
/// reads as them.
enum BoolDecoder {
    @inline(__always)
    static func decode(_ value: ScalarValue, conversion: UnsafePointer<ColumnConversion>, into slot: ColumnSlot) -> DecodeFailure? {
        if value.kind == .bool {
            slot.storage.pointee.write(value.boolValue, row: slot.row)
        } else if !conversion.pointee.takesOnlyItsKind, let (base, count) = value.text,
                  let flag = BoolConversion.value(base, count, isNumber: value.kind == .number) {
            slot.storage.pointee.write(flag, row: slot.row)
        } else {
            return .mismatch("bool", narrowing: nil)
        }
        return nil
    }
}
