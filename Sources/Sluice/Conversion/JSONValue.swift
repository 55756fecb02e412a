/// A JSON value as a typed transform receives it.
public enum JSONValue: Sendable, Hashable {
    /// A string, unescaped.
    case string(String)
    /// A number as its literal text (`0.10`, `190957570511478800`), exact.
    case number(String)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// An object, as its JSON text.
    case object(json: String)
    /// An array, as its JSON text.
    case array(json: String)

    /// Reads the JSON text of one value, as a json column holds it.
    init?(jsonText bytes: UnsafeBufferPointer<UInt8>) {
        guard let first = bytes.first else { return nil }
        switch first {
        case UInt8(ascii: "\""):
            guard let text = JSONValue.unescape(bytes) else { return nil }
            self = .string(text)
        case UInt8(ascii: "{"): self = .object(json: String(decoding: bytes, as: UTF8.self))
        case UInt8(ascii: "["): self = .array(json: String(decoding: bytes, as: UTF8.self))
        case UInt8(ascii: "t"): self = .bool(true)
        case UInt8(ascii: "f"): self = .bool(false)
        case UInt8(ascii: "n"): self = .null
        default: self = .number(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The value as JSON text, as a json column holds it.
    var jsonText: String {
        switch self {
        case .string(let text):
            var literal: [UInt8] = []
            var text = text
            text.withUTF8 { JSONText.appendStringLiteral($0, to: &literal) }
            return String(decoding: literal, as: UTF8.self)
        case .number(let literal): return literal
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .object(let json), .array(let json): return json
        }
    }

    /// The byte a one-character escape stands for: `\n` `\r` `\t` `\b` `\f` their control characters, and `\"`
    /// `\\` `\/` (or any other byte, which a parser has refused already) themselves.
    static func byte(escapedBy letter: UInt8) -> UInt8 {
        switch letter {
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        default: letter
        }
    }

    /// The content of a JSON string literal.
    static func unescape(_ literal: UnsafeBufferPointer<UInt8>) -> String? {
        var output: [UInt8] = []
        output.reserveCapacity(literal.count)
        guard JSONText.appendUnescaped(literal, { output.append($0) }) else { return nil }
        return String(decoding: output, as: UTF8.self)
    }
}

/// A failure a transform or a finishing hook reports; its message goes into the rejection.
public struct MappingFailure: Error, Sendable, CustomStringConvertible {
    /// What the rejection says.
    public var message: String
    /// A failure saying `message`.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Literals for null spellings and transform results: `""` a string, `0` and `0.5` numbers, `false` a Boolean.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .number(String(value)) }
    public init(floatLiteral value: Double) { self = .number(String(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
