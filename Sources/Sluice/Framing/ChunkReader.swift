/// The pipeline's reading side: reads the source in large pieces, cuts the bytes into chunks that end on record
/// boundaries (NDJSON at line feeds, an array's elements and a stream's concatenated values where
/// ``RecordFramer`` finds them to end), and hands each chunk on.
///
/// The bytes after the last boundary are carried into the next chunk's buffer. A record longer than a chunk grows
/// the buffer, up to the maximum record size: a longer NDJSON line is cut off there (the worker rejects it as too
/// large) and the rest of it skipped; a longer element or value ends the run.
///
/// An array written one element per line, each followed by its comma (as most dumps are), can be cut at line feeds
/// instead, which spares the framer's pass over every byte (``ArrayFraming/linesWhenShaped``): the workers then
/// check that each line is one element and its comma, and the first line that is not is where the array is read
/// exactly again, by a reader that starts there (``ArrayFraming/exactAfterComma(insideWrapper:)``).
final class ChunkReader {
    /// How an array's elements are found.
    enum ArrayFraming {
        /// By the framer, byte by byte, throughout.
        case exact
        /// By the framer up to the end of the first line that ends after a comma; from there by line feeds, when
        /// every whole line of the first chunk after it holds one element and its comma.
        case linesWhenShaped
        /// By the framer, from just after a comma between the elements, to the array's end; `insideWrapper`: what
        /// follows the array belongs to a wrapper document and is blanked.
        case exactAfterComma(insideWrapper: Bool)
    }

    /// Whether chunks are cut at line feeds, for workers to check that each line is one element and its comma.
    enum ArrayLines {
        case undecided, no, yes
    }

    /// Where the reader hands chunks; it blocks while the memory budget is spent, and returns `false` when the
    /// run was cancelled.
    typealias Emit = (Chunk) -> Bool

    private var source: any ByteSource
    private let shape: InputShape
    private let chunkSize: Int
    let sizeLimit: RecordSizeLimit
    /// The most records a chunk holds: its batches must fit the budget however wide the mapping.
    let maximumRecords: Int
    /// What a chunk's batches may take: reserved with its bytes.
    private let batchBytes: Int
    private let pool: ChunkBufferPool
    var arrayLines: ArrayLines
    private let reserve: (_ bytes: Int, _ holding: Int, _ isNewChunk: Bool) -> Int?
    var framer: RecordFramer
    /// Byte-range shard: records (lines) that start inside `range` of the file, whose reading starts at
    /// `range.lowerBound - 1` (to see whether a line starts at the bound), or at the first record when the range
    /// starts inside the file's byte-order mark.
    let range: Range<Int>?
    /// A shard of an array's elements: where its bytes end, past which nothing is read.
    private let elementsEnd: Int?

    private(set) var bytesRead = 0
    private var nextIndex = 0
    /// With a records path: turns the wrapper into an array of the records as bytes arrive.
    var recordsFilter: RecordsPathFilter?
    /// Arrays: the absolute end of the last element framed in the buffer, while the buffer has not been handed on
    /// (a problem found later ends the run after the elements before it).
    var unhandedElementsEnd: Int?
    /// With several records paths: the container whose records are being framed (an index into the filter's
    /// ``RecordsPathFilter/containers``), or -1 before the first.
    var container = -1
    /// The records to skip and the header row, not yet counted off in chunks handed out.
    private var leadingRecords: LeadingRecords
    /// A read failure met while framing lines, thrown by the next step.
    var pendingReadError: SluiceError?

    // The buffer being filled: bytes [0, filled) sit at absolute offset `bufferOffset`.
    var buffer: UnsafeMutablePointer<UInt8>
    var capacity: Int
    private var reservation: Int
    var filled = 0
    var bufferOffset: Int
    /// Bytes at the front already searched for a boundary (NDJSON) or framed (arrays).
    var scanned = 0
    var isAtEnd = false
    /// Skipping the rest of an NDJSON line that was cut off at the size limit.
    var isDiscardingLine = false
    /// A shard that starts inside a line skips to the next line.
    var isSkippingToFirstLine = false
    /// Where the line being read started, when the whitespace it began with was dropped unhanded.
    var blankLineStart: Int?
    /// Bytes dropped since the last chunk (whitespace, and what was skipped of an oversized line or before a shard's
    /// first line), and the line feeds among the whitespace between array elements, for the next chunk to carry.
    var droppedBytes = 0
    var droppedLineFeeds = 0
    /// Hand a chunk after every read that completes a record, rather than once a chunk is full: for a reader on
    /// the caller's thread, so that a record from a pipe is mapped as soon as it has arrived.
    private let handsEachRead: Bool
    private var hasStarted = false
    private var isFinished = false
    /// The chunk framed by the last step, until ``nextChunk()`` returns it.
    var handed: Chunk?
    /// A read error to throw once the chunk before it has been returned.
    private var deferredError: SluiceError?

    /// - Parameters:
    ///   - reserve: Blocks until the budget allows `bytes` more, not counting the `holding` bytes of the reader's own
    ///     chunk that is about to be handed on (so a record larger than the budget cannot stall the reader behind
    ///     itself), for a new chunk or for a chunk's growth, and returns the bytes reserved, or `nil` when the
    ///     run was cancelled.
    init(
        source: any ByteSource, shape: InputShape, startOffset: Int, range: Range<Int>?, chunkSize: Int,
        maximumRecordSize: Int, maximumRecords: Int, batchBytes: Int, maximumDepth: Int, pool: ChunkBufferPool, recordsPaths: [FieldPath] = [],
        elementShardEnd: Int? = nil, elementShardStartsAtArray: Bool = false, leadingRecords: LeadingRecords = LeadingRecords(),
        handsEachRead: Bool = false, arrayFraming: ArrayFraming = .exact, pairsBrackets: Bool = true, reserve: @escaping (_ bytes: Int, _ holding: Int, _ isNewChunk: Bool) -> Int?
    ) {
        self.source = source
        self.shape = shape
        self.chunkSize = chunkSize
        sizeLimit = RecordSizeLimit(bytes: maximumRecordSize)
        self.maximumRecords = maximumRecords
        self.batchBytes = batchBytes
        self.pool = pool
        self.reserve = reserve
        self.range = range
        self.leadingRecords = leadingRecords
        self.handsEachRead = handsEachRead
        var startsAfterComma = false
        switch arrayFraming {
        case .exact:
            arrayLines = .no
        case .linesWhenShaped:
            arrayLines = shape == .array && recordsPaths.count <= 1 && range == nil && elementShardEnd == nil && leadingRecords.toSkip == 0 && !leadingRecords.readsHeader
                ? .undecided : .no
        case .exactAfterComma:
            arrayLines = .no
            startsAfterComma = true
        }
        framer = RecordFramer(maximumDepth: maximumDepth, shardStartsAtArray: elementShardEnd == nil ? nil : elementShardStartsAtArray,
                             startsAfterComma: startsAfterComma, pairsBrackets: pairsBrackets, readsValues: shape == .concatenated)
        if case .exactAfterComma(insideWrapper: true) = arrayFraming { framer.blanksTrailingContent = true }
        elementsEnd = elementShardEnd
        recordsFilter = recordsPaths.isEmpty ? nil : RecordsPathFilter(paths: recordsPaths, maximumDepth: maximumDepth)
        if recordsPaths.count == 1 {
            // An array of records is scanned once, by the framer, which also blanks what follows it.
            recordsFilter?.handsOverArrays = true
            framer.blanksTrailingContent = true
        } else if recordsPaths.count > 1 {
            // The filter leaves one array per container, in document order; each starts chunks of its own.
            framer.stopsAtNextArray = true
        }
        bufferOffset = startOffset
        isSkippingToFirstLine = range.map { $0.lowerBound > startOffset } ?? false
        buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        capacity = 0
        reservation = 0
    }

    /// Reads to the end of the input (or of the shard), handing out every chunk. Returns normally at the end
    /// or when `emit` says the run was cancelled; throws the read error that stopped it, after handing out the
    /// records before it.
    func run(emit: Emit) throws(SluiceError) {
        while let chunk = try nextChunk() {
            guard emit(chunk) else { return }
        }
    }

    /// The next chunk, `nil` at the end of the input (or of the shard), or when the run was cancelled. A read
    /// error is thrown after the chunk of whole records read before it.
    func nextChunk() throws(SluiceError) -> Chunk? {
        if !hasStarted {
            hasStarted = true
            buffer.deallocate()
            guard let reserved = reserve(chunkSize + batchBytes, 0, true) else {
                (buffer, capacity) = (.allocate(capacity: 1), 1)
                isFinished = true
                return nil
            }
            (buffer, capacity) = pool.take(capacity: chunkSize)
            reservation = reserved
        }
        while handed == nil && !isFinished {
            do {
                try step()
            } catch {
                isFinished = true
                guard handed != nil else { throw error }
                deferredError = error
            }
        }
        if let chunk = handed {
            handed = nil
            return chunk
        }
        if let deferredError {
            self.deferredError = nil
            throw deferredError
        }
        return nil
    }

    /// Reads and frames until a chunk is handed, the input ends or a problem ends the run.
    func step() throws(SluiceError) {
        do {
            try readUntilChunkIsFull()
        } catch {
            // Hand out the whole records read before the failure, then report it; a problem in the bytes read
            // before it comes first, as it would have had the reads ended elsewhere.
            let (cut, problem) = completeRecordsEnd()
            if let problem {
                _ = handProblem(problem, lastElementEnd: unhandedElementsEnd)
                isFinished = true
                return
            }
            if arrayLines == .yes {
                // The array is read exactly from the line the failure cut: the elements before the failure come
                // from that reading, as they would have without lines, and so does the failure.
                let end = cut ?? 0
                filled = end
                _ = hand(upTo: end, failure: nil, exactReadingFrom: bufferOffset + end)
                isFinished = true
                return
            }
            if let cut, cut > 0 { _ = hand(upTo: cut, failure: nil) }
            throw error
        }
        if isSkippingToFirstLine { skipToFirstLine(); return }
        if isDiscardingLine {
            discardLine()
            if isAtEnd && filled == 0 { isFinished = true }
            return
        }
        let goesOn = shape == .ndjson ? frameLines() : arrayLines == .yes ? frameArrayLines() : try frameRecords()
        guard goesOn else {
            isFinished = true
            return
        }
        if isAtEnd && filled == 0 {
            isFinished = true
            if let failure = recordsFilter?.finish() {
                throw RecordsPathFilter.error(failure, source: source.name)
            }
            // A shard of a compressed file ends inside a frame, whose check covers the records read only once the
            // frame is read to its end.
            if range != nil || elementsEnd != nil { try source.readToFrameEnd() }
        }
    }

    deinit {
        framer.deallocate()
        recordsFilter?.deallocate()
        if hasStarted {
            pool.give(buffer, capacity: capacity, keepLimit: 2 * chunkSize)
        } else {
            buffer.deallocate()
        }
    }

    // MARK: - Reading

    private func readUntilChunkIsFull() throws(SluiceError) {
        // A read that failed while lines were framed ends the run here, after the whole records before it (the
        // buffer may be full, with nothing left for this function to read, so the failure cannot wait to recur).
        if let error = pendingReadError {
            pendingReadError = nil
            throw error
        }
        if handsEachRead {
            // Bytes not yet framed are framed first: a read may wait for a pipe's next bytes.
            if filled == scanned && filled < chunkSize && !isAtEnd { try readMore() }
            return
        }
        while filled < chunkSize && !isAtEnd {
            try readMore()
        }
    }

    /// Reads once into the free end of the buffer (growing it when full: one record larger than a chunk).
    func readMore() throws(SluiceError) {
        if filled == capacity {
            // A record longer than the buffer: the growth is reserved like any chunk (or the run was cancelled).
            guard grow(to: capacity * 2) else {
                isAtEnd = true
                return
            }
        }
        let room = elementsEnd.map { min(capacity - filled, $0 - (bufferOffset + filled)) } ?? capacity - filled
        let count = room > 0 ? try source.read(into: UnsafeMutableRawBufferPointer(start: buffer + filled, count: room)) : 0
        if count == 0 {
            isAtEnd = true
        } else {
            recordsFilter?.filter(buffer + filled, count: count, at: bufferOffset + filled)
            filled += count
            bytesRead += count
        }
    }

    private func grow(to newCapacity: Int) -> Bool {
        guard let more = reserve(2 * (newCapacity - capacity), reservation, false) else { return false }
        reservation += more
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.initialize(from: buffer, count: filled)
        pool.give(buffer, capacity: capacity, keepLimit: 2 * chunkSize)
        buffer = grown
        capacity = newCapacity
        return true
    }

    /// For a read error: where the whole records read so far end, or the structural problem the array's bytes
    /// read so far hold.
    private func completeRecordsEnd() -> (cut: Int?, problem: RecordFramer.Problem?) {
        guard filled > 0, !isDiscardingLine, !isSkippingToFirstLine else { return (nil, nil) }
        guard shape != .ndjson && arrayLines != .yes else { return (lastLineFeed(from: 0, to: filled).map { $0 + 1 }, nil) }
        var problem: RecordFramer.Problem?
        if filled > scanned {
            let scan = framer.scan(buffer + scanned, count: filled - scanned, at: bufferOffset + scanned)
            if let end = scan.lastElementEnd { unhandedElementsEnd = end }
            // An element cut off by the failure is the failure's; anything else was wrong before it.
            if let found = scan.problem, found.kind != .endOfInput { problem = found }
            scanned = filled
        }
        return (unhandedElementsEnd.map { $0 - bufferOffset }, problem)
    }

    // MARK: - Handing out

    /// Hands bytes `[0, cut)` out as a chunk and carries the rest into a fresh buffer. `exactReadingFrom`: an
    /// array's lines end there, and the array is to be read exactly from there on.
    func hand(upTo cut: Int, failure: FramingFailure?, exactReadingFrom: Int? = nil) -> Bool {
        var chunk = Chunk(index: nextIndex, bytes: buffer, capacity: capacity, count: cut, offset: bufferOffset,
                          reservation: reservation, failure: failure)
        if shape == .array && arrayLines == .yes {
            chunk.holdsArrayLines = true
            chunk.exactReadingFrom = exactReadingFrom
        }
        let containers = recordsFilter?.containers ?? []
        if container >= 0 && container < containers.count { chunk.recordType = containers[container].path }
        if shape != .ndjson { chunk.elementEnds = framer.takeElementEnds(upTo: bufferOffset + cut) }
        if let keys = recordsFilter?.keys, keys.pending > 0, containers.count <= 1 || containers[max(container, 0)].isObject {
            // The chunk's records are the elements it holds; their keys come in the same order.
            chunk.recordKeys = keys.take(chunk.elementEnds.count)
        }
        if leadingRecords.toSkip > 0 || leadingRecords.readsHeader {
            let records = shape != .ndjson ? chunk.elementEnds.count : linesWithContent(upTo: cut)
            (chunk.leadingRecords, chunk.holdsHeader) = leadingRecords.take(records)
        }
        (chunk.droppedBytes, chunk.droppedLineFeeds) = (droppedBytes, droppedLineFeeds)
        (droppedBytes, droppedLineFeeds) = (0, 0)
        // Elements framed past a cut that the record limit made go with the next chunk.
        unhandedElementsEnd = framer.lastPendingElementEnd
        nextIndex += 1
        let carried = filled - cut
        // Reserve the next buffer before handing this one on, so the carried bytes have somewhere to go.
        guard let reserved = reserve(max(chunkSize, carried) + max(batchBytes, carried), reservation, true) else {
            pool.give(buffer, capacity: capacity, keepLimit: 2 * chunkSize)
            buffer = .allocate(capacity: 1)
            capacity = 1
            return false
        }
        let next = pool.take(capacity: max(chunkSize, carried))
        if carried > 0 { next.bytes.initialize(from: buffer + cut, count: carried) }
        buffer = next.bytes
        capacity = next.capacity
        reservation = reserved
        bufferOffset += cut
        filled = carried
        scanned = carried
        blankLineStart = nil
        handed = chunk
        return true
    }
}
