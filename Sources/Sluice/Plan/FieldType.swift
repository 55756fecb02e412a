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

    public var description: String { rawValue }
}
