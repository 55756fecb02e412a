/// The JSON kind of a scalar value, as a tokenizer hands it on.
enum ScalarKind {
    case string, number, bool, null
}

/// A scalar value as a tokenizer hands it on: its kind, its text (a string unescaped, a number as its literal;
/// nil for a Boolean and null) and, for a Boolean, its value. A view: the text lives in the tokenizer's buffer.
struct ScalarValue {
    let kind: ScalarKind
    let bytes: UnsafePointer<UInt8>?
    let length: Int
    let boolValue: Bool

    @inline(__always)
    init(_ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        self.kind = kind
        self.bytes = bytes
        self.length = length
        self.boolValue = boolValue
    }

    /// The text, for a string or a number that has any.
    @inline(__always)
    var text: (base: UnsafePointer<UInt8>, count: Int)? {
        guard let bytes, kind == .string || kind == .number else { return nil }
        return (bytes, length)
    }
}

/// Where a decoder writes: a column's storage (or a list column's scratch for one element) and the row.
struct ColumnSlot {
    let storage: UnsafeMutablePointer<ColumnStorage>
    let row: Int
}
