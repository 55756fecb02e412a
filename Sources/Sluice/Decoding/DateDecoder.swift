/// `date`: numbers and strings through the field's compiled formats and epoch unit, stored as nanoseconds.
enum DateDecoder {
    @inline(never)
    static func decode(
        _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, conversion: UnsafePointer<ColumnConversion>,
        into storage: UnsafeMutablePointer<ColumnStorage>, row: Int
    ) -> DecodeFailure? {
        // The parser is used in place: binding it to a local would copy it, with its arrays' reference counts.
        guard let bytes, kind == .number || kind == .string,
              let outcome = kind == .number ? conversion.pointee.dateParser?.number(bytes, length) : conversion.pointee.dateParser?.text(bytes, length) else {
            return .mismatch("date", narrowing: nil)
        }
        switch outcome {
        case .instant(let nanoseconds):
            storage.pointee.write(nanoseconds, row: row)
            return nil
        case .tooPrecise: return .outOfRange("date (whole nanoseconds)")
        case .outOfRange: return .outOfRange("date (from 1677-09-21 to 2262-04-11)")
        case .unreadable: return .mismatch(conversion.pointee.dateParser?.expectation ?? "date", narrowing: nil)
        }
    }
}
