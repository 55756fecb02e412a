/// Why a value did not convert into its column, as a value: the rejection's kind, and what the column expected.
/// The text a rejection shows is built from it here, in one place, only when a value fails.
struct DecodeFailure {
    let kind: Rejection.Kind
    /// The engine's words for what the column expected: `int64 (within ±9223372036854775807)`.
    let words: String
    /// Which of a typed property's own words replace the engine's, where the property is narrower than its
    /// column (an `Int32` read through an int64 column); nil where the engine's words stand for any property.
    let narrowing: ShownType.Expectation?

    /// A value of the wrong kind, or text the type cannot read.
    static func mismatch(_ words: String, narrowing: ShownType.Expectation? = .type) -> DecodeFailure {
        DecodeFailure(kind: .typeMismatch, words: words, narrowing: narrowing)
    }

    /// A value of the right kind that the type cannot hold.
    static func outOfRange(_ words: String, narrowing: ShownType.Expectation? = nil) -> DecodeFailure {
        DecodeFailure(kind: .outOfRange, words: words, narrowing: narrowing)
    }

    /// What the rejection says the column expected, in the words of the field's typed property where it has one.
    func expected(for field: FieldSpec) -> String {
        narrowing.flatMap { field.shownType?.expected($0) } ?? words
    }
}
