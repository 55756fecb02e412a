import Sluice

/// Values as plain text: the one rendering every text destination shares (CSV and TSV fields, SQLite's date
/// and JSON columns). Integers exactly, doubles in their shortest round-trip form (`-0.0` keeps its sign),
/// Booleans as `true`/`false`, decimals in their canonical text, dates as RFC 3339 in UTC, bytes as standard base64, JSON compacted, lists as
/// their JSON array text, and text as it is.
extension ColumnarBatch.Column {
    /// Appends the text of the value in `row` to `buffer`; returns `false`, appending nothing, for a null.
    @discardableResult
    public func appendText(_ row: Int, to buffer: inout [UInt8]) -> Bool {
        precondition(row >= 0 && row < batch.count, "row \(row) is outside the batch's \(batch.count) records")
        let column = batch.columns[index]
        guard column.isValid(row) else { return false }
        switch column.type {
        case .int64:
            JSONText.appendInteger(column.values.assumingMemoryBound(to: Int64.self)[row], to: &buffer)
        case .uint64:
            JSONText.appendInteger(column.values.assumingMemoryBound(to: UInt64.self)[row], to: &buffer)
        case .double:
            buffer.append(contentsOf: String(column.values.assumingMemoryBound(to: Double.self)[row]).utf8)
        case .bool:
            buffer.append(contentsOf: (column.values.assumingMemoryBound(to: UInt8.self)[row] != 0 ? "true" : "false").utf8)
        case .date:
            DateText.rfc3339(column.values.assumingMemoryBound(to: Int64.self)[row], appendingTo: &buffer)
        case .string, .url, .enumeration, .decimal:
            buffer.append(contentsOf: column.textBytes(row))
        case .bytes:
            buffer.append(contentsOf: Base64.encode(column.textBytes(row)).utf8)
        case .json:
            JSONText.appendCompact(column.textBytes(row), to: &buffer)
        }
        return true
    }
}
