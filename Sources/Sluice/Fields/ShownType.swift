/// How rejections name a typed property's own type where its column holds a wider one: `int32` for an `Int32`
/// read as int64, `decimal` for a `Decimal` read as text.
struct ShownType: Sendable, Hashable {
    /// The type alone, as a missing value or a mismatch names it: `int32`.
    var name: String
    /// The type with what it holds, as a value outside it names it: `int32 (-2147483648 to 2147483647)`.
    var range: String

    /// From the words a typed conversion refuses a value with, `name (what it holds)`; `nil` for words without
    /// that form.
    init?(refusal words: String) {
        guard let open = words.range(of: " (") else { return nil }
        name = String(words[..<open.lowerBound])
        range = words
    }

    /// What a failure expects, in the terms of the engine's words for the column's type: the range of a value
    /// outside it, an integer for a fraction, the type alone otherwise.
    func expected(_ failure: Expectation) -> String {
        switch failure {
        case .type: name
        case .integer: name + " (an integer)"
        case .range: range
        }
    }

    enum Expectation {
        case type, integer, range
    }
}

extension FieldSpec {
    /// The field's type as rejections name it.
    var shownTypeName: String { shownType?.name ?? (type.holdsExactDecimals ? decimalFormat?.description : nil) ?? type.description }
}
