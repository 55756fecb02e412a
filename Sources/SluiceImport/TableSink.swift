import Sluice
import SluiceWriters

/// Where an import writes its tables: a database or files, one table per mapping.
///
/// The importer calls it from one thread, batch by batch. Rows and rejections written since the last
/// ``commit(_:)`` become durable together with that commit's checkpoints, or not at all.
protocol TableSink: AnyObject {
    /// The destination as the user named it, for messages.
    var destinationName: String { get }
    /// Whether the sink keeps checkpoints, so that an interrupted import can resume.
    var keepsCheckpoints: Bool { get }
    /// Writes the rows `rows` of `batch` into table `table`.
    func write(_ batch: ColumnarBatch, rows: Range<Int>, table: Int) throws(SluiceError)
    /// Records a rejected record of table `table` read from `source` (database sinks keep them in a table).
    func reject(_ rejection: Rejection, source: String, table: Int) throws(SluiceError)
    /// Makes everything written so far durable, with `checkpoints` (database sinks; files commit at the end).
    /// ``beginTransaction()`` follows before anything more is written.
    func commit(_ checkpoints: [Checkpoint]) throws(SluiceError)
    /// Opens the transaction the next rows go into; apart from ``commit(_:)``, so that a failure to open it is not
    /// taken for a failed commit.
    func beginTransaction() throws(SluiceError)
    /// The checkpoints an earlier run committed.
    func committedCheckpoints() throws(SluiceError) -> [Checkpoint]
    /// Ends a run that completed (or stopped cleanly): the last commit, files renamed into place.
    func finish(_ checkpoints: [Checkpoint]) throws(SluiceError)
    /// Ends a run that failed: files are removed, what was not committed is rolled back.
    func abandon()
    /// Whether ``abandon()`` takes back what was written since the last commit. A stream (standard output, a pipe,
    /// a device) keeps what it was given.
    var takesBackUncommitted: Bool { get }
    /// The partial files of killed runs that opening the destination's files removed.
    var removedPartials: [AbandonedPartial] { get }
}

extension TableSink {
    var takesBackUncommitted: Bool { true }
    var removedPartials: [AbandonedPartial] { [] }
    func beginTransaction() throws(SluiceError) {}
}

/// How far an import of one input into one table has got: the input's identity, and the last record whose row
/// or rejection is committed. An import resumed from it starts after that record.
struct Checkpoint: Sendable, Hashable {
    var input: InputIdentity
    var table: String
    /// The last committed record's ordinal, line and byte offset (0 when none).
    var ordinal = 0
    var line = 0
    var byteOffset = 0
    /// The whole input has been imported.
    var isComplete = false
    /// How many of the records up to ``ordinal`` were rejected.
    var rejected = 0
    /// What the table's rows mean (``TableMeaning/text``); nil in a checkpoint written before Sluice kept it.
    var meaning: String?
}

extension Checkpoint {
    /// The checkpoint table's columns, in the order of ``init(row:)`` and of ``values(literal:)``.
    static let columns = "input, table_name, size, modified_ns, head_hash, ordinal, line, byte_offset, complete, mapping, rejected"
    /// The columns checkpoint tables of earlier versions lack, with types both SQLite and PostgreSQL take: added
    /// on first use, they stay null in older checkpoints (whose resume is then refused for want of a mapping).
    static let laterColumns = [("mapping", "text"), ("rejected", "bigint")]

    /// A checkpoint from a row of a checkpoint table, each value as text, in the order of ``columns`` (complete
    /// as SQLite's 0 or 1, or PostgreSQL's f or t).
    init(row: [String?]) {
        func number(_ index: Int) -> Int { row[index].flatMap { Int($0) } ?? 0 }
        self.init(
            input: InputIdentity(path: row[0] ?? "", size: number(2), modificationNanoseconds: number(3), headHash: row[4] ?? ""),
            table: row[1] ?? "", ordinal: number(5), line: number(6), byteOffset: number(7), isComplete: row[8] == "t" || number(8) != 0,
            rejected: number(10), meaning: row[9])
    }

    /// The values of ``columns`` as SQL, text through `literal` (each database quotes its own way).
    func values(literal: (String) -> String) -> String {
        "\(literal(input.path)), \(literal(table)), \(input.size), \(input.modificationNanoseconds), \(literal(input.headHash)), "
            + "\(ordinal), \(line), \(byteOffset), \(isComplete ? "TRUE" : "FALSE"), \(meaning.map(literal) ?? "NULL"), \(rejected)"
    }
}

/// What tells an input file apart from a changed one: path, size, modification time and a hash of its first MiB.
struct InputIdentity: Sendable, Hashable {
    var path: String
    var size: Int
    var modificationNanoseconds: Int
    var headHash: String

    /// Standard input has no identity: it cannot be resumed.
    static func of(path: String) throws(SluiceError) -> InputIdentity? {
        guard path != "-" else { return nil }
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        #if canImport(Darwin)
        let modified = Int(status.st_mtimespec.tv_sec) * 1_000_000_000 + Int(status.st_mtimespec.tv_nsec)
        #else
        let modified = Int(status.st_mtim.tv_sec) * 1_000_000_000 + Int(status.st_mtim.tv_nsec)
        #endif
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var head = [UInt8](repeating: 0, count: 1 << 20)
        var filled = 0
        while filled < head.count {
            let count = head.withUnsafeMutableBytes { buffer in
                buffer.baseAddress.map { read(descriptor, $0 + filled, buffer.count - filled) } ?? 0
            }
            if count <= 0 { break }
            filled += count
        }
        return InputIdentity(path: path, size: Int(status.st_size), modificationNanoseconds: modified,
                             headHash: FNV1a.hex64(head[..<filled]))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
