import Foundation
import Sluice
import SluiceImport

/// Writes a ``SinkCase`` through the importer, as a user runs it, into SQLite, CSV (or TSV) and Parquet, and checks
/// what can be checked without reading the files: each import ends well and accounts for every record (read =
/// written + rejected; only SQLite may reject, an unsigned integer beyond its range).
///
/// Whether the files hold the right values is for readers Sluice does not control: ``write(_:into:)`` leaves the
/// three files (with child tables, a CSV and a Parquet file per table) beside `case.json` (the columns and
/// settings) and `expected.tsv` (every value as Sluice's reader mapped it, a child table's column as the list of its
/// elements), which `Tests/SinkCases/check_sinks.py` reads back through sqlite3, Python's csv module, pyarrow and
/// DuckDB. Cases with child tables key their records by `rid`, which SQLite upserts on.
public enum SinkCaseRun {
    /// A run that did not end well, or lost count of its records.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Imports the case `bytes` describe into `directory` (made if need be) and writes what the checker needs.
    public static func write(_ bytes: [UInt8], into directory: String) throws {
        var source = ChoiceBytes(bytes)
        let generated = SinkCase(&source)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let input = directory + "/input.ndjson"
        try Data(generated.ndjson.utf8).write(to: URL(fileURLWithPath: input))
        let schema: MappingSchema
        var options = MappingOptions()
        if generated.hasTables { options.key = ["rid"] }
        do {
            schema = try MappingSchema(fields: generated.fields(tables: true), options: options)
        } catch {
            throw Failure(description: "the generated mapping was refused: \(error)")
        }
        let destinations: [Destination] = [.sqlite(path: directory + "/out.db"), .csv(path: directory + "/out.csv", delimiter: generated.delimiter),
                                           .parquet(path: directory + "/out.parquet")]
        for destination in destinations {
            let isSQLite = if case .sqlite = destination { true } else { false }
            let keyed = isSQLite && generated.hasTables
            var job = ImportJob(inputs: [input], schemas: [schema], tables: [TableLayout(name: "t", fields: schema.fields, keyColumns: keyed ? [0] : [])],
                                destination: destination)
            job.readerOptions = ReaderOptions(batchCapacity: generated.batchCapacity, rejectionPolicy: .collect, workers: generated.workers)
            job.ifExists = .replace
            job.recordsPerCommit = generated.recordsPerCommit
            job.dateStorage = generated.dateStorage
            job.nullText = SinkCase.nullText
            job.parquet.pageBytes = generated.pageBytes
            job.parquet.rowGroupBytes = generated.rowGroupBytes
            job.parquet.compression = generated.compression
            let summary = Importer(job).run()
            switch summary.outcome {
            case .complete: break
            case .someRejected where isSQLite: break
            default: throw Failure(description: "\(destination): \(summary.outcome) (\(summary.line))")
            }
            guard summary.recordsRead == generated.count && summary.recordsWritten + summary.recordsRejected == summary.recordsRead else {
                throw Failure(description: "\(destination) did not account for its \(generated.count) records: \(summary.line)")
            }
        }
        try Data(expectedRows(input, schema: MappingSchema(fields: generated.fields(tables: false))).utf8).write(to: URL(fileURLWithPath: directory + "/expected.tsv"))
        try Data(generated.description.utf8).write(to: URL(fileURLWithPath: directory + "/case.json"))
    }

    /// Every record as Sluice's reader maps it, one tab-separated token per column (the tokens of
    /// `Tests/ParquetReaders/read_values.py`; json as `j:`, a list as `L:` and the hex of its JSON array text).
    static func expectedRows(_ input: String, schema: MappingSchema) throws -> String {
        var text = ""
        let reader = try ColumnarReader(input: .file(input), schema: schema, options: ReaderOptions(rejectionPolicy: .collect))
        while let batch = try reader.next() {
            guard batch.rejections.isEmpty else { throw Failure(description: "the reader rejected a generated record: \(batch.rejections)") }
            for row in 0..<batch.count {
                text += schema.fields.indices.map { token(batch.column($0), row: row) }.joined(separator: "\t") + "\n"
            }
        }
        return text
    }

    static func token(_ column: ColumnarBatch.Column, row: Int) -> String {
        if column.isNull(row) { return "null" }
        let text = { column.withUTF8(row) { Array($0 ?? UnsafeBufferPointer(start: nil, count: 0)) } }
        if column.field.path?.hasSuffix("*") == true { return "L:" + hex(text()) }
        switch column.field.type {
        case .int64: return "i:\(column.int64(row) ?? 0)"
        case .uint64: return "i:\(column.uint64(row) ?? 0)"
        case .double: return "d:\(Int64(bitPattern: (column.double(row) ?? 0).bitPattern))"
        case .bool: return column.bool(row) == true ? "b:true" : "b:false"
        case .date: return "t:\(column.dateNanoseconds(row) ?? 0)"
        case .string, .url, .enumeration: return "s:" + hex(text())
        case .json: return "j:" + hex(text())
        case .decimal: return "n:" + String(decoding: text(), as: UTF8.self)
        case .bytes: return "x:" + hex(column.bytes(row) ?? [])
        }
    }

    /// The bytes as lower-case hexadecimal: the form of text and bytes in read_values.py's tokens.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
