/// The JSON kind of a scalar value, as a tokenizer hands it on: its text (strings unescaped, numbers as their
/// literal) and, for a Boolean, its value.
enum ScalarKind {
    case string, number, bool, null
}
