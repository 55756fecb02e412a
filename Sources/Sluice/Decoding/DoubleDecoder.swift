/// `double`: any number, or a numeric string in JSON number syntax unless the column takes only numbers, correctly
/// rounded; refused when it rounds to infinity.
enum DoubleDecoder {
    @inline(__always)
    static func decode(_ value: ScalarValue, conversion: UnsafePointer<ColumnConversion>, into slot: ColumnSlot) -> DecodeFailure? {
        guard let (base, count) = value.text,
              value.kind == .number || (!conversion.pointee.takesOnlyItsKind && NumberConversion.isNumberText(base, count)) else { return .mismatch("double") }
        guard let number = NumberConversion.double(base, count) else { return .outOfRange("double (finite)", narrowing: .range) }
        slot.storage.pointee.write(number, row: slot.row)
        return nil
    }
}
