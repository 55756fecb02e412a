/// `string`: a JSON string's unescaped text, or a number's literal text as it stands (`0.1` stays `"0.1"`).
enum TextDecoder {
    @inline(__always)
    static func decode(_ value: ScalarValue, into slot: ColumnSlot) -> DecodeFailure? {
        guard let (base, count) = value.text else { return .mismatch("string") }
        slot.storage.pointee.writeText(base, count: count, row: slot.row)
        return nil
    }
}
