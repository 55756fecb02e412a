/// One sampled record as a tree, with numbers kept as their literal text (so that `1.0`, `1` and
/// `18446744073709551616` stay apart, which Foundation's parsers do not keep).
///
/// Only records the engine has already read whole are parsed here (their text comes from a json column), so the
/// reader checks little: it is for a sample of records, not for the input.
indirect enum SampleValue {
    case object([(key: String, value: SampleValue)])
    case array([SampleValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null
    /// A container nested deeper than the sample looks (its text stands for it).
    case deep

    static let maximumDepth = 64

    /// Parses well-formed JSON text.
    init?(jsonText bytes: [UInt8]) {
        var reader = Reader(bytes: bytes)
        guard let value = reader.value(depth: 0) else { return nil }
        self = value
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func skipWhitespace() {
            while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x0A || bytes[position] == 0x0D || bytes[position] == 0x09 {
                position += 1
            }
        }

        mutating func value(depth: Int) -> SampleValue? {
            skipWhitespace()
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if depth >= SampleValue.maximumDepth { return skipContainer() ? .deep : nil }
                return bytes[position] == UInt8(ascii: "{") ? object(depth: depth) : array(depth: depth)
            case UInt8(ascii: "\""): return string().map(SampleValue.string)
            case UInt8(ascii: "t"): position += 4; return .bool(true)
            case UInt8(ascii: "f"): position += 5; return .bool(false)
            case UInt8(ascii: "n"): position += 4; return .null
            default:
                let start = position
                while position < bytes.count, case let byte = bytes[position],
                      (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
                        || byte == UInt8(ascii: ".") || byte | 0x20 == UInt8(ascii: "e") {
                    position += 1
                }
                return position > start ? .number(String(decoding: bytes[start..<position], as: UTF8.self)) : nil
            }
        }

        mutating func object(depth: Int) -> SampleValue? {
            position += 1
            var members: [(key: String, value: SampleValue)] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
            while true {
                skipWhitespace()
                guard let key = string() else { return nil }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                position += 1
                guard let value = value(depth: depth + 1) else { return nil }
                members.append((key, value))
                skipWhitespace()
                guard position < bytes.count else { return nil }
                position += 1
                if bytes[position - 1] == UInt8(ascii: "}") { return .object(members) }
                guard bytes[position - 1] == UInt8(ascii: ",") else { return nil }
            }
        }

        mutating func array(depth: Int) -> SampleValue? {
            position += 1
            var elements: [SampleValue] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipWhitespace()
                guard position < bytes.count else { return nil }
                position += 1
                if bytes[position - 1] == UInt8(ascii: "]") { return .array(elements) }
                guard bytes[position - 1] == UInt8(ascii: ",") else { return nil }
            }
        }

        /// A string literal, unescaped.
        mutating func string() -> String? {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
            let start = position
            position += 1
            while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1
            }
            guard position < bytes.count else { return nil }
            position += 1
            return bytes[start..<position].withContiguousStorageIfAvailable { JSONValue.unescape($0) } ?? nil
        }

        /// Passes over a container nested too deep, strings and all.
        mutating func skipContainer() -> Bool {
            var depth = 0
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\""):
                    guard string() != nil else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { position += 1; return true }
                default: break
                }
                position += 1
            }
            return false
        }
    }
}
