/// `decimal`: a number, or a string in number syntax, exactly in the field's precision and scale (``DecimalFormat``),
/// rounded only as the field declares.
enum DecimalDecoder {
    @inline(never)
    static func decode(_ value: ScalarValue, conversion: UnsafePointer<ColumnConversion>, into slot: ColumnSlot) -> DecodeFailure? {
        // The plan compiler gives every decimal column its format; without one, nothing is what it expects.
        let format = conversion.pointee.decimalFormat
        guard let format, let (base, count) = value.text, let literal = DecimalLiteral(base, count) else {
            return .mismatch(format?.description ?? "decimal", narrowing: nil)
        }
        let failure = format.withText(of: literal) { text in
            if let textBase = text.baseAddress { slot.storage.pointee.writeText(textBase, count: text.count, row: slot.row) }
        }
        return failure.map { .outOfRange(format.expectation($0)) }
    }
}
