/// A rule a field's value must follow for its record to be accepted.
///
/// Validators run once a record is mapped and before it is committed. A record that fails any of them is
/// rejected whole, and the rejection lists every failed validator with its key path:
/// `$.name: lengthRange(5...12) failed, found "Bob"`. Apart from ``required``, validators check values only:
/// a null (an optional field with nothing in it) passes them.
public enum Validator: Sendable, Hashable, CustomStringConvertible {
    /// The value is present and not null (for optional fields; required fields need no validator for that).
    case required
    /// The value equals this one.
    case equalTo(FieldValue)
    /// The value is one of these.
    case oneOf([FieldValue])
    /// Text has exactly this many Unicode scalars (bytes: this many bytes).
    case length(Int)
    /// Text has at least this many Unicode scalars (bytes: bytes).
    case minLength(Int)
    /// Text has at most this many Unicode scalars (bytes: bytes).
    case maxLength(Int)
    /// Text has a number of Unicode scalars in the range (bytes: bytes).
    case lengthRange(ClosedRange<Int>)
    /// The regular expression matches somewhere in the text (searched, like JSON Schema's `pattern`).
    case pattern(String)
    /// A number or date is at least this value, compared exactly.
    case minimum(FieldValue)
    /// A number or date is at most this value, compared exactly.
    case maximum(FieldValue)
    /// A number or date lies within the bounds, inclusive, compared exactly.
    case range(FieldValue, FieldValue)
    /// Your own rule: `check` returns whether the value passes. Registered by name for mapping files (see
    /// ``MappingRegistry``); compared by name.
    case custom(name: String, check: @Sendable (FieldValue) -> Bool)
    /// Your own rule on the bytes of a text, url, enum, json or bytes value (UTF-8, or the bytes themselves),
    /// handed over in place: no `String` is made per record, so a rule checked on every row costs only its
    /// own work. The buffer is valid only during the call. Compared by name.
    case customBytes(name: String, check: @Sendable (UnsafeBufferPointer<UInt8>) -> Bool)

    public var description: String {
        switch self {
        case .required: "required"
        case .equalTo(let value): "equalTo(\(value))"
        case .oneOf(let values): "oneOf(\(values.map(\.description).joined(separator: ", ")))"
        case .length(let count): "length(\(count))"
        case .minLength(let count): "minLength(\(count))"
        case .maxLength(let count): "maxLength(\(count))"
        case .lengthRange(let range): "lengthRange(\(range.lowerBound)...\(range.upperBound))"
        case .pattern(let pattern): "pattern(\(pattern))"
        case .minimum(let value): "min(\(value))"
        case .maximum(let value): "max(\(value))"
        case .range(let lower, let upper): "range(\(lower)...\(upper))"
        case .custom(let name, _), .customBytes(let name, _): name
        }
    }

    public static func == (left: Validator, right: Validator) -> Bool {
        left.description == right.description
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(description)
    }
}
