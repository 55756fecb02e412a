/// `int64` and `uint64`: exact from an integer literal or a numeric string of digits, never through a `Double`;
/// a fraction only where the field truncates it.
enum IntegerDecoder {
    @inline(__always)
    static func decodeSigned(_ value: ScalarValue, conversion: UnsafePointer<ColumnConversion>, into slot: ColumnSlot) -> DecodeFailure? {
        guard let (base, count) = integerText(value, conversion) else { return .mismatch("int64") }
        var result = NumberConversion.int64(base, count)
        if result == .fractional && conversion.pointee.truncatesFractions {
            result = NumberConversion.signed(NumberConversion.exactInteger(base, count, truncates: true))
        }
        switch result {
        case .value(let number):
            slot.storage.pointee.write(number, row: slot.row)
            return nil
        case .fractional: return .outOfRange("int64 (an integer)", narrowing: .integer)
        case .outOfRange: return .outOfRange("int64 (within ±9223372036854775807)", narrowing: .range)
        }
    }

    @inline(__always)
    static func decodeUnsigned(_ value: ScalarValue, conversion: UnsafePointer<ColumnConversion>, into slot: ColumnSlot) -> DecodeFailure? {
        guard let (base, count) = integerText(value, conversion) else { return .mismatch("uint64") }
        switch NumberConversion.exactInteger(base, count, truncates: conversion.pointee.truncatesFractions) {
        case .value(let negative, let magnitude) where !negative || magnitude == 0:
            slot.storage.pointee.write(magnitude, row: slot.row)
            return nil
        case .fractional: return .outOfRange("uint64 (an integer)", narrowing: .integer)
        default: return .outOfRange("uint64 (0 to 18446744073709551615)", narrowing: .range)
        }
    }

    /// A number's literal, or unless the column takes only numbers, a string of an optional sign and digits.
    @inline(__always)
    private static func integerText(_ value: ScalarValue, _ conversion: UnsafePointer<ColumnConversion>) -> (base: UnsafePointer<UInt8>, count: Int)? {
        guard let text = value.text,
              value.kind == .number || (!conversion.pointee.takesOnlyItsKind && NumberConversion.isIntegerText(text.base, text.count)) else { return nil }
        return text
    }
}
