/// A parsed key path: the steps from a record's root to one of its values.
///
/// Syntax: segments separated by `.`; `\.` is a dot inside a key and `\\` a backslash; a segment of decimal digits
/// (`0`, `12`, no leading zeros) selects that array element *or* the object member with that key, whichever the
/// input holds; `*` is every element of an array (a list field; `\*` is a key named `*`); `$` alone is the whole
/// record, and a leading `$.` is allowed.
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a key path.
    public struct Segment: Sendable, Hashable {
        /// The object key this step matches, as UTF-8 bytes.
        public var key: [UInt8]
        /// The array index this step matches, when the segment is a decimal number.
        public var index: Int?
        /// Whether this step matches every element of an array (`*`).
        public var isEveryElement = false
    }

    /// The steps, from the root. Empty for the whole record.
    public var segments: [Segment]

    /// The most segments a key path may have: the reader's depth limit (``ReaderOptions/maximumDepth``) is 1,024
    /// by default, and a path refused here costs no work, where one of a hundred thousand segments would cost
    /// gigabytes to compile.
    public static let maximumSegments = 1024

    init(segments: [Segment]) {
        self.segments = segments
    }

    /// Parses a key path as a mapping writes it: `user.screen_name`, `entities.hashtags.0.text`, `tags.*`, `$key`.
    /// - Throws: ``FieldPathSyntaxError`` naming what is wrong: an empty segment, a dangling or unknown escape.
    public init(parsing text: String) throws(FieldPathSyntaxError) {
        var body = Substring(text)
        if body == "$" {
            segments = []
            return
        }
        if body.hasPrefix("$.") { body = body.dropFirst(2) }
        if body.isEmpty { throw FieldPathSyntaxError(message: "the key path is empty (use $ for the whole record)") }
        var segments: [Segment] = []
        var current: [UInt8] = []
        var hadEscape = false
        var iterator = body.utf8.makeIterator()
        func finishSegment() throws(FieldPathSyntaxError) {
            if current.isEmpty { throw FieldPathSyntaxError(message: "key path '\(text)' has an empty segment") }
            if segments.count == Self.maximumSegments {
                // Not quoted: the text may be enormous.
                throw FieldPathSyntaxError(message: "the key path has more than \(Self.maximumSegments) segments; no input can be read that deep")
            }
            let isEveryElement = !hadEscape && current == [UInt8(ascii: "*")]
            segments.append(Segment(key: current, index: hadEscape ? nil : Self.arrayIndex(current), isEveryElement: isEveryElement))
            current.removeAll(keepingCapacity: true)
            hadEscape = false
        }
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "\\"):
                guard let escaped = iterator.next(), escaped == UInt8(ascii: ".") || escaped == UInt8(ascii: "\\") || escaped == UInt8(ascii: "*") else {
                    throw FieldPathSyntaxError(message: "key path '\(text)' has a '\\' that is not followed by '.', '\\' or '*'")
                }
                current.append(escaped)
                hadEscape = true
            case UInt8(ascii: "."):
                try finishSegment()
            default:
                current.append(byte)
            }
        }
        try finishSegment()
        self.segments = segments
    }

    /// Escapes a single key so that it reads as one segment.
    public static func escaped(key: String) -> String {
        if key == "*" { return "\\*" }
        var result = ""
        for character in key {
            if character == "." || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result
    }

    private static func arrayIndex(_ bytes: [UInt8]) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 9, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        if bytes.count > 1 && bytes[0] == 0x30 { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// The path in the form rejections use: `$`, `$.user.name`, `$.media.0.url`, `$.media.*.url`.
    public var description: String {
        segments.reduce("$") { rendered, segment in
            rendered + "." + (segment.isEveryElement ? "*" : FieldPath.escaped(key: String(decoding: segment.key, as: UTF8.self)))
        }
    }

    /// Whether a step matches every element of an array: the path reads a list.
    var readsEveryElement: Bool { segments.contains { $0.isEveryElement } }
}

/// A key path that does not parse.
public struct FieldPathSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    public var description: String { message }
}
