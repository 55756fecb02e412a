/// The value types a field can hold.
///
/// The conversion from each JSON kind to each type is listed in `docs/mapping.md`; anything not listed there is a
/// rejection, never a silently stored wrong value.
public enum FieldType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// UTF-8 text. Accepts JSON strings, and numbers as their literal text (`0.1` stays `"0.1"`).
    case string
    /// A signed 64-bit integer, exact. Accepts integer literals; overflow is a rejection, never a wrap.
    case int64
    /// A 64-bit floating-point number. Accepts any JSON number that is finite as a `Double`.
    case double
    /// A Boolean. Accepts `true` and `false`.
    case bool
    /// The value's JSON text: objects and arrays as they appear in the input, scalars re-encoded.
    case json
    /// An unsigned 64-bit integer, exact. Accepts what `int64` accepts, without a minus sign.
    case uint64
    /// An instant, stored as nanoseconds since 1970-01-01T00:00:00Z. Accepts epoch numbers and numeric strings (in
    /// the field's unit) and text in the field's formats (ISO 8601 by default).
    case date
    /// A URL reference (absolute or relative), stored as its text. Accepts strings that are valid references.
    case url
    /// Binary data. Accepts base64 text (standard or URL-safe alphabet, padding optional), stored decoded.
    case bytes
    /// One of a fixed set of values, through the field's value map. Accepts strings and numbers.
    case enumeration = "enum"
    /// An exact decimal number of the field's precision and scale (``DecimalFormat``), stored as its canonical
    /// text. Accepts numbers and numeric strings, read from their text, never through a `Double`.
    case decimal

    public var description: String { rawValue }

    /// How values of the type are laid out in a column.
    var layout: ColumnLayout {
        switch self {
        case .int64, .uint64, .double, .date: .word
        case .bool: .byte
        case .string, .json, .url, .bytes, .enumeration, .decimal: .text
        }
    }
}

// What each type is, decided in one place per question: a rule elsewhere asks these instead of comparing types
// (a lint test forbids `type == .date` and the like), so that a new type meets every question in the exhaustive
// switches below.
extension FieldType {
    /// Whether the column keeps each value's JSON text as it stands, so that any JSON value fits it.
    package var keepsJSONText: Bool {
        switch self {
        case .json: true
        case .string, .int64, .double, .bool, .uint64, .date, .url, .bytes, .enumeration, .decimal: false
        }
    }

    /// Whether a string's or a number's text is the value as it stands, with no conversion or check.
    package var keepsScalarText: Bool {
        switch self {
        case .string: true
        case .int64, .double, .bool, .json, .uint64, .date, .url, .bytes, .enumeration, .decimal: false
        }
    }

    /// Whether values are whole numbers: a fraction does not fit, unless the field truncates it.
    package var holdsWholeNumbers: Bool {
        switch self {
        case .int64, .uint64: true
        case .string, .double, .bool, .json, .date, .url, .bytes, .enumeration, .decimal: false
        }
    }

    /// Whether values have an order that the minimum, maximum and range validators compare by.
    package var isOrdered: Bool {
        switch self {
        case .int64, .uint64, .double, .date, .decimal: true
        case .string, .bool, .json, .url, .bytes, .enumeration: false
        }
    }

    /// Whether values are points in time, read through an epoch unit and date formats.
    package var holdsPointsInTime: Bool {
        switch self {
        case .date: true
        case .string, .int64, .double, .bool, .json, .uint64, .url, .bytes, .enumeration, .decimal: false
        }
    }

    /// Whether values are one of the values the field lists.
    package var holdsListedValues: Bool {
        switch self {
        case .enumeration: true
        case .string, .int64, .double, .bool, .json, .uint64, .date, .url, .bytes, .decimal: false
        }
    }

    /// Whether text values must be URL references.
    package var holdsURLReferences: Bool {
        switch self {
        case .url: true
        case .string, .int64, .double, .bool, .json, .uint64, .date, .bytes, .enumeration, .decimal: false
        }
    }

    /// Whether the column holds decoded bytes rather than text: lengths count bytes, and patterns do not apply.
    package var holdsRawBytes: Bool {
        switch self {
        case .bytes: true
        case .string, .int64, .double, .bool, .json, .uint64, .date, .url, .enumeration, .decimal: false
        }
    }

    /// Whether values are exact decimals of a declared precision and scale (``DecimalFormat``).
    package var holdsExactDecimals: Bool {
        switch self {
        case .decimal: true
        case .string, .int64, .double, .bool, .json, .uint64, .date, .url, .bytes, .enumeration: false
        }
    }

    /// Whether values may lie above Int64's range, which a store of signed integers cannot hold.
    package var reachesPastSignedRange: Bool {
        switch self {
        case .uint64: true
        case .string, .int64, .double, .bool, .json, .date, .url, .bytes, .enumeration, .decimal: false
        }
    }
}

/// The storage shapes of columns.
enum ColumnLayout {
    /// Eight bytes a row (Int64, UInt64, Double, a date's nanoseconds).
    case word
    /// One byte a row (Bool).
    case byte
    /// Variable-length bytes with row offsets (text, JSON, decoded bytes).
    case text
}
