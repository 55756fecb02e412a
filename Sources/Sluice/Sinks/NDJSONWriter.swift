/// Writes mapped records as NDJSON: one object per record, fields in schema order, null for null values.
public struct NDJSONWriter {
    private let output: FileOutput
    private let names: [[UInt8]]

    /// A writer of records with `fields` to `output`.
    public init(fields: [FieldSpec], output: FileOutput) {
        self.output = output
        names = fields.map { field in
            var encoded: [UInt8] = []
            Array(field.name.utf8).withUnsafeBufferPointer { JSONText.appendStringLiteral($0, to: &encoded) }
            encoded.append(UInt8(ascii: ":"))
            return encoded
        }
    }

    /// Writes every record of `batch`.
    public func write(_ batch: ColumnarBatch) throws(SluiceError) {
        for row in 0..<batch.count {
            output.write(byte: UInt8(ascii: "{"))
            for index in 0..<names.count {
                if index > 0 { output.write(byte: UInt8(ascii: ",")) }
                try names[index].withUnsafeBufferPointer { (name) throws(SluiceError) in try output.write(name) }
                try writeValue(batch.columns[index], row: row)
            }
            try output.write("}\n")
        }
    }

    private func writeValue(_ column: ColumnStorage, row: Int) throws(SluiceError) {
        guard column.isValid(row) else { return try output.write("null") }
        switch column.type {
        case .int64:
            try output.write(String(column.values.assumingMemoryBound(to: Int64.self)[row]))
        case .double:
            try output.write(String(column.values.assumingMemoryBound(to: Double.self)[row]))
        case .bool:
            try output.write(column.values.assumingMemoryBound(to: UInt8.self)[row] != 0 ? "true" : "false")
        case .uint64:
            try output.write(String(column.values.assumingMemoryBound(to: UInt64.self)[row]))
        case .date:
            try output.write("\"" + DateText.rfc3339(column.values.assumingMemoryBound(to: Int64.self)[row]) + "\"")
        case .string, .url, .enumeration:
            JSONText.appendStringLiteral(column.textBytes(row)) { output.write(byte: $0) }
        case .bytes:
            try output.write("\"" + Base64.encode(column.textBytes(row)) + "\"")
        case .json:
            // Input text may be pretty-printed; a line feed inside would split the NDJSON record.
            JSONText.appendCompact(column.textBytes(row)) { output.write(byte: $0) }
        }
    }
}
