/// `decimal`: a number, or a string in number syntax, exactly in the field's precision and scale (``DecimalFormat``),
/// rounded only as the field declares.
enum DecimalDecoder {
    @inline(never)
    static func decode(
        _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, conversion: UnsafePointer<ColumnConversion>,
        into storage: UnsafeMutablePointer<ColumnStorage>, row: Int
    ) -> DecodeFailure? {
        // The plan compiler gives every decimal column its format; without one, nothing is what it expects.
        let format = conversion.pointee.decimalFormat
        guard let format, let bytes, kind == .number || kind == .string, let literal = DecimalLiteral(bytes, length) else {
            return .mismatch(format?.description ?? "decimal", narrowing: nil)
        }
        let failure = format.withText(of: literal) { text in
            if let base = text.baseAddress { storage.pointee.writeText(base, count: text.count, row: row) }
        }
        return failure.map { .outOfRange(format.expectation($0)) }
    }
}
