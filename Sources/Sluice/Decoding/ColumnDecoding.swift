/// The one table from a scalar's JSON kind and a column's type to the value stored, or the failure (every
/// type's accepted inputs are in docs/mapping.md, "Types and conversions"): each type's rule is its decoder's, in
/// a file of its own, and this switch is the only place a type is dispatched on to convert.
enum ColumnDecoding {
    /// Converts a value that is not null into `slot`; returns why it does not convert instead.
    @inline(__always)
    static func decode(_ type: FieldType, _ value: ScalarValue, conversion: UnsafePointer<ColumnConversion>, into slot: ColumnSlot) -> DecodeFailure? {
        switch type {
        case .string: TextDecoder.decode(value, conversion: conversion, into: slot)
        case .int64: IntegerDecoder.decodeSigned(value, conversion: conversion, into: slot)
        case .uint64: IntegerDecoder.decodeUnsigned(value, conversion: conversion, into: slot)
        case .double: DoubleDecoder.decode(value, conversion: conversion, into: slot)
        case .bool: BoolDecoder.decode(value, conversion: conversion, into: slot)
        case .json: JSONScalarDecoder.decode(value, into: slot)
        case .date: DateDecoder.decode(value, conversion: conversion, into: slot)
        case .url: URLDecoder.decode(value, conversion: conversion, into: slot)
        case .bytes: BytesDecoder.decode(value, into: slot)
        case .enumeration: EnumDecoder.decode(value, conversion: conversion, into: slot)
        case .decimal: DecimalDecoder.decode(value, conversion: conversion, into: slot)
        }
    }
}
