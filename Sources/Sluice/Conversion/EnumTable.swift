/// One entry of an enum field's value map: the JSON value (as text) and what is stored for it.
public struct EnumValue: Sendable, Hashable {
    /// The value as it appears in the input: a string's content, or a number's literal text.
    public var json: String
    /// What the field holds for it.
    public var value: String
    /// The kind of value ``value`` was written as (in a mapping file, an unquoted `1` is an integer), so that
    /// destinations with typed columns store `1` as a number, not as the text "1".
    public var storedKind: StoredKind

    /// The kinds of stored values.
    public enum StoredKind: Sendable, Hashable {
        /// Text, an integer, or another number.
        case text, integer, number
    }

    /// An entry storing `value` (written as `storedKind`) for the JSON value `json`.
    public init(json: String, value: String, storedKind: StoredKind = .text) {
        self.json = json
        self.value = value
        self.storedKind = storedKind
    }

    /// An entry that stores the JSON value as it is.
    public init(_ value: String) {
        self.init(json: value, value: value)
    }
}

/// An enum field's compiled value map: byte keys looked up without creating strings.
final class EnumTable: Sendable {
    private let keys: [[UInt8]]
    let values: [[UInt8]]
    /// The allowed JSON values, for rejections.
    let expectation: String

    init(_ entries: [EnumValue]) {
        keys = entries.map { Array($0.json.utf8) }
        values = entries.map { Array($0.value.utf8) }
        expectation = "one of " + entries.map { "\"\($0.json)\"" }.joined(separator: ", ")
    }

    /// Calls `body` with the bytes of the stored value at `index`.
    func withValue(at index: Int, _ body: (UnsafePointer<UInt8>, Int) -> Void) {
        values[index].withUnsafeBufferPointer { value in
            if let base = value.baseAddress { body(base, value.count) }
        }
    }

    /// The index of the entry whose JSON value is exactly `text`, or nil. Numbers and strings compare by text,
    /// so the number `1` finds the key `"1"` and the string `"1"` does too.
    func index(of text: UnsafePointer<UInt8>, _ length: Int) -> Int? {
        for (index, key) in keys.enumerated() where key.count == length {
            let equal = key.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.map { ShortBytes.equal($0, text, length) } ?? (length == 0)
            }
            if equal { return index }
        }
        return nil
    }
}
