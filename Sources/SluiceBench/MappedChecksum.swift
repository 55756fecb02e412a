import Sluice

/// The checksum of a user's mapping, which Sluice, msgspec, DuckDB and the `Decodable` model each compute over the
/// records they read (the Python side in `ForeignMappedScripts`). Per record, field `k` (from 0) adds its value's
/// number times `2k + 1`:
///
/// - null or missing: 0
/// - an integer: itself (an unsigned one as the signed integer of its bits); a Boolean: 2 for true, 1 for false
/// - text: its UTF-8 bytes plus 1; bytes: their decoded count plus 1; a list: its elements plus 1
/// - a date: its whole seconds since 1970 (floored); a double or a json value: 1 (reading it is the work; its digits
///   or spacing are not compared, which each tool writes its own way)
///
/// Sums wrap at 64 bits, the same in every language.
extension MappedFields {
    /// The checksum's number for the record in `row` of `batch`, mapped by these fields.
    public func recordSum(_ batch: ColumnarBatch, row: Int) -> Int64 {
        var sum: Int64 = 0
        for (index, field) in fields.enumerated() {
            let column = batch.column(index)
            guard !column.isNull(row) else { continue }
            let value: Int64
            if field.steps.last == .every {
                value = Int64(column.withUTF8(row) { Self.elementCount($0) }) + 1
            } else {
                switch field.kind {
                case .integer: value = column.int64(row) ?? 0
                case .unsigned: value = Int64(bitPattern: column.uint64(row) ?? 0)
                case .double, .json: value = 1
                case .bool: value = column.bool(row) == true ? 2 : 1
                case .text: value = Int64(column.withUTF8(row) { $0?.count ?? 0 }) + 1
                case .bytes: value = Int64(column.bytes(row)?.count ?? 0) + 1
                case .date:
                    let nanoseconds = column.dateNanoseconds(row) ?? 0
                    value = nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : (nanoseconds + 1) / 1_000_000_000 - 1
                }
            }
            sum = sum &+ value &* Int64(2 * index + 1)
        }
        return sum
    }

    /// The elements of a list column's JSON array text: its commas outside strings and nested values, plus one.
    static func elementCount(_ text: UnsafeBufferPointer<UInt8>?) -> Int {
        guard let text else { return 0 }
        var depth = 0
        var inString = false
        var escaped = false
        var commas = 0
        var sawValue = false
        for byte in text {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true; sawValue = sawValue || depth == 1
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                if depth == 1 { sawValue = true }
                depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            case UInt8(ascii: ","): if depth == 1 { commas += 1 }
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): break
            default: if depth == 1 { sawValue = true }
            }
        }
        return sawValue ? commas + 1 : 0
    }
}
