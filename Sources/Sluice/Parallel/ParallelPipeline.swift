import Foundation

/// Maps one input with several workers: a reader thread cuts it into chunks (``ChunkReader``), worker threads
/// map chunks into batches, each with its own yajl handle and state machine, and the consumer receives the batches
/// in input order with ordinals and lines renumbered as if one reader had read everything.
///
/// Memory is bounded by a byte budget: each chunk holds its buffer's size and its batches' (at least as much again,
/// more for a wide mapping) from when it is read until the consumer is done with its batches, and the reader waits
/// while the budget is spent. A slow consumer therefore slows the reader, and nothing queues without bound.
final class ParallelPipeline: @unchecked Sendable, BatchSource {
    let shape: InputShape
    /// One plan, or one per records path when a document holds several record types.
    private let plans: [CompiledPlan]
    private var plan: CompiledPlan { plans[0] }
    private let options: ReaderOptions
    private let sourceName: String
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
    private let condition = PipelineLock()
    private var pendingChunks: [Chunk] = []
    private var pendingStart = 0
    private var results: [Int: ChunkResult] = [:]
    /// The result the consumer waits for (its `nextIndex` when it last waited).
    private var awaitedIndex = 0
    private var chunkCount = 0
    private var readerFinished = false
    /// The reader's error, raised after the chunks before it.
    private var readerError: SluiceError?
    private var isCancelled = false
    /// Cancelled by ``cancel()``: no reading starts again (see ``readExactly(from:)``).
    private var isOver = false
    private var budgetInUse = 0
    private var peakBudget = 0
    /// Chunks read and not yet consumed, and the most allowed: enough to keep every worker busy while the
    /// consumer works through earlier results. More would only hold memory (each chunk's batches too).
    private var chunksInFlight = 0
    private let maximumChunksInFlight: Int
    /// While the reader waits for budget: the bytes of its own chunk, which do not count against it. It is woken
    /// once half the chunks in flight are consumed (or nothing but its own is held), to read a run of chunks at
    /// once rather than one per chunk consumed.
    private var readerWaitsHolding: Int?
    /// Per plan: the unmapped keys of the chunks whose records were handed out, counted with those records (see
    /// ``count(_:)``), so that chunks mapped ahead and never delivered count for nothing.
    private var deliveredUnmappedKeys: [[UnmappedKey: Int]]
    /// CSV-like rows: the header's names, read by the worker whose chunk holds the header row, for all the others.
    private let columnHeader = ColumnHeader()
    /// The records at the input's start to skip, and whether a header row follows them.
    private let leadingRecords: LeadingRecords
    private var runningWorkers = 0
    /// Bytes the reader read, once it has finished.
    private var readerBytes: Int?
    /// Bytes before the reader's start that count as read: a byte-order mark, not the file before a shard; once an
    /// array is read exactly after its lines, everything before.
    private var bytesBeforeReader: Int
    /// An array file that may be read by lines: opens it again at a byte offset, from which it is then read
    /// exactly (see ``ChunkReader/ArrayFraming/linesWhenShaped``). `nil` once it has been.
    private var reopenForExactReading: ReopenAt?
    private let workers: Int

    /// Opens an input again, its next byte the one at the given offset; the given number of bytes after it were
    /// read before (and count for progress once).
    typealias ReopenAt = @Sendable (_ offset: Int, _ readBefore: Int) throws(SluiceError) -> any ByteSource
    /// With one worker and no reason for a thread of its own: the reader and the engines, used on the consumer's
    /// thread (each chunk is read, then mapped, when the consumer asks for it).
    private var inline: InlineReading?

    private struct InlineReading {
        let reader: ChunkReader
        var engines: [MappingEngine?]
    }

    // The consumer's side (one thread).
    private var nextIndex = 0
    private var current: ChunkResult?
    private var currentPosition = 0
    private var lentBatch: (batch: ColumnarBatch, engine: MappingEngine?)?
    /// A batch holding only the rejection the reader ended the run with.
    private var terminalBatch: ColumnarBatch?
    /// The error to raise on the call after the batch that reports it.
    /// How far the chunks whose records were handed out reach, against the input's frame checksums.
    private var delivered: DeliveredInput
    private var pendingError: SluiceError?
    /// Per plan: ordinals count each record type's records.
    private var ordinalBases: [Int]
    private var typeTotals: [ReadStatistics]
    /// The plan of the batch handed out last.
    private(set) var lastBatchType = 0
    /// The plan of the chunk being delivered.
    private var currentType = 0
    private var ordinalBase: Int {
        get { ordinalBases[currentType] }
        set { ordinalBases[currentType] = newValue }
    }
    private var lineBase = 0
    private var totals = ReadStatistics()
    private var hasEnded = false

    private struct ChunkResult {
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
    init(plans: [CompiledPlan], source: any ByteSource, shape: InputShape, startOffset: Int, options: ReaderOptions,
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
        self.shape = shape
        self.options = options
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

    private func startThreads(reading source: any ByteSource, from startOffset: Int, framing: ChunkReader.ArrayFraming) {
        for number in 0..<workers {
            DedicatedThread.start(name: "sluice.worker.\(number)") { [self] in work() }
        }
        let sendableSource = UncheckedBox(source)
        DedicatedThread.start(name: "sluice.reader") { [self] in
            read(sendableSource.value, startOffset: startOffset, framing: framing)
        }
    }

    /// An engine for the chunks of `plan`'s records: NDJSON lines, or an array's elements as concatenated values.
    private func makeEngine(_ plan: CompiledPlan) -> MappingEngine {
        MappingEngine(plan: plan, chunkShape: shape == .array ? .concatenated : .ndjson, hiddenOuterLevels: hiddenOuterLevels, options: engineOptions,
                      keepsRecordText: keepsRecordText, sourceName: sourceName, columnHeader: columnHeader)
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

    private func read(_ source: any ByteSource, startOffset: Int, framing: ChunkReader.ArrayFraming) {
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
            // simdjson passes over a value no field reads by counting its brackets: elements are cut so too.
            pairsBrackets: !options.tokenizer.usesSimdjson,
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
        while true {
            condition.lock()
            while pendingStart == pendingChunks.count && !readerFinished && !isCancelled {
                condition.wait(as: .worker)
            }
            guard !isCancelled, pendingStart < pendingChunks.count else {
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

            let result = map(chunk, engines: &engines)

            condition.lock()
            results[chunk.index] = result
            // The consumer needs waking only for the result it waits for; the others wait their turn.
            if chunk.index == awaitedIndex { condition.wakeOne(.consumer) }
            condition.unlock()
        }
    }

    /// Maps `chunk` with the engine for its record type (made on first use) and gives its buffer back.
    private func map(_ chunk: Chunk, engines: inout [MappingEngine?]) -> ChunkResult {
        let engine = engines[chunk.recordType] ?? makeEngine(plans[chunk.recordType])
        engines[chunk.recordType] = engine
        let outcome = engine.mapChunk(chunk.bytes, count: chunk.count, at: chunk.offset, leadingRecords: chunk.leadingRecords, holdsHeader: chunk.holdsHeader,
                                      recordKeys: chunk.recordKeys, elementEnds: chunk.elementEnds,
                                      holdsArrayLines: chunk.holdsArrayLines, exactReadingFrom: chunk.exactReadingFrom)
        pool.give(chunk.bytes, capacity: chunk.capacity, keepLimit: 2 * chunkSize)
        return ChunkResult(chunk: chunk, outcome: outcome, engine: engine, unmappedKeys: engine.takeUnmappedKeyCounts())
    }

    // MARK: - Consumer

    /// Stops the reader and the workers as soon as they look up, and frees what is queued.
    func cancel() {
        columnHeader.fail()
        stopThreads(forGood: true)
    }

    /// Stops the reader and the workers; `forGood`: the run is over (not only its reading by lines).
    private func stopThreads(forGood: Bool) {
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

    func nextBatch() throws(SluiceError) -> ColumnarBatch? {
        if let lentBatch {
            lentBatch.engine?.recycle(lentBatch.batch)
            self.lentBatch = nil
        }
        condition.lock()
        let cancelled = isCancelled
        condition.unlock()
        if cancelled && !hasEnded && pendingError == nil { hasEnded = true }
        while true {
            if let pendingError {
                self.pendingError = nil
                throw end(with: pendingError)
            }
            if hasEnded { return nil }
            if var result = current {
                delivered.handedOut(through: result.chunk.offset + result.chunk.count)
                if currentPosition < result.outcome.batches.count {
                    let batch = result.outcome.batches[currentPosition]
                    currentPosition += 1
                    renumber(batch)
                    lentBatch = (batch, result.engine)
                    lastBatchType = currentType
                    return batch
                }
                try finish(&result)
                current = nil
                if let terminalBatch {
                    self.terminalBatch = nil
                    lentBatch = (terminalBatch, nil)
                    lastBatchType = currentType
                    return terminalBatch
                }
                continue
            }
            guard let result = try waitForNextResult() else {
                hasEnded = true
                return nil
            }
            current = result
            currentType = result.chunk.recordType
            currentPosition = 0
            lineBase += result.chunk.droppedLineFeeds
            count(result)
        }
    }

    private func waitForNextResult() throws(SluiceError) -> ChunkResult? {
        if inline != nil { return try readAndMapNextChunk() }
        condition.lock()
        awaitedIndex = nextIndex
        while results[nextIndex] == nil && !(readerFinished && nextIndex >= chunkCount) && !isCancelled {
            condition.wait(as: .consumer)
        }
        if let result = results.removeValue(forKey: nextIndex) {
            condition.unlock()
            nextIndex += 1
            return result
        }
        let error = readerError
        condition.unlock()
        if let error { throw end(with: error) }
        return nil
    }

    /// The next chunk's result, read and mapped on this thread.
    private func readAndMapNextChunk() throws(SluiceError) -> ChunkResult? {
        guard var inline else { return nil }
        defer { self.inline = inline }
        let chunk: Chunk?
        do {
            chunk = try inline.reader.nextChunk()
        } catch {
            throw end(with: error)
        }
        guard let chunk else { return nil }
        chunkCount += 1
        nextIndex += 1
        return map(chunk, engines: &inline.engines)
    }

    /// Counts a chunk's records, and the keys no field reads among them, once its batches are being delivered (as
    /// one reader counts a batch's records before it hands the batch out).
    private func count(_ result: ChunkResult) {
        if result.chunk.holdsArrayLines { arrayLineChunksDelivered += 1 }
        for (key, count) in result.unmappedKeys { deliveredUnmappedKeys[currentType][key, default: 0] += count }
        let statistics = result.outcome.statistics
        for index in [nil, currentType] as [Int?] {
            var counts = index.map { typeTotals[$0] } ?? totals
            counts.recordsRead += statistics.recordsRead
            counts.recordsMapped += statistics.recordsMapped
            counts.recordsRejected += statistics.recordsRejected
            // An array's lines count up to where reading them stopped: the rest is read again exactly.
            counts.bytesRead += result.chunk.droppedBytes + (result.outcome.exactReadingFrom.map { $0 - result.chunk.offset } ?? result.chunk.count)
            if let index { typeTotals[index] = counts } else { totals = counts }
        }
    }

    /// Accounts for a chunk whose batches are all delivered, and raises what ended it, if anything did.
    private func finish(_ result: inout ChunkResult) throws(SluiceError) {
        let statistics = result.outcome.statistics
        condition.lock()
        budgetInUse -= result.chunk.reservation
        chunksInFlight -= 1
        if let holding = readerWaitsHolding, chunksInFlight <= maximumChunksInFlight / 2 || budgetInUse <= holding {
            condition.wakeOne(.reader)
        }
        condition.unlock()
        if var error = result.outcome.error {
            renumber(&error)
            throw end(with: error)
        }
        ordinalBase += statistics.recordsRead
        lineBase += result.outcome.lineFeeds
        if let offset = result.outcome.exactReadingFrom {
            try readExactly(from: offset)
            return
        }
        if let framing = result.chunk.failure {
            ordinalBase += 1
            lineBase += framing.lineFeedsBefore
            totals.recordsRead += 1
            totals.recordsRejected += 1
            typeTotals[currentType].recordsRead += 1
            typeTotals[currentType].recordsRejected += 1
            let rejection = Rejection(
                location: RecordLocation(ordinal: ordinalBase, line: lineBase + 1, byteOffset: framing.byteOffset),
                failures: [framing.failure], rawText: framing.rawText, isRawTextTruncated: framing.isRawTextTruncated)
            // Reported like a worker's rejections: in a batch of its own, then raised on the next call.
            let batch = ColumnarBatch(fields: plans[currentType].fields, capacity: 1)
            batch.rejections = [rejection]
            terminalBatch = batch
            pendingError = .streamEnded(source: sourceName, rejection)
        }
    }

    /// Goes on from an array's lines to reading it exactly, from the line at `offset` (just after a comma, after
    /// the records delivered so far): the line reader and the workers stop, what they read or mapped past it is
    /// dropped, and a reader that frames every byte starts there, numbering on from the records before.
    private func readExactly(from offset: Int) throws(SluiceError) {
        guard let reopen = reopenForExactReading else {
            // Only a reader that may open the input again cuts lines: nothing after them may be dropped unread.
            throw end(with: .io(source: sourceName, byteOffset: offset, message: "cannot read on from here: the input cannot be opened again"))
        }
        reopenForExactReading = nil
        stopThreads(forGood: false)
        waitUntilStopped()
        condition.lock()
        // Workers that were mapping when the threads stopped left their results behind.
        for result in results.values {
            for batch in result.outcome.batches { result.engine.recycle(batch) }
        }
        results.removeAll()
        guard !isOver else {
            condition.unlock()
            return
        }
        let bytesReadAhead = max((readerBytes ?? offset) - offset, 0)
        (isCancelled, readerFinished, readerError, readerBytes, readerWaitsHolding) = (false, false, nil, nil, nil)
        (chunkCount, nextIndex, awaitedIndex, budgetInUse, chunksInFlight) = (0, 0, 0, 0, 0)
        runningWorkers = workers
        bytesBeforeReader = offset
        condition.unlock()
        let source: any ByteSource
        do {
            source = try reopen(offset, bytesReadAhead)
        } catch {
            condition.lock()
            (readerFinished, runningWorkers) = (true, 0)
            condition.unlock()
            throw end(with: error)
        }
        startThreads(reading: source, from: offset, framing: .exactAfterComma(insideWrapper: plan.recordsPath != nil))
    }

    private func end(with error: SluiceError) -> SluiceError {
        hasEnded = true
        cancel()
        return error
    }

    private func renumber(_ batch: ColumnarBatch) {
        guard ordinalBase != 0 || lineBase != 0 else { return }
        for row in 0..<batch.count {
            batch.ordinals[row] += ordinalBase
            batch.lines[row] += lineBase
        }
        for index in batch.rejections.indices { renumber(&batch.rejections[index]) }
    }

    private func renumber(_ rejection: inout Rejection) {
        rejection.location.ordinal += ordinalBase
        rejection.location.line += lineBase
    }

    private func renumber(_ error: inout SluiceError) {
        switch error {
        case .rejected(var rejection):
            renumber(&rejection)
            error = .rejected(rejection)
        case .streamEnded(let source, var rejection):
            renumber(&rejection)
            error = .streamEnded(source: source, rejection)
        default:
            break
        }
    }

    /// Chunks the reader has handed to the workers so far.
    var chunksRead: Int {
        condition.lock()
        defer { condition.unlock() }
        return chunkCount
    }

    /// Chunks of an array's lines whose records were handed out, so far.
    private(set) var arrayLineChunksDelivered = 0

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
