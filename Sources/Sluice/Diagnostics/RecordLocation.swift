/// Where a record sits in its input.
public struct RecordLocation: Sendable, Hashable, CustomStringConvertible {
    /// The record's 1-based position among all records read from the input, mapped or rejected.
    public var ordinal: Int
    /// The 1-based line on which the record's first byte sits.
    public var line: Int
    /// The 0-based byte offset of the record's first byte (a UTF-8 byte order mark counts as input).
    public var byteOffset: Int

    /// A location from its ordinal, line and byte offset.
    public init(ordinal: Int, line: Int, byteOffset: Int) {
        self.ordinal = ordinal
        self.line = line
        self.byteOffset = byteOffset
    }

    public var description: String { "record \(ordinal) (line \(line), byte \(byteOffset))" }
}
