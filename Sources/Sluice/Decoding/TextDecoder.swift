/// `string`: a JSON string's unescaped text, or a number's literal text as it stands (`0.1` stays `"0.1"`) unless
/// the column takes only strings.
enum TextDecoder {
    @inline(__always)
    static func decode(_ value: ScalarValue, conversion: UnsafePointer<ColumnConversion>, into slot: ColumnSlot) -> DecodeFailure? {
        guard let (base, count) = value.text, value.kind == .string || !conversion.pointee.takesOnlyItsKind else { return .mismatch("string") }
        slot.storage.pointee.writeText(base, count: count, row: slot.row)
        return nil
    }
}
