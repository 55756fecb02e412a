import Foundation
import Sluice

/// COPY's binary format, as PostgreSQL's `COPY … FROM STDIN (FORMAT binary)` reads it: a signature, then per row a
/// field count and each field as a big-endian length (−1 for NULL) and the type's binary form, then −1.
///
/// Chosen over the text format because the server then parses no numbers, timestamps or escapes: measured on the
/// generated tweets (docs/benchmarks.md), the text format cost the client about half a second of formatting per
/// 256 MiB and the server more than the binary one, on the same two cores.
enum PostgresBinaryCopy {
    /// How one column's values are written; each column type has one form.
    enum Encoding {
        case bigint, numeric, double, boolean, timestamptz, text, bytea, jsonb
        /// A decimal: the batch holds its canonical text, sent in numeric's binary form.
        case decimal
        /// An enum whose stored values are integers or numbers, held in the column as their text.
        case enumBigint, enumDouble
    }

    static let signature: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]
    static let trailer: [UInt8] = [0xFF, 0xFF]

    /// Microseconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01, both UTC.
    private static let epochOffsetMicroseconds: Int64 = 946_684_800 * 1_000_000

    static func appendInt16(_ value: Int16, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
    }

    static func appendInt32(_ value: Int32, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
    }

    static func appendInt64(_ value: Int64, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
    }

    static func appendNull(to buffer: inout [UInt8]) {
        appendInt32(-1, to: &buffer)
    }

    /// Appends a field of 8 bytes.
    static func appendWord(_ value: Int64, to buffer: inout [UInt8]) {
        appendInt32(8, to: &buffer)
        appendInt64(value, to: &buffer)
    }

    /// Appends the value in `row` of `column` (not null) as `encoding` says.
    static func appendField(_ column: ColumnarBatch.Column, row: Int, as encoding: Encoding, to buffer: inout [UInt8]) {
        switch encoding {
        case .bigint:
            appendWord(column.int64(row) ?? 0, to: &buffer)
        case .double:
            appendWord(Int64(bitPattern: (column.double(row) ?? 0).bitPattern), to: &buffer)
        case .boolean:
            appendInt32(1, to: &buffer)
            buffer.append(column.bool(row) == true ? 1 : 0)
        case .timestamptz:
            appendWord(microseconds(nanoseconds: column.dateNanoseconds(row) ?? 0) - epochOffsetMicroseconds, to: &buffer)
        case .numeric:
            appendNumeric(column.uint64(row) ?? 0, to: &buffer)
        case .decimal:
            column.withUTF8(row) { text in appendNumeric(text: text ?? UnsafeBufferPointer(start: nil, count: 0), to: &buffer) }
        case .text, .bytea:
            column.withUTF8(row) { bytes in
                let bytes = bytes ?? UnsafeBufferPointer(start: nil, count: 0)
                appendInt32(Int32(bytes.count), to: &buffer)
                buffer.append(contentsOf: bytes)
            }
        case .jsonb:
            // jsonb's binary form is a version byte and the JSON text; its length is known once the text is written.
            let lengthAt = buffer.count
            appendInt32(0, to: &buffer)
            buffer.append(1)
            column.appendText(row, to: &buffer)
            let length = Int32(buffer.count - lengthAt - 4).bigEndian
            withUnsafeBytes(of: length) { bytes in
                for index in 0..<4 { buffer[lengthAt + index] = bytes[index] }
            }
        case .enumBigint, .enumDouble:
            column.withUTF8(row) { text in
                let text = text ?? UnsafeBufferPointer(start: nil, count: 0)
                if case .enumBigint = encoding, let integer = integer(text) {
                    appendWord(integer, to: &buffer)
                } else {
                    appendWord(Int64(bitPattern: (number(text) ?? 0).bitPattern), to: &buffer)
                }
            }
        }
    }

    /// Nanoseconds rounded to the nearest microsecond, ties to even, as PostgreSQL rounds a timestamp's text.
    static func microseconds(nanoseconds: Int64) -> Int64 {
        let (quotient, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1000)
        // Floored, then rounded: the remainder as 0..<1000 whatever the sign.
        let floor = remainder < 0 ? quotient - 1 : quotient
        let rest = remainder < 0 ? remainder + 1000 : remainder
        if rest > 500 || (rest == 500 && floor & 1 == 1) { return floor + 1 }
        return floor
    }

    /// An unsigned integer as numeric, through its decimal text (on the stack: this runs for every value).
    static func appendNumeric(_ value: UInt64, to buffer: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            appendNumeric(text: UnsafeBufferPointer(rebasing: digits[start...]), to: &buffer)
        }
    }

    /// numeric's binary form of a number's plain text (an optional minus, digits, optionally a point and digits):
    /// the number of base-10,000 digits, the weight of the first, a sign, the display scale (the text's digits
    /// after the point), then the digits, most significant first, without leading or trailing zero digits.
    static func appendNumeric(text: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        let isNegative = text.first == UInt8(ascii: "-")
        let body = UnsafeBufferPointer(rebasing: text[(isNegative ? 1 : 0)...])
        let point = body.firstIndex(of: UInt8(ascii: ".")) ?? body.endIndex
        let integerCount = point - body.startIndex
        let scale = point < body.endIndex ? body.endIndex - point - 1 : 0
        // Decimal digit i of the number counts from the point: integer digits at negative i, fraction at 0 and up.
        func digit(_ index: Int) -> Int16 {
            if index < 0 {
                let position = integerCount + index
                return position >= 0 ? Int16(body[body.startIndex + position] &- 0x30) : 0
            }
            return index < scale ? Int16(body[point + 1 + index] &- 0x30) : 0
        }
        // Base-10,000 digits aligned on the point: group g covers decimal digits 4g ..< 4g + 4 after the point
        // (negative groups before it).
        let firstGroup = -((integerCount + 3) / 4)
        let endGroup = (scale + 3) / 4
        withUnsafeTemporaryAllocation(of: Int16.self, capacity: endGroup - firstGroup) { groups in
            var count = 0
            var weight = 0
            for group in firstGroup..<endGroup {
                let value = (0..<4).reduce(Int16(0)) { $0 * 10 + digit(group * 4 + $1) }
                if count == 0 && value == 0 { continue }
                if count == 0 { weight = -group - 1 }
                groups[count] = value
                count += 1
            }
            while count > 0 && groups[count - 1] == 0 { count -= 1 }
            appendInt32(Int32(8 + 2 * count), to: &buffer)
            appendInt16(Int16(count), to: &buffer)
            appendInt16(Int16(count == 0 ? 0 : weight), to: &buffer)
            appendInt16(isNegative && count > 0 ? 0x4000 : 0, to: &buffer)
            appendInt16(Int16(scale), to: &buffer)
            for index in 0..<count { appendInt16(groups[index], to: &buffer) }
        }
    }

    /// The integer an enum's stored value spells, read from its text without making a `String`.
    private static func integer(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative || text.first == UInt8(ascii: "+") { index = 1 }
        guard index < text.count else { return nil }
        var value: Int64 = 0
        while index < text.count {
            let digit = text[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = negative ? times.subtractingReportingOverflow(Int64(digit)) : times.addingReportingOverflow(Int64(digit))
            guard !overflowA && !overflowB else { return nil }
            value = sum
            index += 1
        }
        return value
    }

    /// The number an enum's stored value spells (`strtod` over a copy on the stack, NUL-terminated).
    private static func number(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: text.count + 1) { copy in
            for index in text.indices { copy[index] = CChar(bitPattern: text[index]) }
            copy[text.count] = 0
            guard let start = copy.baseAddress else { return nil }
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(start, &end)
            return end == start + text.count && !text.isEmpty ? value : nil
        }
    }
}
