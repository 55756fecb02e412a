import Sluice

extension MappingSchema {
    /// The mapping with the rules a destination adds, so that a value it cannot hold rejects its record (with the
    /// key path and the raw text, like any rejection) instead of failing the whole run or being stored wrong:
    /// SQLite's integers are signed, so a uint64 above 2^63−1 is refused; PostgreSQL's text and jsonb cannot hold
    /// the character U+0000.
    func restricted(to destination: Destination) throws(SluiceError) -> MappingSchema {
        var fields = self.fields
        switch destination {
        case .sqlite:
            for index in fields.indices where fields[index].type == .uint64 && !fields[index].isList {
                fields[index].validators.append(.maximum(.uint64(UInt64(Int64.max))))
            }
        case .postgres:
            for index in fields.indices {
                let field = fields[index]
                // Lists take no validators: an element holding U+0000 fails the COPY, and the run, with a write error.
                if field.isList { continue }
                if field.type == .json {
                    fields[index].validators.append(.customBytes(name: "no \\u0000 (PostgreSQL jsonb cannot hold it)") { !Self.escapesNUL($0) })
                } else if [.string, .url, .enumeration].contains(field.type) {
                    fields[index].validators.append(.customBytes(name: "no U+0000 (PostgreSQL text cannot hold it)") { !$0.contains(0) })
                }
            }
        default:
            return self
        }
        return try MappingSchema(fields: fields, options: options)
    }

    /// Whether JSON text holds the escape `\u0000` (and not an escaped backslash followed by `u0000`).
    static func escapesNUL(_ json: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index + 5 < json.count {
            if json[index] == UInt8(ascii: "\\") {
                if json[index + 1] == UInt8(ascii: "u") && json[index + 2...index + 5].allSatisfy({ $0 == UInt8(ascii: "0") }) { return true }
                index += 2
            } else {
                index += 1
            }
        }
        return false
    }
}
