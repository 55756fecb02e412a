import Sluice
import SluiceWriters

/// Everything an import needs: inputs, mappings and their tables, the destination and how to read and write.
public struct ImportJob: Sendable {
    /// Input files; `-` is standard input.
    public var inputs: [String]
    /// One mapping per table, in the order of ``tables``.
    public var schemas: [MappingSchema]
    /// One table per mapping.
    public var tables: [TableLayout]
    /// Where the tables are written.
    public var destination: Destination
    /// How inputs are read. The rejection policy is always `RejectionPolicy.collect`: the import decides when
    /// rejections end the run (``rejectLimit``).
    public var readerOptions = ReaderOptions()
    /// What to do with a table or file that exists already.
    public var ifExists = FileOutput.ExistingFile.fail
    /// Continue an interrupted import into the same database from its last checkpoint.
    public var resumes = false
    /// How many rejected records end the run.
    public var rejectLimit: RejectLimit?
    /// Only the first this many records of each input (of each record type, with several mappings) are read,
    /// written or rejected; reading stops there. An input read so is not complete: `--resume` reads the rest.
    public var recordLimit: Int?
    /// How SQLite stores dates.
    public var dateStorage = DateStorage.text
    /// What the text destinations (CSV, TSV) write for a null.
    public var nullText = ""
    /// A transaction is committed, with its checkpoint, at least this often (in records) and once a second.
    public var recordsPerCommit = 100_000
    /// PostgreSQL: how long an import waits for another import into the same table (or for the server to end the
    /// transaction of one that was killed) before it fails.
    public var lockWaitSeconds = 30
    /// Compressed input: a database commits only records whose gzip member, zstd frame, bzip2 or xz stream has passed its check,
    /// and rolls back to the last commit when one fails (or the run stops) before that, so that a damaged frame
    /// leaves none of the records it seemed to hold. A frame as large as the input makes the import one
    /// transaction. When false, commits come as for uncompressed input and may hold records of a frame that later
    /// fails its check. Files are written whole or not at all either way.
    public var verifiesFrames = true
    /// How Parquet files are laid out: compression, row group and page sizes, the timestamp unit.
    public var parquet = ParquetOptions()
    /// A Parquet directory's part files end after this many rows (`--max-file-rows`).
    public var maxFileRows: Int?
    /// A Parquet directory's part files end once about this many bytes long (`--max-file-bytes`).
    public var maxFileBytes: Int?

    /// A job importing `inputs` through `schemas` into `tables` (one per schema) at `destination`, with every other
    /// setting at its default.
    public init(inputs: [String], schemas: [MappingSchema], tables: [TableLayout], destination: Destination) {
        self.inputs = inputs
        self.schemas = schemas
        self.tables = tables
        self.destination = destination
    }
}

/// When rejections end an import: after more than a number of them, or more than a share of the records read.
public enum RejectLimit: Sendable, Hashable, CustomStringConvertible {
    /// More than this many rejections.
    case count(Int)
    /// A percentage, judged once 1,000 records have been read (before that, a few early rejections would be a
    /// large share) and again at the end.
    case percent(Double)

    /// Reads `N` or `N%`.
    public init?(parsing text: String) {
        if text.hasSuffix("%") {
            guard let value = Double(text.dropLast()), value >= 0, value <= 100 else { return nil }
            self = .percent(value)
        } else {
            guard let value = Int(text), value >= 0 else { return nil }
            self = .count(value)
        }
    }

    /// Whether `rejected` of `read` records passes the limit; `isFinal` at the end of the run.
    func isExceeded(rejected: Int, read: Int, isFinal: Bool) -> Bool {
        switch self {
        case .count(let limit): return rejected > limit
        case .percent(let limit):
            guard read > 0, isFinal || read >= 1000 else { return false }
            return Double(rejected) * 100 > limit * Double(read)
        }
    }

    public var description: String {
        switch self {
        case .count(let limit): "\(limit)"
        case .percent(let limit): "\(limit)%"
        }
    }
}
