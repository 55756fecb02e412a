import Sluice
import Foundation

/// Writes mapped records to a Parquet file: one column per field, in row groups of about
/// ``ParquetOptions/rowGroupBytes``, with the logical types pyarrow, DuckDB, polars and Spark read without hints.
///
/// The file is written front to back (a row group at a time, the footer at ``finish()``). Memory holds the page
/// each column is filling and its dictionary; finished pages wait in an unnamed file beside the output until their
/// row group is written out. The output decides whether an unfinished file stays: a ``FileOutput`` opened
/// with ``FileOutput/init(path:ifExists:)`` appears under its name only when committed after ``finish()``.
///
/// | field type | Parquet |
/// |---|---|
/// | int64 | `INT64`, `INT(64, signed)` |
/// | uint64 | `INT64`, `INT(64, unsigned)` |
/// | double | `DOUBLE` |
/// | bool | `BOOLEAN` |
/// | date | `INT64`, `TIMESTAMP(isAdjustedToUTC=true, NANOS)` (or `MICROS`, see ``ParquetOptions/timestampUnit``) |
/// | string, url | `BYTE_ARRAY`, `STRING` |
/// | json | `BYTE_ARRAY`, `JSON` |
/// | bytes | `BYTE_ARRAY` |
/// | enum | `INT64` or `DOUBLE` when every stored value is an integer or a number, else `STRING` |
/// | list of T | the three-level `LIST` of T: an optional group, a repeated group `list`, a required `element` |
public final class ParquetWriter {
    /// The columns, in order.
    public let fields: [FieldSpec]
    private let output: FileOutput
    private let options: ParquetOptions
    private let compressor: PageCompressor
    private let spill: PageSpill
    private var columns: [ParquetColumnWriter]
    private var rowGroups: [ParquetMetadata.RowGroup] = []
    private var rowGroupRows = 0
    /// Rows written in finished row groups and the one being built.
    public private(set) var rowCount = 0
    /// Bytes handed to the output so far (the current row group's pages are not among them until it ends).
    public private(set) var bytesWritten = 0
    private var isFinished = false
    private var rowGroupUncompressedBytes = 0

    /// About how large the file will be if it ends now: what is written, and the row group in progress at the
    /// compression ratio of those before it (uncompressed before the first).
    public var estimatedFileBytes: Int {
        let buffered = bufferedBytes
        guard rowGroupUncompressedBytes > 0 else { return bytesWritten + buffered }
        return bytesWritten + Int(Double(buffered) * Double(bytesWritten) / Double(rowGroupUncompressedBytes))
    }

    private static let magic: [UInt8] = Array("PAR1".utf8)
    /// Rows are added in slices of this many between row-group size checks.
    private static let rowsPerSlice = 1024

    /// A writer of records with `fields` to `output`; the file's first bytes are written at once.
    public init(fields: [FieldSpec], output: FileOutput, options: ParquetOptions = ParquetOptions()) throws(SluiceError) {
        guard !fields.isEmpty else { throw .invalidOptions("a Parquet file needs at least one column") }
        guard options.rowGroupBytes > 0, options.pageBytes > 0, options.dictionaryBytes >= 0 else {
            throw .invalidOptions("Parquet row group, page and dictionary sizes must be positive")
        }
        self.fields = fields
        self.output = output
        self.options = options
        let compressor = PageCompressor(options.compression)
        self.compressor = compressor
        let spill = try PageSpill(directory: output.directory ?? FileManager.default.temporaryDirectory.path, for: output.name)
        self.spill = spill
        columns = fields.map {
            ParquetColumnWriter(layout: ParquetColumnLayout(field: $0, timestampUnit: options.timestampUnit), options: options,
                                compressor: compressor, spill: spill)
        }
        try output.write(Self.magic)
        bytesWritten = Self.magic.count
    }

    /// Adds the records of `batch` in `rows` (all of them by default). The batch must have the writer's fields.
    public func write(_ batch: ColumnarBatch, rows: Range<Int>? = nil) throws(SluiceError) {
        guard !isFinished else { throw .invalidOptions("the Parquet file is finished: no more rows can be written") }
        guard batch.fields.count == fields.count else {
            throw .invalidOptions("a batch of \(batch.fields.count) columns cannot go into a Parquet file of \(fields.count)")
        }
        let rows = rows ?? 0..<batch.count
        var start = rows.lowerBound
        while start < rows.upperBound {
            let end = min(start + Self.rowsPerSlice, rows.upperBound)
            for index in columns.indices {
                try columns[index].append(batch.columns[index], rows: start..<end)
            }
            rowGroupRows += end - start
            rowCount += end - start
            start = end
            if bufferedBytes >= options.rowGroupBytes { try endRowGroup() }
        }
    }

    /// Writes the last row group and the footer. The output is flushed but not committed: that is the caller's.
    public func finish() throws(SluiceError) {
        guard !isFinished else { return }
        try endRowGroup()
        isFinished = true
        let schema = [ParquetMetadata.SchemaNode(name: "schema", childCount: fields.count)] + columns.flatMap(\.layout.schemaNodes)
        let footer = ParquetMetadata.fileMetadata(schema: schema, rowGroups: rowGroups, rowCount: Int64(rowCount),
                                                  leafCount: columns.count, createdBy: "sluice")
        var tail = footer
        let length = UInt32(footer.count)
        tail += (0..<4).map { UInt8(truncatingIfNeeded: length >> ($0 * 8)) }
        tail += Self.magic
        try output.write(tail)
        bytesWritten += tail.count
        try output.flush()
    }

    /// About how many bytes the row group in progress holds before compression.
    private var bufferedBytes: Int { columns.reduce(0) { $0 + $1.bufferedSize } }

    private func endRowGroup() throws(SluiceError) {
        guard rowGroupRows > 0 else { return }
        let start = bytesWritten
        var chunks: [ParquetMetadata.ColumnChunk] = []
        for index in columns.indices {
            let chunk = try columns[index].writeChunk(to: output, at: bytesWritten)
            bytesWritten += Int(chunk.compressedSize)
            chunks.append(chunk)
        }
        rowGroups.append(ParquetMetadata.RowGroup(
            columns: chunks, uncompressedSize: chunks.reduce(0) { $0 + $1.uncompressedSize }, rowCount: Int64(rowGroupRows),
            fileOffset: Int64(start), compressedSize: Int64(bytesWritten - start), ordinal: rowGroups.count))
        rowGroupUncompressedBytes += Int(rowGroups[rowGroups.count - 1].uncompressedSize)
        rowGroupRows = 0
        try spill.removeAll()
    }
}
