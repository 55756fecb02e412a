/// Rejections as JSON objects: one line of a rejects file, or the failures column of a database's rejects table.
extension Rejection {
    /// `{"source":…,"ordinal":…,"line":…,"byte_offset":…,"failures":[…],"raw":…}`. The raw text is kept byte
    /// for byte: as a string when it is valid UTF-8, else as `"raw_base64"`, since JSON text cannot hold other
    /// bytes.
    public func jsonText(source: String) -> String {
        var text = "{\"source\":" + Self.quoted(source) + ",\"ordinal\":\(location.ordinal),\"line\":\(location.line),"
        text += "\"byte_offset\":\(location.byteOffset),\"failures\":" + failuresJSONText
        if let raw = String(validating: rawText, as: UTF8.self) {
            text += ",\"raw\":" + Self.quoted(raw)
        } else {
            text += ",\"raw_base64\":\"" + rawText.withUnsafeBufferPointer { Base64.encode($0) } + "\""
        }
        if isRawTextTruncated { text += ",\"raw_truncated\":true" }
        return text + "}"
    }

    /// `[{"path":…,"kind":…,"expected":…,"found":…,"at_byte":…}, …]`
    public var failuresJSONText: String {
        "[" + failures.map { failure in
            var item = "{\"path\":" + Self.quoted(failure.keyPath) + ",\"kind\":" + Self.quoted(failure.kind.rawValue)
            item += ",\"expected\":" + Self.quoted(failure.expected) + ",\"found\":" + Self.quoted(failure.found)
            if let offset = failure.byteOffset { item += ",\"at_byte\":\(offset)" }
            return item + "}"
        }.joined(separator: ",") + "]"
    }

    private static func quoted(_ text: String) -> String { JSONText.stringLiteral(text) }
}
