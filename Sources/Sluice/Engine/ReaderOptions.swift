import Foundation

/// What a reader does when a record cannot be mapped.
public enum RejectionPolicy: String, Sendable, Hashable, CaseIterable {
    /// Throw ``SluiceError/rejected(_:)`` at the first rejected record, after delivering the records before it.
    case stop
    /// Report each rejected record in ``ColumnarBatch/rejections`` and go on.
    case collect
}

/// How a reader reads: input shape, buffer sizes, limits and the rejection policy.
public struct ReaderOptions: Sendable, Hashable {
    /// How records are laid out; detected from the first bytes by default.
    public var shape: InputShape = .automatic
    /// Bytes per read from the input. Output does not depend on it.
    public var readBufferSize = 1 << 20
    /// Records per batch at most: fewer when batches this large would not fit the memory budget (a wide mapping).
    public var batchCapacity = 4096
    /// The largest record accepted. Larger NDJSON lines are rejected and reading goes on; in other shapes the
    /// input ends with an error.
    public var maximumRecordSize = 64 << 20
    /// The deepest nesting accepted, counting the top-level array if records are its elements.
    public var maximumDepth = 1024
    /// Stop at the first rejected record, or collect rejections and go on.
    public var rejectionPolicy: RejectionPolicy = .stop
    /// Threads that map records. With more than one, NDJSON, top-level arrays and concatenated values are cut into
    /// chunks that workers map in parallel, and batches still arrive in input order, numbered as by one reader; a
    /// single document is read by one thread. With one (the default), the caller's thread reads and maps, except for
    /// compressed input and (with simdjson) array or concatenated files of a chunk or more: a reader thread
    /// decompresses or finds the records while one worker maps.
    public var workers = 1
    /// Bytes per chunk handed to a worker (cut at the last record boundary). A record larger than a chunk gets a
    /// chunk of its own, up to ``maximumRecordSize``. An uncompressed file (or shard) smaller than four chunks
    /// per worker is cut into four smaller chunks per worker instead, of 64 KiB at least.
    public var chunkSize = 1 << 20
    /// The most bytes the parallel pipeline means to hold at once: chunks read, being mapped or waiting, and their
    /// batches (each chunk counts its size and its batches' until the consumer is done with them, and once mapped
    /// the rows its records' arrays and child tables hold, which may take it past the budget until the reader has
    /// waited for them). The reader waits while it is spent, so memory stays flat whatever the input size; the default keeps a run well under 256 MiB
    /// resident. Batches are sized by the mapping's width as well as by ``batchCapacity``: a wide mapping gets
    /// batches of fewer rows, and chunks of fewer records, so that they fit. Besides the budget, each worker
    /// holds the batch it is filling. An xz input decoded on several threads (with several workers) holds whole
    /// blocks' output: its threads take five eighths of the budget (at most ``maximumDecompressionWindow``),
    /// the pipeline the rest, whether the file turns out to hold one block or many. More workers decode more xz
    /// blocks at once only as far as that share holds them (about two of `xz -T -6`'s by default). A gzip file of
    /// several members read by three workers or more has its members inflated ahead on as many threads, within an
    /// eighth of the budget (when that is 1 MiB or more), taken from the pipeline's part likewise. The rows a record
    /// makes of its arrays of models and child tables take at most an eighth of the budget: a record whose rows take
    /// more is rejected as too large, and a batch is handed on once its records' rows pass that share. The values a
    /// walk reads of one record (32 bytes each, held until the record is mapped) take at most an eighth of it too,
    /// and never less than 32 MiB: a well-formed record that reads more is rejected as too large.
    public var memoryBudget = 128 << 20
    /// Only the records that start inside this range of the file's bytes (NDJSON files only): shards that
    /// processes on several machines read, with no record lost or read twice. Ordinals and lines then count from
    /// the shard's first record; byte offsets stay the file's.
    public var byteRange: Range<Int>?
    /// One shard of a ``ShardPlan``: only its records, numbered as in the whole file (ordinals, lines and byte
    /// offsets). Unlike ``byteRange``, it also splits arrays and wrapper documents. Take it from a plan checked
    /// against the file (``ShardPlan/checkMatches(_:)``): a shard of another file, or of this one changed, reads
    /// garbage. Excludes ``byteRange``.
    public var shard: InputShard?
    /// The largest history window a compressed input may ask the decompressor to keep, in bytes. zstd frames
    /// written with `--long` (large dumps often are) name windows up to 2 GiB; a frame that needs more than this
    /// ends the run with an error saying how much it needs. zstd rounds the limit down to a power of two. The
    /// window is held besides ``memoryBudget``. The default is libzstd's own limit, 128 MiB; gzip never needs more
    /// than 32 KiB, bzip2 about 4 MB. For xz it limits the decoder's memory, its dictionary foremost (8 MiB for
    /// `xz -6`, 64 MiB for `xz -9`), likewise; on several threads, xz's blocks are held within ``memoryBudget``.
    public var maximumDecompressionWindow = Compression.defaultMaximumWindow
    /// The tokenizer that reads records. Output is the same with each, except where a value no field reads is
    /// malformed, or is not UTF-8 (see ``TokenizerChoice``).
    public var tokenizer: TokenizerChoice = .automatic
    /// Whether an array file whose elements are written one per line may be cut at line feeds (and read exactly
    /// from the first line that is not one element and its comma); off, the framer reads every byte. Output is the
    /// same either way: tests compare the two.
    var readsArrayLines = true
    /// The tables each batch's ``ColumnarBatch/tables`` are filled with, set by the readers given them.
    var tablesToFill: TablesToFill?

    /// Options with every default.
    public init() {}

    /// Options with the given values; omitted ones keep their defaults.
    public init(
        shape: InputShape = .automatic, readBufferSize: Int = 1 << 20, batchCapacity: Int = 4096,
        maximumRecordSize: Int = 64 << 20, maximumDepth: Int = 1024, rejectionPolicy: RejectionPolicy = .stop,
        workers: Int = 1, chunkSize: Int = 1 << 20, memoryBudget: Int = 128 << 20, byteRange: Range<Int>? = nil
    ) {
        self.shape = shape
        self.readBufferSize = readBufferSize
        self.batchCapacity = batchCapacity
        self.maximumRecordSize = maximumRecordSize
        self.maximumDepth = maximumDepth
        self.rejectionPolicy = rejectionPolicy
        self.workers = workers
        self.chunkSize = chunkSize
        self.memoryBudget = memoryBudget
        self.byteRange = byteRange
    }

    /// The share of ``memoryBudget`` that one engine's batch in hand takes, and so do a record's staged child rows
    /// (``StagedRows``) and its values read (``RecordValueLimit``): an eighth.
    var engineShare: Int { memoryBudget / 8 }

    func validated() throws(SluiceError) -> ReaderOptions {
        var problems: [String] = []
        if readBufferSize < 1 { problems.append("readBufferSize must be at least 1") }
        if batchCapacity < 1 { problems.append("batchCapacity must be at least 1") }
        if maximumRecordSize < 1 { problems.append("maximumRecordSize must be at least 1") }
        if maximumDepth < 1 { problems.append("maximumDepth must be at least 1") }
        if workers < 1 { problems.append("workers must be at least 1") }
        if chunkSize < 1 { problems.append("chunkSize must be at least 1") }
        if memoryBudget < 1 << 20 { problems.append("memoryBudget must be at least 1 MiB") }
        if let byteRange, byteRange.lowerBound < 0 { problems.append("byteRange must not start before byte 0") }
        if byteRange != nil && shard != nil { problems.append("give a byte range or a shard, not both") }
        if let shard, shard.byteRange.lowerBound < 0 || !(1...(1 << 48)).contains(shard.firstOrdinal) || !(1...(1 << 48)).contains(shard.firstLine) || shard.records < 0 {
            problems.append("a shard starts at byte 0 or later, and its first ordinal and line count from 1 (up to 2^48)")
        }
        if let shard, shard.byteRange.upperBound > 1 << 48 { problems.append("a shard ends at byte 2^48 at the latest") }
        if let shard, !shard.decodingStartFits { problems.append(InputShard.decodingStartRule) }
        if maximumDecompressionWindow < 1 << 10 { problems.append("maximumDecompressionWindow must be at least 1 KiB") }
        if !problems.isEmpty { throw .invalidOptions(problems.joined(separator: "; ")) }
        return self
    }
}

/// Counts for one run. At every point, `recordsRead == recordsMapped + recordsRejected`.
public struct ReadStatistics: Sendable, Hashable {
    /// Records seen, mapped or rejected.
    public var recordsRead = 0
    /// Records written into batches.
    public var recordsMapped = 0
    /// Records reported as rejected.
    public var recordsRejected = 0
    /// Bytes read from the input.
    public var bytesRead = 0
    /// The shape the input was read as (the detected one for ``InputShape/automatic``).
    public var shape: InputShape = .automatic

    /// Zero counts, to add runs to.
    public init() {}

    init(recordsRead: Int, recordsMapped: Int, recordsRejected: Int, bytesRead: Int, shape: InputShape) {
        self.recordsRead = recordsRead
        self.recordsMapped = recordsMapped
        self.recordsRejected = recordsRejected
        self.bytesRead = bytesRead
        self.shape = shape
    }
}
