import Sluice

/// Writes mapped records as CSV (RFC 4180) or TSV: a header row of the field names, then one row per record.
///
/// Values are written by `ColumnarBatch.Column.appendText(_:to:)`. A field is quoted when it holds the delimiter,
/// a quote, a carriage return or a line feed (quotes doubled inside), and when it is empty text, so that an empty
/// string and a null (an empty field, or the null text you choose) stay apart. Rows end with CRLF for CSV, as
/// RFC 4180 says, and LF for TSV. TSV has no quoting in its convention; the same quoting is used, so that any text
/// round-trips through readers that follow RFC 4180 with a tab delimiter.
public struct CSVWriter {
    private let output: FileOutput
    private let delimiter: UInt8
    private let lineEnd: [UInt8]
    private let nullText: [UInt8]

    /// A writer of records with `fields` to `output`, which writes the header row at once.
    /// - Parameters:
    ///   - fields: The columns, in order.
    ///   - output: The file the rows go to.
    ///   - delimiter: `,` for CSV, a tab for TSV.
    ///   - nullText: What a null is written as (empty by default).
    ///   - writesHeader: Whether to write the header row (not when appending to a file that has one).
    public init(fields: [FieldSpec], output: FileOutput, delimiter: UInt8 = UInt8(ascii: ","), nullText: String = "", writesHeader: Bool = true) throws(SluiceError) {
        self.output = output
        self.delimiter = delimiter
        lineEnd = delimiter == UInt8(ascii: ",") ? [0x0D, 0x0A] : [0x0A]
        self.nullText = Array(nullText.utf8)
        guard writesHeader else { return }
        var header: [UInt8] = []
        for (index, field) in fields.enumerated() {
            if index > 0 { header.append(delimiter) }
            appendField(Array(field.name.utf8)[...], to: &header)
        }
        header += lineEnd
        try header.withUnsafeBufferPointer { bytes throws(SluiceError) in try output.write(bytes) }
    }

    /// Writes the records of `batch` in `rows` (all of them by default).
    public func write(_ batch: ColumnarBatch, rows: Range<Int>? = nil) throws(SluiceError) {
        let columns = (0..<batch.fields.count).map { batch.column($0) }
        var value: [UInt8] = []
        for row in rows ?? 0..<batch.count {
            try output.append { buffer in
                for (index, column) in columns.enumerated() {
                    if index > 0 { buffer.append(delimiter) }
                    value.removeAll(keepingCapacity: true)
                    if column.appendText(row, to: &value) {
                        appendField(value[...], to: &buffer)
                    } else {
                        buffer += nullText
                    }
                }
                buffer += lineEnd
            }
        }
    }

    private func needsQuotes(_ value: ArraySlice<UInt8>) -> Bool {
        value.isEmpty || value.contains { $0 == delimiter || $0 == UInt8(ascii: "\"") || $0 == 0x0D || $0 == 0x0A }
    }

    private func appendField(_ value: ArraySlice<UInt8>, to line: inout [UInt8]) {
        guard needsQuotes(value) else {
            line += value
            return
        }
        line.append(UInt8(ascii: "\""))
        for byte in value {
            if byte == UInt8(ascii: "\"") { line.append(byte) }
            line.append(byte)
        }
        line.append(UInt8(ascii: "\""))
    }
}
