/// The one table from a scalar's JSON kind and a column's type to the value stored, or the failure (every
/// type's accepted inputs are in docs/mapping.md, "Types and conversions"): each type's rule is its decoder's, in
/// a file of its own, and this switch is the only place a type is dispatched on to convert.
enum ColumnDecoding {
    /// Converts a value that is not null into `storage` at `row` (a column's own storage, or a list column's
    /// scratch for one element); returns why it does not convert instead.
    @inline(__always)
    static func decode(
        _ type: FieldType, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool,
        conversion: UnsafePointer<ColumnConversion>, into storage: UnsafeMutablePointer<ColumnStorage>, row: Int
    ) -> DecodeFailure? {
        switch type {
        case .string: TextDecoder.decode(kind, bytes, length, into: storage, row: row)
        case .int64: IntegerDecoder.decodeSigned(kind, bytes, length, conversion: conversion, into: storage, row: row)
        case .uint64: IntegerDecoder.decodeUnsigned(kind, bytes, length, conversion: conversion, into: storage, row: row)
        case .double: DoubleDecoder.decode(kind, bytes, length, into: storage, row: row)
        case .bool: BoolDecoder.decode(kind, bytes, length, boolValue, into: storage, row: row)
        case .json: JSONScalarDecoder.decode(kind, bytes, length, boolValue, into: storage, row: row)
        case .date: DateDecoder.decode(kind, bytes, length, conversion: conversion, into: storage, row: row)
        case .url: URLDecoder.decode(kind, bytes, length, conversion: conversion, into: storage, row: row)
        case .bytes: BytesDecoder.decode(kind, bytes, length, into: storage, row: row)
        case .enumeration: EnumDecoder.decode(kind, bytes, length, boolValue, conversion: conversion, into: storage, row: row)
        case .decimal: DecimalDecoder.decode(kind, bytes, length, conversion: conversion, into: storage, row: row)
        }
    }
}
