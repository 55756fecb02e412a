import Sluice

extension MappingSchema {
    /// The mapping with the rules a destination adds, so that a value it cannot hold rejects its record (with the
    /// key path and the raw text, like any rejection) instead of failing the whole run or being stored wrong:
    /// SQLite's integers are signed, so a uint64 above 2^63−1 is refused; PostgreSQL's text and jsonb cannot hold
    /// the character U+0000.
    func restricted(to destination: Destination) throws(SluiceError) -> MappingSchema {
        var fields = self.fields
        Self.restrict(&fields, to: destination.kind)
        return try MappingSchema(fields: fields, options: options)
    }

    /// The columns are restricted, and a child table's own columns, not the field that holds its array.
    private static func restrict(_ fields: inout [FieldSpec], to kind: DestinationKind) {
        let columns = fields.indices.filter { fields[$0].childTable == nil }
        var restricted = columns.map { fields[$0] }
        kind.restrict(&restricted)
        for (index, column) in columns.enumerated() { fields[column] = restricted[index] }
        for index in fields.indices {
            guard var table = fields[index].childTable else { continue }
            restrict(&table.fields, to: kind)
            fields[index].childTable = table
        }
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
