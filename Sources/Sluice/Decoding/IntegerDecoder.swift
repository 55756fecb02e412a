/// `int64` and `uint64`: exact from an integer literal or a numeric string of digits, never through a `Double`;
/// a fraction only where the field truncates it.
enum IntegerDecoder {
    @inline(__always)
    static func decodeSigned(
        _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, conversion: UnsafePointer<ColumnConversion>,
        into storage: UnsafeMutablePointer<ColumnStorage>, row: Int
    ) -> DecodeFailure? {
        guard let bytes, kind == .number || (kind == .string && NumberConversion.isIntegerText(bytes, length)) else { return .mismatch("int64") }
        var result = NumberConversion.int64(bytes, length)
        if result == .fractional && conversion.pointee.truncatesFractions {
            result = NumberConversion.signed(NumberConversion.exactInteger(bytes, length, truncates: true))
        }
        switch result {
        case .value(let value):
            storage.pointee.write(value, row: row)
            return nil
        case .fractional: return .outOfRange("int64 (an integer)", narrowing: .integer)
        case .outOfRange: return .outOfRange("int64 (within ±9223372036854775807)", narrowing: .range)
        }
    }

    @inline(__always)
    static func decodeUnsigned(
        _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, conversion: UnsafePointer<ColumnConversion>,
        into storage: UnsafeMutablePointer<ColumnStorage>, row: Int
    ) -> DecodeFailure? {
        guard let bytes, kind == .number || (kind == .string && NumberConversion.isIntegerText(bytes, length)) else { return .mismatch("uint64") }
        switch NumberConversion.exactInteger(bytes, length, truncates: conversion.pointee.truncatesFractions) {
        case .value(let negative, let magnitude) where !negative || magnitude == 0:
            storage.pointee.write(magnitude, row: row)
            return nil
        case .fractional: return .outOfRange("uint64 (an integer)", narrowing: .integer)
        default: return .outOfRange("uint64 (0 to 18446744073709551615)", narrowing: .range)
        }
    }
}
