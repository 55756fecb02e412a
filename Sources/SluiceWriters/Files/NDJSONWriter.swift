import Sluice

/// Writes mapped records as NDJSON: one object per record, fields in schema order, null for null values.
public struct NDJSONWriter {
    private let output: FileOutput
    /// Each field's name as a JSON string and a colon, back to back (one buffer, however many fields); field `i`
    /// spans `names[nameEnds[i - 1] ..< nameEnds[i]]`.
    private let names: [UInt8]
    private let nameEnds: [Int]

    /// A writer of records with `fields` to `output`.
    public init(fields: [FieldSpec], output: FileOutput) {
        self.output = output
        var names: [UInt8] = []
        var nameEnds: [Int] = []
        nameEnds.reserveCapacity(fields.count)
        for field in fields {
            Array(field.name.utf8).withUnsafeBufferPointer { JSONText.appendStringLiteral($0, to: &names) }
            names.append(UInt8(ascii: ":"))
            nameEnds.append(names.count)
        }
        self.names = names
        self.nameEnds = nameEnds
    }

    /// Writes the records of `batch` in `rows` (all of them by default).
    public func write(_ batch: ColumnarBatch, rows: Range<Int>? = nil) throws(SluiceError) {
        let columns = batch.columns
        try names.withUnsafeBufferPointer { names throws(SluiceError) in
            for row in rows ?? 0..<batch.count {
                try output.append { buffer in
                    buffer.append(UInt8(ascii: "{"))
                    var nameStart = 0
                    for index in 0..<nameEnds.count {
                        if index > 0 { buffer.append(UInt8(ascii: ",")) }
                        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: names[nameStart ..< nameEnds[index]]))
                        nameStart = nameEnds[index]
                        Self.appendValue(columns[index], row: row, to: &buffer)
                    }
                    buffer.append(UInt8(ascii: "}"))
                    buffer.append(0x0A)
                }
            }
        }
    }

    private static func appendValue(_ column: ColumnStorage, row: Int, to buffer: inout [UInt8]) {
        guard column.isValid(row) else {
            buffer.append(contentsOf: "null".utf8)
            return
        }
        switch column.type {
        case .int64:
            JSONText.appendInteger(column.values.assumingMemoryBound(to: Int64.self)[row], to: &buffer)
        case .double:
            buffer.append(contentsOf: String(column.values.assumingMemoryBound(to: Double.self)[row]).utf8)
        case .bool:
            buffer.append(contentsOf: (column.values.assumingMemoryBound(to: UInt8.self)[row] != 0 ? "true" : "false").utf8)
        case .uint64:
            JSONText.appendInteger(column.values.assumingMemoryBound(to: UInt64.self)[row], to: &buffer)
        case .date:
            buffer.append(UInt8(ascii: "\""))
            DateText.rfc3339(column.values.assumingMemoryBound(to: Int64.self)[row], appendingTo: &buffer)
            buffer.append(UInt8(ascii: "\""))
        case .string, .url, .enumeration:
            JSONText.appendStringLiteral(column.textBytes(row), to: &buffer)
        case .bytes:
            buffer.append(contentsOf: ("\"" + Base64.encode(column.textBytes(row)) + "\"").utf8)
        case .json:
            // Input text may be pretty-printed; a line feed inside would split the NDJSON record.
            JSONText.appendCompact(column.textBytes(row), to: &buffer)
        case .decimal:
            // A JSON number with every digit: readers that keep decimals (Python's parse_float=Decimal, DuckDB's
            // DECIMAL) read it exactly.
            buffer.append(contentsOf: column.textBytes(row))
        }
    }
}
