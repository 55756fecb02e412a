import Synchronization

/// One run of a compiled plan over one input: reads, frames, tokenizes and maps, one batch at a time.
///
/// It maps either the chunks of whole records that the ``ChunkReader`` cut (NDJSON lines, an array's elements,
/// concatenated values), or one document (read whole and walked, or judged by yajl when the walks hand it back).
///
/// A chunk's NDJSON lines are mapped one by one (a bad line then spoils only itself), each whole by simdjson, or by
/// yajl's matched walk when simdjson is not chosen or cannot read it, or judged by yajl when neither walk can; so are
/// the elements or values of other chunks, whose ends the reader found (or the typed door's framer, in a nested
/// array's text). The bytes of the record being mapped stay in ``InputBuffer``, so json fields and rejections can
/// copy them.
final class MappingEngine: BatchSource {
    let plan: CompiledPlan
    let options: ReaderOptions
    let shape: InputShape
    var source: any ByteSource
    let input: InputBuffer
    let batches: BatchQueue
    let machine: UnsafeMutablePointer<RecordStateMachine>
    /// Reads what simdjson is not chosen for or cannot read, and judges what neither walk reads.
    let yajl: YajlTokenizer
    /// Reads records first when the run walks with simdjson; yajl reads what it cannot.
    let simdjson: SimdjsonTokenizer?
    private var lentBatch: ColumnarBatch?
    /// Fills each batch's tables' rows before it is handed on, when the reader was asked for them; set by
    /// whoever makes the engine, which knows the mapping it is for.
    var tableRows: TableRows?
    var hasEnded = false
    private var pendingError: SluiceError?
    private let isCancelled = Atomic<Bool>(false)
    /// A read that failed while the first bytes were peeked at: it is thrown when reading reaches it, after what was
    /// read before it.
    var peekError: SluiceError?

    // A chunk's NDJSON lines: where the next starts, and its number within the chunk.
    var lineStart = 0
    var lineNumber = 1
    /// Where the bytes not yet read begin: the next element's, or the document's.
    var readFrom = 0
    /// Whether what follows the chunk's last whole element has been judged (``judgeTail()``).
    private var isTailJudged = false
    /// An array's elements or concatenated values in a chunk: where each ends, and the next to read.
    var elementEnds: [Int] = []
    var nextElement = 0
    /// The chunk holds an array's lines, one element and its comma each until shown otherwise.
    private var holdsArrayLines = false
    /// Where the chunk's array lines stop being one element and its comma each (or the reader stopped them).
    var exactReadingFrom: Int?
    /// Where the input's first value may start (past a byte-order mark).
    var inputStart = 0
    /// One document: whether it has been read.
    private var isDocumentRead = false

    /// Keys no field reads that the matched walk counted, taken from it for ``unmappedKeys`` and not yet handed on.
    private var keysCountedInWalk: [UnmappedKey: Int] = [:]  // lint: reporting, not the per-value path
    /// Records the consumer rejected after they were committed (typed finishing hooks and transforms).
    private var rejectedAfterCommit = 0
    /// How far the records handed out reach, against the input's frame checksums.
    var delivered: DeliveredInput

    /// Opens `source` as one document, which is one record. Its first bytes are looked at for a byte order mark. The
    /// plan's records path is not followed here: wrapper documents go through the chunk reader.
    convenience init(plan: CompiledPlan, document source: any ByteSource, options: ReaderOptions, keepsRecordText: Bool = false) throws(SluiceError) {
        let options = try options.validated()
        var source = source
        // Small inputs of known size get a buffer of their size.
        let capacity = max(options.readBufferSize, 64 << 10)
        let input = InputBuffer(capacity: source.size.map { min(capacity, $0 + 16) } ?? capacity)

        // Peek at the first bytes, for a byte order mark to skip. A small input of known size is read whole at once,
        // so where its size limit is found does not depend on the read size; from a pipe, no more than the mark's
        // bytes.
        let peekSize = source.size != nil ? 64 << 10 : 3
        var peekError: SluiceError?
        while input.count < peekSize && !input.isAtEnd {
            do {
                try input.fill(from: &source, readSize: min(options.readBufferSize, peekSize - input.count))
            } catch {
                // Records before the failure are still delivered; the error comes when reading reaches it.
                peekError = error
                break
            }
        }
        let start = ShapeDetector.byteOrderMarkLength(UnsafeBufferPointer(start: input.storage, count: input.count))
        // A document, one record of any size, is walked by yajl alone.
        self.init(plan: plan, shape: .document, options: options, tokenizer: .yajl, keepsRecordText: keepsRecordText, source: source, input: input, start: start)
        self.peekError = peekError
        machine.pointee.recordsToSkip = plan.skippedRecords
        machine.pointee.readsHeader = plan.columnsFromHeader
    }

    /// An engine for the parallel pipeline's workers: it maps chunks lent to
    /// ``mapChunk(_:count:at:leadingRecords:holdsHeader:recordKeys:elementEnds:)``, one after another, in `shape`
    /// (``InputShape/ndjson`` or ``InputShape/concatenated``). The run's engines share `columnHeader`: the one that
    /// maps the chunk holding the header row reads the names into it.
    /// `hiddenOuterLevels`: levels around each record that chunks no longer show (1 for an array's elements);
    /// `options.maximumDepth` is already lowered by them. `tokenizer`: the run's, resolved once for all its engines.
    convenience init(plan: CompiledPlan, chunkShape shape: InputShape, hiddenOuterLevels: Int, options: ReaderOptions, tokenizer: Tokenizer,
                     keepsRecordText: Bool, sourceName: String, columnHeader: ColumnHeader) {
        self.init(plan: plan, shape: shape, options: options, tokenizer: tokenizer, keepsRecordText: keepsRecordText,
                  source: MemorySource(bytes: [], name: sourceName), input: InputBuffer(capacity: 16), start: 0)
        machine.pointee.columnHeader = columnHeader
        machine.pointee.hiddenOuterLevels = hiddenOuterLevels
    }

    private init(plan: CompiledPlan, shape: InputShape, options: ReaderOptions, tokenizer chosen: Tokenizer, keepsRecordText: Bool, source: any ByteSource, input: InputBuffer, start: Int) {
        self.plan = plan
        self.options = options
        self.source = source
        self.input = input
        self.shape = shape
        delivered = DeliveredInput(checks: source.frameChecks)
        lineStart = start
        readFrom = start
        inputStart = start

        // The current batch, those ready and the consumer's together stay within a share of the budget, however
        // wide the mapping.
        let capacity = ColumnarBatch.capacity(of: plan.fields, keepsRecordText: keepsRecordText, requested: options.batchCapacity,
                                              byteLimit: options.engineShare)
        batches = BatchQueue(fields: plan.fields, capacity: capacity, keepsRecordText: keepsRecordText)
        machine = .allocate(capacity: 1)
        machine.initialize(to: RecordStateMachine(
            plan: plan, batches: batches,
            defersFinish: shape == .ndjson || shape == .document, maximumDepth: options.maximumDepth,
            maximumRecordSize: options.maximumRecordSize,
            stopsAtFirstRejection: options.rejectionPolicy == .stop, memoryShare: options.engineShare
        ))
        machine.pointee.boundary = start
        let matchTables = MatchTables(plan: plan, mapsElements: !machine.pointee.elementMachines.isEmpty)
        yajl = YajlTokenizer(machine: machine, matchTables: matchTables)
        // NDJSON lines, and the elements of an array or values of a stream that the pipeline's chunks name one by one.
        if (shape == .ndjson || shape == .concatenated) && chosen.walksWithSimdjson {
            simdjson = SimdjsonTokenizer(machine: machine, matchTables: matchTables)
        } else {
            simdjson = nil
        }
    }

    /// What mapping one chunk gave: its batches (to be recycled through ``recycle(_:)``), its counts, the line
    /// feeds it held, and the error that ended it, if any.
    struct ChunkOutcome {
        var batches: [ColumnarBatch]
        var statistics: ReadStatistics
        var lineFeeds: Int
        var error: SluiceError?
        /// An array's lines: where they stopped being one element and its comma each. The outcome covers the
        /// records before it, and the array is to be read exactly from there on.
        var exactReadingFrom: Int?
    }

    /// Maps a whole chunk of records in place: `count` bytes whose first byte sits at absolute `offset`.
    /// Ordinals and lines in the outcome count from the chunk's start (1 and 1). `leadingRecords`: the records to
    /// skip and the header row still to come when the chunk starts; `holdsHeader`: the header row is among its
    /// records.
    /// `elementEnds`: for an array's elements or concatenated values, where each one ends, so that each can be walked
    /// on its own.
    /// `holdsArrayLines`: the chunk holds an array's lines instead, each to be checked to hold one element and its
    /// comma; `exactReadingFrom`: where the reader stopped them, if it did.
    func mapChunk(_ bytes: UnsafeMutablePointer<UInt8>, count: Int, at offset: Int, leadingRecords: LeadingRecords = LeadingRecords(),
                  holdsHeader: Bool = false, recordKeys: [[UInt8]] = [], elementEnds: [Int] = [],
                  holdsArrayLines: Bool = false, exactReadingFrom: Int? = nil) -> ChunkOutcome {
        machine.pointee.recordsToSkip = leadingRecords.toSkip
        machine.pointee.readsHeader = leadingRecords.readsHeader
        if plan.columnsFromHeader && !leadingRecords.readsHeader && !machine.pointee.knowsHeader {
            guard let names = machine.pointee.columnHeader?.waitForNames() else {
                // The chunk holding the header ends the run with why; this one is never delivered.
                return ChunkOutcome(batches: [], statistics: ReadStatistics(), lineFeeds: 0, error: .invalidInput(source: source.name, message: "no column header"))
            }
            machine.pointee.useHeader(names)
        }
        machine.pointee.recordKeys = recordKeys.isEmpty ? nil : RecordKeys(recordKeys)
        input.borrow(bytes, count: count, at: offset)
        self.holdsArrayLines = holdsArrayLines
        machine.pointee.defersFinish = shape == .ndjson || holdsArrayLines
        let produced = mapRecords(from: offset, elementEnds: elementEnds, linesEndAt: exactReadingFrom)
        // NDJSON framing counted every line already. Among elements the machine counted lines up to the last record's
        // start; only the rest of the chunk is left to count.
        let lineFeeds: Int
        if shape == .ndjson || holdsArrayLines {
            lineFeeds = lineNumber - 1
        } else {
            pointMachineAtBuffer()
            machine.pointee.countLines(upTo: offset + count)
            lineFeeds = machine.pointee.linesCounted
        }
        // Engines waiting for a header this chunk should have held must not wait for ever.
        if holdsHeader && machine.pointee.readsHeader { machine.pointee.columnHeader?.fail() }
        return ChunkOutcome(batches: produced, statistics: statistics, lineFeeds: lineFeeds, error: pendingError,
                            exactReadingFrom: self.exactReadingFrom)
    }

    /// Maps the borrowed chunk's records from its start, `offset`, and returns their batches.
    private func mapRecords(from offset: Int, elementEnds: [Int], linesEndAt readerEnd: Int?) -> [ColumnarBatch] {
        lineStart = offset
        readFrom = offset
        lineNumber = 1
        hasEnded = false
        pendingError = nil
        rejectedAfterCommit = 0
        machine.pointee.restart(at: offset)
        // Chunks of elements or values, the pipeline's or the typed door's framed array text.
        isTailJudged = false
        self.elementEnds = elementEnds
        nextElement = 0
        exactReadingFrom = nil
        var produced: [ColumnarBatch] = []
        while true {
            if let batch = takeReadyBatch() {
                produced.append(batch)
                continue
            }
            if hasEnded { break }
            if shape == .ndjson {
                stepLines()
            } else if holdsArrayLines {
                stepArrayLines(endingAt: readerEnd)
            } else if nextElement < self.elementEnds.count {
                stepElements()
            } else if !isTailJudged {
                isTailJudged = true
                judgeTail()
            } else {
                end(with: nil)
            }
        }
        return produced
    }

    /// The next batch ready, its tables' rows filled when the reader was asked for them.
    private func takeReadyBatch() -> ColumnarBatch? {
        guard let batch = batches.takeReady() else { return nil }
        tableRows?.fill(batch)
        return batch
    }

    /// Takes back a batch handed out by ``mapChunk(_:count:at:leadingRecords:holdsHeader:recordKeys:elementEnds:)``;
    /// safe from any thread.
    func recycle(_ batch: ColumnarBatch) {
        batches.recycle(batch)
    }

    deinit {
        machine.pointee.deallocate()
        machine.deinitialize(count: 1)
        machine.deallocate()
    }

    /// How often each key that no field reads was seen, by key path (`$.source`, `$.user.id_str`): those the machine
    /// counted, and those the matched walk counted itself. Keys inside an unread object are not counted one by one:
    /// the object's own key stands for them.
    var unmappedKeys: [String: Int] {  // lint: reporting, not the per-value path
        takeKeysCountedInWalks(into: &keysCountedInWalk)
        var counts = machine.pointee.countedUnmappedKeys(handingOn: false)
        counts.merge(keysCountedInWalk, uniquingKeysWith: +)
        return UnmappedKey.named(counts, in: plan)
    }

    /// The keys no field reads that the matched walks counted themselves since the last call.
    private func takeKeysCountedInWalks(into counts: inout [UnmappedKey: Int]) {  // lint: reporting, once per chunk
        simdjson?.takeUnmappedKeyCounts(into: &counts)
        yajl.takeUnmappedKeyCounts(into: &counts)
    }

    /// The unmapped keys seen since the last call, by trie node (see ``RecordStateMachine/takeUnmappedKeyCounts()``),
    /// the matched walk's with the machine's.
    func takeUnmappedKeyCounts() -> [UnmappedKey: Int] {  // lint: reporting, once per chunk
        var counts = machine.pointee.takeUnmappedKeyCounts()
        takeKeysCountedInWalks(into: &counts)
        counts.merge(keysCountedInWalk, uniquingKeysWith: +)
        keysCountedInWalk = [:]
        return counts
    }

    /// Whether the last record read gave `column` a value or a null; false when the key was missing.
    func lastRecordHad(column: Int) -> Bool { machine.pointee.lastRecordHad(column: column) }

    var statistics: ReadStatistics {
        ReadStatistics(
            recordsRead: machine.pointee.ordinal, recordsMapped: machine.pointee.mappedCount - rejectedAfterCommit,
            recordsRejected: machine.pointee.rejectedCount + rejectedAfterCommit, bytesRead: input.bytesRead, shape: shape
        )
    }

    var isDeliveredInputVerified: Bool { delivered.isVerified }

    /// Makes the next call to ``nextBatch()`` end the run; safe from any thread.
    func cancel() {
        isCancelled.store(true, ordering: .relaxed)
    }

    /// Counts a committed record as rejected after all (the consumer's own checks refused it).
    func countRejectedAfterCommit() {
        rejectedAfterCommit += 1
    }

    /// The next batch, `nil` at the end of the input. The batch returned before is recycled by this call.
    func nextBatch() throws(SluiceError) -> ColumnarBatch? {
        if let lentBatch {
            batches.recycle(lentBatch)
            self.lentBatch = nil
        }
        if isCancelled.load(ordering: .relaxed) { return nil }
        while true {
            if let batch = takeReadyBatch() {
                lentBatch = batch
                // The records in a batch ended before the machine's boundary.
                delivered.handedOut(through: machine.pointee.boundary)
                return batch
            }
            if hasEnded {
                if let pendingError {
                    self.pendingError = nil
                    throw pendingError
                }
                return nil
            }
            do {
                if !isDocumentRead {
                    isDocumentRead = true
                    try walkDocument()
                }
                if !hasEnded { end(with: nil) }
            } catch {
                end(with: error)
            }
        }
    }

    /// Delivers what was mapped, then `error` (if any) on the following call.
    func end(with error: SluiceError?) {
        machine.pointee.flush()
        pendingError = error
        hasEnded = true
    }

    func fillInput() throws(SluiceError) {
        if let peekError {
            self.peekError = nil
            throw peekError
        }
        try input.fill(from: &source, readSize: options.readBufferSize)
    }

    func pointMachineAtBuffer() {
        machine.pointee.buffer = UnsafePointer(input.storage)
        machine.pointee.bufferOffset = input.baseOffset
        machine.pointee.bufferCount = input.count
    }
}
