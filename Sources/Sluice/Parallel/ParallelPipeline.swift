import Foundation

/// Maps one input with several workers: a reader thread cuts it into chunks (``ChunkReader``), worker threads
/// map chunks into batches, each with its own yajl handle and state machine, and the consumer receives the batches
/// in input order with ordinals and lines renumbered as if one reader had read everything.
///
/// Memory is bounded by a byte budget: each chunk holds its buffer's size and its batches' (at least as much again,
/// more for a wide mapping) from when it is read until the consumer is done with its batches, plus, once mapped, what
/// the rows of its records' arrays and child tables hold; the reader waits while the budget is spent. A slow
/// consumer therefore slows the reader, and nothing queues without bound.
final class ParallelPipeline: @unchecked Sendable, BatchSource {
    let shape: InputShape
    /// One plan, or one per records path when a document holds several record types.
    let plans: [CompiledPlan]
    var plan: CompiledPlan { plans[0] }
    let options: ReaderOptions
    /// The memory the pipeline's chunks and batches keep within: the run's budget less what the decompressor took.
    var memoryBudget: Int { options.memoryBudget }
    /// What the run's engines walk records with, and how its elements are framed for them.
    private let tokenizer: Tokenizer
    let sourceName: String
    /// Bytes per chunk: the option, made smaller when a small input or the budget needs it.
    private let chunkSize: Int
    private let pool = ChunkBufferPool()
    /// What the engines are made with: the options with the depth limit lowered by the levels chunks hide.
    private var engineOptions: ReaderOptions
    private let hiddenOuterLevels: Int
    /// The most records a chunk may hold: their batches must fit in the chunk's share of the budget.
    private let recordsPerChunk: Int
    /// What a chunk's batches may take, reserved with the chunk.
    private let batchBytesPerChunk: Int
    private let keepsRecordText: Bool

    // Everything below is guarded by `condition`.
    let condition = PipelineLock()
    private var pendingChunks: [Chunk] = []
    private var pendingStart = 0
    var results: [Int: ChunkResult] = [:]
    /// The result the consumer waits for (its `nextIndex` when it last waited).
    var awaitedIndex = 0
    var chunkCount = 0
    var readerFinished = false
    /// The reader's error, raised after the chunks before it.
    var readerError: SluiceError?
    var isCancelled = false
    /// Cancelled by ``cancel()``: no reading starts again (see ``readExactly(from:)``).
    var isOver = false
    var budgetInUse = 0
    private var peakBudget = 0
    /// Chunks read and not yet consumed, and the most allowed: enough to keep every worker busy while the
    /// consumer works through earlier results. More would only hold memory (each chunk's batches too).
    var chunksInFlight = 0
    let maximumChunksInFlight: Int
    /// While the reader waits for budget: the bytes of its own chunk, which do not count against it. It is woken
    /// once half the chunks in flight are consumed (or nothing but its own is held), to read a run of chunks at
    /// once rather than one per chunk consumed.
    var readerWaitsHolding: Int?
    /// Per plan: the unmapped keys of the chunks whose records were handed out, counted with those records (see
    /// ``count(_:)``), so that chunks mapped ahead and never delivered count for nothing.
    var deliveredUnmappedKeys: [[UnmappedKey: Int]]
    /// CSV-like rows: the header's names, read by the worker whose chunk holds the header row, for all the others.
    private let columnHeader = ColumnHeader()
    /// The records at the input's start to skip, and whether a header row follows them.
    private let leadingRecords: LeadingRecords
    var runningWorkers = 0
    /// The workers' threads while they run, so that a cancel from one of them does not wait for itself.
    private var workerThreads: [pthread_t] = []
    /// Bytes the reader read, once it has finished.
    var readerBytes: Int?
    /// Bytes before the reader's start that count as read: a byte-order mark, not the file before a shard; once an
    /// array is read exactly after its lines, everything before.
    var bytesBeforeReader: Int
    /// An array file that may be read by lines: opens it again at a byte offset, from which it is then read
    /// exactly (see ``ChunkReader/ArrayFraming/linesWhenShaped``). `nil` once it has been.
    var reopenForExactReading: ReopenAt?
    let workers: Int

    /// Opens an input again, its next byte the one at the given offset; the given number of bytes after it were
    /// read before (and count for progress once).
    typealias ReopenAt = @Sendable (_ offset: Int, _ readBefore: Int) throws(SluiceError) -> any ByteSource
    /// With one worker and no reason for a thread of its own: the reader and the engines, used on the consumer's
    /// thread (each chunk is read, then mapped, when the consumer asks for it).
    var inline: InlineReading?

    struct InlineReading {
        let reader: ChunkReader
        var engines: [MappingEngine?]
    }

    // The consumer's side (one thread).
    var nextIndex = 0
    var current: ChunkResult?
    var currentPosition = 0
    var lentBatch: (batch: ColumnarBatch, engine: MappingEngine?)?
    /// A batch holding only the rejection the reader ended the run with.
    var terminalBatch: ColumnarBatch?
    /// The error to raise on the call after the batch that reports it.
    /// How far the chunks whose records were handed out reach, against the input's frame checksums.
    var delivered: DeliveredInput
    var pendingError: SluiceError?
    /// Per plan: ordinals count each record type's records.
    private var ordinalBases: [Int]
    var typeTotals: [ReadStatistics]
    /// The plan of the batch handed out last.
    var lastBatchType = 0
    /// The plan of the chunk being delivered.
    var currentType = 0
    var ordinalBase: Int {
        get { ordinalBases[currentType] }
        set { ordinalBases[currentType] = newValue }
    }
    var lineBase = 0
    var totals = ReadStatistics()
    var hasEnded = false
    /// Per plan: the tables its batches carry the rows of, when the reader was asked for them.
    let tables: [MappedTables?]

    struct ChunkResult {
        var chunk: Chunk
        var outcome: MappingEngine.ChunkOutcome
        var engine: MappingEngine
        /// The keys no field reads among the chunk's records.
        var unmappedKeys: [UnmappedKey: Int]
    }

    /// Starts reading `source` (already past any byte order mark: its first byte sits at `startOffset`) and
    /// mapping it with `options.workers` workers.
    /// A shard that does not start at the input's start (`startsAtInputStart` false) skips no records; its
    /// rows are read by `columnNames` when the plan takes columns from a header.
    /// Several plans, each with its records path, map the record types of one document in one pass.
    /// `runsInline`: with one worker, read and map on the consumer's thread, chunk by chunk as batches are asked
    /// for, handing each read's whole records on at once (so records from a pipe are mapped as they arrive).
    /// `reopenForExactReading`: an array file, which a reader thread may cut at line feeds (when its elements are
    /// written one per line), and open again to read exactly from the first line that is not one element.
    init(plans: [CompiledPlan], source: any ByteSource, shape: InputShape, startOffset: Int, options: ReaderOptions, tokenizer: Tokenizer,
         keepsRecordText: Bool, startsAtInputStart: Bool = true, columnNames: [[UInt8]]? = nil, runsInline: Bool = false,
         reopenForExactReading: ReopenAt? = nil) {
        self.plans = plans
        let plan = plans[0]
        deliveredUnmappedKeys = plans.map { _ in [:] }
        // A shard's records are numbered as in the whole file; records skipped or a header row before it are not
        // records.
        let leading = options.shard == nil || startsAtInputStart ? 0 : plan.skippedRecords + (plan.columnsFromHeader ? 1 : 0)
        ordinalBases = plans.map { _ in max((options.shard?.firstOrdinal ?? 1) - 1 - leading, 0) }
        lineBase = (options.shard?.firstLine ?? 1) - 1
        typeTotals = plans.map { _ in ReadStatistics() }
        tables = plans.indices.map { options.tablesToFill?.tables(ofMapping: $0) }
        self.shape = shape
        self.options = options
        self.tokenizer = tokenizer
        leadingRecords = startsAtInputStart ? LeadingRecords(toSkip: plan.skippedRecords, readsHeader: plan.columnsFromHeader) : LeadingRecords()
        bytesBeforeReader = startsAtInputStart ? startOffset : 0
        if let columnNames { columnHeader.publish(columnNames) }
        sourceName = source.name
        delivered = DeliveredInput(checks: source.frameChecks)
        totals.shape = shape
        let workers = max(options.workers, 1)
        self.workers = workers
        self.reopenForExactReading = shape == .array && !runsInline && plans.count == 1 ? reopenForExactReading : nil
        // Keep at least two chunks per worker plus one being read inside the budget. The bytes to read are known
        // for an uncompressed input (a compressed one has no size until it is read).
        let range = options.byteRange ?? options.shard?.byteRange
        let inputBytes = source.size.map { size in range.map { min($0.upperBound, size) - min($0.lowerBound, size) } ?? size }
        chunkSize = max(min(Self.fittedChunkSize(options, inputBytes: inputBytes), options.memoryBudget / (2 * (2 * workers + 1))), 1)
        runningWorkers = workers
        maximumChunksInFlight = 3 * workers + 2

        // Workers map array chunks as concatenated values (the framer blanked the array's punctuation): chunks no
        // longer show the array's own level, so their limit is one lower, and messages state the user's.
        hiddenOuterLevels = shape == .array && options.maximumDepth > 1 ? 1 : 0
        engineOptions = options
        engineOptions.maximumDepth -= hiddenOuterLevels
        // A chunk's batches are sized by the mapping's width, not by the chunk's bytes (a 10,000-field mapping
        // takes about 240 KB a row and 2 MB a batch, however short the records): a chunk holds no more records than
        // a chunk's size of batches can take, and is reserved with its batches' size.
        let widest = plans.map(\.fields).max { $0.count < $1.count } ?? []
        recordsPerChunk = ColumnarBatch.capacity(of: widest, keepsRecordText: keepsRecordText, requested: .max, byteLimit: chunkSize)
        let capacity = min(options.batchCapacity, recordsPerChunk)
        let batchesPerChunk = (recordsPerChunk + capacity - 1) / capacity
        batchBytesPerChunk = max(chunkSize, batchesPerChunk * ColumnarBatch.bytes(of: widest, capacity: capacity, keepsRecordText: keepsRecordText))
        engineOptions.batchCapacity = capacity
        self.keepsRecordText = keepsRecordText
        if runsInline {
            runningWorkers = 0
            readerFinished = true
            inline = InlineReading(reader: makeReader(source, startOffset: startOffset, handsEachRead: true), engines: plans.map { _ in nil })
            return
        }
        startThreads(reading: source, from: startOffset, framing: self.reopenForExactReading == nil ? .exact : .linesWhenShaped)
    }

    func startThreads(reading source: any ByteSource, from startOffset: Int, framing: ChunkReader.ArrayFraming) {
        for number in 0..<workers {
            DedicatedThread.start(name: "sluice.worker.\(number)") { [self] in work() }
        }
        let sendableSource = UncheckedBox(source)
        DedicatedThread.start(name: "sluice.reader") { [self] in
            read(sendableSource.value, startOffset: startOffset, framing: framing)
        }
    }

    /// An engine for the chunks of `plan`'s records: NDJSON lines, or concatenated values (an array's elements too).
    private func makeEngine(_ type: Int) -> MappingEngine {
        let engine = MappingEngine(plan: plans[type], chunkShape: shape == .ndjson ? .ndjson : .concatenated, hiddenOuterLevels: hiddenOuterLevels,
                                   options: engineOptions, tokenizer: tokenizer, keepsRecordText: keepsRecordText, sourceName: sourceName, columnHeader: columnHeader)
        engine.tableRows = options.tablesToFill?.rows(ofMapping: type)
        return engine
    }

    /// The smallest chunk worth a hand-off to a worker.
    static let smallestFittedChunk = 64 << 10

    /// The chunk size for an input of `inputBytes` (`nil` when unknown): the option's, or less when the input
    /// holds fewer than four chunks per worker. Every worker then gets a share of a small input (a directory of
    /// small files was mapped by one worker at a time), and the last chunk, which one worker maps while the others
    /// wait for the next input, stays short. Never below ``smallestFittedChunk``.
    static func fittedChunkSize(_ options: ReaderOptions, inputBytes: Int?) -> Int {
        guard let inputBytes else { return options.chunkSize }
        let pieces = 4 * max(options.workers, 1)
        let share = (max(inputBytes, 0) + pieces - 1) / pieces
        return min(options.chunkSize, max(share, smallestFittedChunk))
    }

    deinit {
        for index in pendingStart..<pendingChunks.count {
            let chunk = pendingChunks[index]
            pool.give(chunk.bytes, capacity: chunk.capacity, keepLimit: 0)
        }
    }

    // MARK: - Reader thread

    func read(_ source: any ByteSource, startOffset: Int, framing: ChunkReader.ArrayFraming) {
        let reader = makeReader(source, startOffset: startOffset, handsEachRead: false, framing: framing)
        var failure: SluiceError?
        do {
            try reader.run { [self] chunk in
                condition.lock()
                defer { condition.unlock() }
                guard !isCancelled else {
                    pool.give(chunk.bytes, capacity: chunk.capacity, keepLimit: 0)
                    budgetInUse -= chunk.reservation
                    chunksInFlight -= 1
                    return false
                }
                pendingChunks.append(chunk)
                chunkCount += 1
                condition.wakeOne(.worker)
                return true
            }
        } catch {
            failure = error
        }
        condition.lock()
        readerBytes = bytesBeforeReader + reader.bytesRead
        readerError = failure
        readerFinished = true
        condition.wakeEveryone()
        condition.unlock()
    }

    private func makeReader(_ source: any ByteSource, startOffset: Int, handsEachRead: Bool, framing: ChunkReader.ArrayFraming = .exact) -> ChunkReader {
        var recordsPaths = options.shard.map { $0.content == .lines ? plans.compactMap(\.recordsPath) : [] } ?? plans.compactMap(\.recordsPath)
        // Reading resumes inside the records array: the wrapper before it is behind.
        if case .exactAfterComma = framing { recordsPaths = [] }
        return ChunkReader(
            source: source, shape: shape, startOffset: startOffset, range: options.byteRange, chunkSize: chunkSize,
            maximumRecordSize: options.maximumRecordSize, maximumRecords: recordsPerChunk, batchBytes: batchBytesPerChunk, maximumDepth: options.maximumDepth, pool: pool,
            // A shard of an array holds nothing but elements: no wrapper around them to filter.
            recordsPaths: recordsPaths,
            elementShardEnd: options.shard.flatMap { $0.content == .lines ? nil : $0.byteRange.upperBound },
            elementShardStartsAtArray: options.shard?.content == .arrayOpening,
            leadingRecords: leadingRecords, handsEachRead: handsEachRead, arrayFraming: framing,
            pairsBrackets: tokenizer.framingPairsBrackets,
            // Not owning: the pipeline holds the reader that runs on the caller's thread, and the reader thread holds
            // the pipeline while its reader lives, so the reader never outlives it.
            reserve: { [unowned self] bytes, holding, isNewChunk in reserve(bytes, holding: holding, isNewChunk: isNewChunk) })
    }

    /// Blocks until `bytes` fit in the budget (and, for a new chunk, the cap on chunks in flight allows one more),
    /// or nothing is held but the caller's own `holding` bytes (so one huge record can always pass).
    private func reserve(_ bytes: Int, holding: Int, isNewChunk: Bool) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while !isCancelled && budgetInUse > holding
                && (budgetInUse + bytes > options.memoryBudget || (isNewChunk && chunksInFlight >= maximumChunksInFlight)) {
            readerWaitsHolding = holding
            condition.wait(as: .reader)
        }
        readerWaitsHolding = nil
        guard !isCancelled else { return nil }
        budgetInUse += bytes
        if isNewChunk { chunksInFlight += 1 }
        peakBudget = max(peakBudget, budgetInUse)
        return bytes
    }

    // MARK: - Worker threads

    private func work() {
        var engines: [MappingEngine?] = plans.map { _ in nil }
        condition.lock()
        workerThreads.append(pthread_self())
        condition.unlock()
        while true {
            condition.lock()
            while pendingStart == pendingChunks.count && !readerFinished && !isCancelled {
                condition.wait(as: .worker)
            }
            guard !isCancelled, pendingStart < pendingChunks.count else {
                workerThreads.removeAll { pthread_equal($0, pthread_self()) != 0 }
                runningWorkers -= 1
                condition.wakeEveryone()
                condition.unlock()
                return
            }
            let chunk = pendingChunks[pendingStart]
            pendingStart += 1
            if pendingStart > 64 && pendingStart * 2 > pendingChunks.count {
                pendingChunks.removeFirst(pendingStart)
                pendingStart = 0
            }
            condition.unlock()

            var result = map(chunk, engines: &engines)
            // Rows of arrays and child tables grow with the records, past what was reserved for the chunk's batches:
            // they count against the budget until the chunk is consumed, so that the reader waits for them too.
            let staged = result.outcome.batches.reduce(0) { $0 + $1.stagedRowBytes }

            condition.lock()
            result.chunk.reservation += staged
            budgetInUse += staged
            peakBudget = max(peakBudget, budgetInUse)
            results[chunk.index] = result
            // The consumer needs waking only for the result it waits for; the others wait their turn.
            if chunk.index == awaitedIndex { condition.wakeOne(.consumer) }
            condition.unlock()
        }
    }

    /// Maps `chunk` with the engine for its record type (made on first use) and gives its buffer back.
    func map(_ chunk: Chunk, engines: inout [MappingEngine?]) -> ChunkResult {
        let engine = engines[chunk.recordType] ?? makeEngine(chunk.recordType)
        engines[chunk.recordType] = engine
        let outcome = engine.mapChunk(chunk.bytes, count: chunk.count, at: chunk.offset, leadingRecords: chunk.leadingRecords, holdsHeader: chunk.holdsHeader,
                                      recordKeys: chunk.recordKeys, elementEnds: chunk.elementEnds,
                                      holdsArrayLines: chunk.holdsArrayLines, exactReadingFrom: chunk.exactReadingFrom)
        pool.give(chunk.bytes, capacity: chunk.capacity, keepLimit: 2 * chunkSize)
        return ChunkResult(chunk: chunk, outcome: outcome, engine: engine, unmappedKeys: engine.takeUnmappedKeyCounts())
    }

    // MARK: - Consumer

    /// Stops the reader and the workers as soon as they look up, frees what is queued, and waits for the workers to
    /// stop: a run ended early (a limit, a failing consumer) may end the process next, and no worker may still be
    /// mapping inside code whose static objects the process's exit destroys. (The reader is not waited for: it may
    /// be blocked reading a pipe, and frames bytes with nothing of the kind.)
    func cancel() {
        columnHeader.fail()
        stopThreads(forGood: true)
        condition.lock()
        // A worker that cancels (a transform or validator of the caller's, which runs on it) cannot wait for itself.
        let onWorker = workerThreads.contains { pthread_equal($0, pthread_self()) != 0 }
        while runningWorkers > 0 && !onWorker { condition.wait(as: .stop) }
        condition.unlock()
    }

    /// Stops the reader and the workers; `forGood`: the run is over (not only its reading by lines).
    func stopThreads(forGood: Bool) {
        condition.lock()
        isCancelled = true
        if forGood { isOver = true }
        for index in pendingStart..<pendingChunks.count {
            let chunk = pendingChunks[index]
            pool.give(chunk.bytes, capacity: chunk.capacity, keepLimit: 0)
            budgetInUse -= chunk.reservation
            chunksInFlight -= 1
        }
        pendingChunks.removeAll()
        pendingStart = 0
        for result in results.values {
            for batch in result.outcome.batches { result.engine.recycle(batch) }
        }
        results.removeAll()
        condition.wakeEveryone()
        condition.unlock()
    }

    /// Waits until the reader and every worker have stopped (after the end, an error or ``cancel()``).
    func waitUntilStopped() {
        condition.lock()
        while runningWorkers > 0 || !readerFinished { condition.wait(as: .stop) }
        condition.unlock()
    }

    var isDeliveredInputVerified: Bool { delivered.isVerified }



    /// Chunks the reader has handed to the workers so far.
    var chunksRead: Int {
        condition.lock()
        defer { condition.unlock() }
        return chunkCount
    }

    /// Chunks of an array's lines whose records were handed out, so far.
    var arrayLineChunksDelivered = 0

    /// The most budget held at once so far.
    var peakBudgetInUse: Int {
        condition.lock()
        defer { condition.unlock() }
        return peakBudget
    }

    // MARK: - BatchSource

    var statistics: ReadStatistics {
        var statistics = totals
        if hasEnded, let inline {
            statistics.bytesRead = bytesBeforeReader + inline.reader.bytesRead
        } else if hasEnded {
            condition.lock()
            if let readerBytes { statistics.bytesRead = readerBytes }
            condition.unlock()
        }
        return statistics
    }

    /// Over the records counted so far (those of the chunks handed out): complete once the run has ended.
    var unmappedKeys: [String: Int] { unmappedKeys(ofType: 0) }

    /// Per record type: counts so far, and the keys no field reads among those records.
    func statistics(ofType type: Int) -> ReadStatistics { typeTotals[type] }

    func unmappedKeys(ofType type: Int) -> [String: Int] {
        UnmappedKey.named(deliveredUnmappedKeys[type], in: plans[type])
    }

    /// The typed door's refusals after commit: counted on the consumer's side.
    func countRejectedAfterCommit() {
        totals.recordsMapped -= 1
        totals.recordsRejected += 1
        typeTotals[lastBatchType].recordsMapped -= 1
        typeTotals[lastBatchType].recordsRejected += 1
    }
}

/// Carries a value the compiler cannot prove safe to another thread, where the code hands it over whole.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
