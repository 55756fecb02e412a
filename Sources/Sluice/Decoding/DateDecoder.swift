/// `date`: numbers and strings through the field's compiled formats and epoch unit, stored as nanoseconds.
enum DateDecoder {
    @inline(never)
    static func decode(_ value: ScalarValue, conversion: UnsafePointer<ColumnConversion>, into slot: ColumnSlot) -> DecodeFailure? {
        // The parser is used in place: binding it to a local would copy it, with its arrays' reference counts.
        guard let (base, count) = value.text,
              let outcome = value.kind == .number ? conversion.pointee.dateParser?.number(base, count) : conversion.pointee.dateParser?.text(base, count) else {
            return .mismatch("date", narrowing: nil)
        }
        switch outcome {
        case .instant(let nanoseconds):
            slot.storage.pointee.write(nanoseconds, row: slot.row)
            return nil
        case .tooPrecise: return .outOfRange("date (whole nanoseconds)")
        case .outOfRange: return .outOfRange("date (from 1677-09-21 to 2262-04-11)")
        case .unreadable: return .mismatch(conversion.pointee.dateParser?.expectation ?? "date", narrowing: nil)
        }
    }
}
