#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The pipeline's reading side: reads the source in large pieces, cuts the bytes into chunks that end on record
/// boundaries (NDJSON at line feeds, arrays at element ends found by ``ArrayFramer``), and hands each chunk on.
///
/// The bytes after the last boundary are carried into the next chunk's buffer. A record longer than a chunk grows
/// the buffer, up to the maximum record size: a longer NDJSON line is cut off there (the worker rejects it as too
/// large) and the rest of it skipped; a longer array element ends the run.
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
    private enum ArrayLines {
        case undecided, no, yes
    }

    /// Where the reader hands chunks; it blocks while the memory budget is spent, and returns `false` when the
    /// run was cancelled.
    typealias Emit = (Chunk) -> Bool

    private var source: any ByteSource
    private let shape: InputShape
    private let chunkSize: Int
    private let maximumRecordSize: Int
    /// The most records a chunk holds: its batches must fit the budget however wide the mapping.
    private let maximumRecords: Int
    /// What a chunk's batches may take: reserved with its bytes.
    private let batchBytes: Int
    private let pool: ChunkBufferPool
    private var arrayLines: ArrayLines
    private let reserve: (_ bytes: Int, _ holding: Int, _ isNewChunk: Bool) -> Int?
    private var framer: ArrayFramer
    /// Byte-range shard: records (lines) that start inside `range` of the file, whose reading starts at
    /// `range.lowerBound - 1` (to see whether a line starts at the bound), or at the first record when the range
    /// starts inside the file's byte-order mark.
    private let range: Range<Int>?
    /// A shard of an array's elements: where its bytes end, past which nothing is read.
    private let elementsEnd: Int?

    private(set) var bytesRead = 0
    private var nextIndex = 0
    /// With a records path: turns the wrapper into an array of the records as bytes arrive.
    private var recordsFilter: RecordsPathFilter?
    /// Arrays: the absolute end of the last element framed in the buffer, while the buffer has not been handed on
    /// (a problem found later ends the run after the elements before it).
    private var unhandedElementsEnd: Int?
    /// With several records paths: the container whose records are being framed (an index into the filter's
    /// ``RecordsPathFilter/containers``), or -1 before the first.
    private var container = -1
    /// The records to skip and the header row, not yet counted off in chunks handed out.
    private var leadingRecords: LeadingRecords
    /// A read failure met while framing lines, thrown by the next step.
    private var pendingReadError: SluiceError?

    // The buffer being filled: bytes [0, filled) sit at absolute offset `bufferOffset`.
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var reservation: Int
    private var filled = 0
    private var bufferOffset: Int
    /// Bytes at the front already searched for a boundary (NDJSON) or framed (arrays).
    private var scanned = 0
    private var isAtEnd = false
    /// Skipping the rest of an NDJSON line that was cut off at the size limit.
    private var isDiscardingLine = false
    /// A shard that starts inside a line skips to the next line.
    private var isSkippingToFirstLine = false
    /// Where the line being read started, when the whitespace it began with was dropped unhanded.
    private var blankLineStart: Int?
    /// Bytes dropped since the last chunk (whitespace, and what was skipped of an oversized line or before a shard's
    /// first line), and the line feeds among the whitespace between array elements, for the next chunk to carry.
    private var droppedBytes = 0
    private var droppedLineFeeds = 0
    /// Hand a chunk after every read that completes a record, rather than once a chunk is full: for a reader on
    /// the caller's thread, so that a record from a pipe is mapped as soon as it has arrived.
    private let handsEachRead: Bool
    private var hasStarted = false
    private var isFinished = false
    /// The chunk framed by the last step, until ``nextChunk()`` returns it.
    private var handed: Chunk?
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
        self.maximumRecordSize = maximumRecordSize
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
            arrayLines = recordsPaths.count <= 1 && range == nil && elementShardEnd == nil && leadingRecords.toSkip == 0 && !leadingRecords.readsHeader
                ? .undecided : .no
        case .exactAfterComma:
            arrayLines = .no
            startsAfterComma = true
        }
        framer = ArrayFramer(maximumDepth: maximumDepth, shardStartsAtArray: elementShardEnd == nil ? nil : elementShardStartsAtArray,
                             startsAfterComma: startsAfterComma, pairsBrackets: pairsBrackets)
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
    private func step() throws(SluiceError) {
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
        let goesOn = shape != .array ? frameLines() : arrayLines == .yes ? frameArrayLines() : try frameArray()
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
    private func readMore() throws(SluiceError) {
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
    private func completeRecordsEnd() -> (cut: Int?, problem: ArrayFramer.Problem?) {
        guard filled > 0, !isDiscardingLine, !isSkippingToFirstLine else { return (nil, nil) }
        guard shape == .array && arrayLines != .yes else { return (lastLineFeed(from: 0, to: filled).map { $0 + 1 }, nil) }
        var problem: ArrayFramer.Problem?
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
    private func hand(upTo cut: Int, failure: FramingFailure?, exactReadingFrom: Int? = nil) -> Bool {
        var chunk = Chunk(index: nextIndex, bytes: buffer, capacity: capacity, count: cut, offset: bufferOffset,
                          reservation: reservation, failure: failure)
        if shape == .array && arrayLines == .yes {
            chunk.holdsArrayLines = true
            chunk.exactReadingFrom = exactReadingFrom
        }
        let containers = recordsFilter?.containers ?? []
        if container >= 0 && container < containers.count { chunk.recordType = containers[container].path }
        if shape == .array { chunk.elementEnds = framer.takeElementEnds(upTo: bufferOffset + cut) }
        if let keys = recordsFilter?.keys, keys.pending > 0, containers.count <= 1 || containers[max(container, 0)].isObject {
            // The chunk's records are the elements it holds; their keys come in the same order.
            chunk.recordKeys = keys.take(chunk.elementEnds.count)
        }
        if leadingRecords.toSkip > 0 || leadingRecords.readsHeader {
            let records = shape == .array ? chunk.elementEnds.count : linesWithContent(upTo: cut)
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

    // MARK: - NDJSON

    private func frameLines() -> Bool {
        if let range, (blankLineStart ?? bufferOffset) >= range.upperBound {
            // The next line starts at or past the shard's end: it belongs to the next shard.
            filled = 0
            isAtEnd = true
            return true
        }
        // A shard ends with the line that holds byte `upperBound - 1`.
        if let range, bufferOffset + filled >= range.upperBound {
            let from = max(range.upperBound - 1 - bufferOffset, 0)
            if from < filled, let found = memchr(buffer + from, 0x0A, filled - from) {
                let cut = UnsafeRawPointer(found) - UnsafeRawPointer(buffer) + 1
                isAtEnd = true
                filled = cut
                return handLines(upTo: cut)
            }
        }
        if isAtEnd {
            return filled == 0 || handLines(upTo: filled)
        }
        if let lineFeed = lastLineFeed(from: scanned, to: filled) {
            return handLines(upTo: lineFeed + 1)
        }
        scanned = filled
        // No line feed: one line is longer than a chunk.
        let first = firstNonWhitespace()
        if first == filled {
            // Nothing but whitespace so far, and no line feed among it (lines before it were handed on): dropped
            // as it streams past, so that a blank line of any length costs neither memory nor a second scan. The
            // line still starts where it started, for the shard it belongs to.
            if blankLineStart == nil { blankLineStart = bufferOffset }
            drop(filled)
            do { try readMore() } catch { pendingReadError = error; return true }
            return true
        }
        if filled - first > maximumRecordSize {
            // The worker sees a last line over the limit and rejects it as too large; the
            // rest of the line is skipped, and its line feed starts the next chunk (so lines stay counted).
            let cut = first + maximumRecordSize + 1
            isDiscardingLine = true
            return hand(upTo: cut, failure: nil)
        }
        do { try readMore() } catch { pendingReadError = error; return true }
        return true
    }

    /// Hands out the lines in `buffer[0..<end]`, or the first `maximumRecords` of them.
    private func handLines(upTo end: Int) -> Bool {
        let cut = linesCut(end)
        guard hand(upTo: cut, failure: nil) else { return false }
        // The lines carried past a limited cut still have their line feeds to be found.
        if cut < end { scanned = 0 }
        return true
    }

    /// Where a chunk of the lines in `buffer[0..<end]` ends: at `end`, or after `maximumRecords` lines (counting
    /// blank ones, which never makes a chunk too large).
    private func linesCut(_ end: Int) -> Int {
        // A line takes a byte at least: fewer bytes than the limit cannot hold too many lines.
        let limit = maximumRecords
        guard end > limit else { return end }
        var position = 0
        for _ in 0..<limit {
            guard position < end, let found = memchr(buffer + position, 0x0A, end - position) else { return end }
            position = UnsafeRawPointer(found) - UnsafeRawPointer(buffer) + 1
        }
        return position
    }

    /// Lines in `buffer[0..<end]` that hold more than whitespace: NDJSON records (the last one may lack its line
    /// feed).
    private func linesWithContent(upTo end: Int) -> Int {
        var count = 0
        var isInContentLine = false
        for index in 0..<end {
            let byte = buffer[index]
            if byte == 0x0A {
                if isInContentLine { count += 1 }
                isInContentLine = false
            } else if !ShapeDetector.isWhitespace(byte) {
                isInContentLine = true
            }
        }
        return isInContentLine ? count + 1 : count
    }

    /// The last line feed in `buffer[from..<to]`; a record is short next to a chunk, so searching backwards
    /// touches few bytes.
    private func lastLineFeed(from: Int, to: Int) -> Int? {
        var position = to
        while position > from {
            position -= 1
            if buffer[position] == 0x0A { return position }
        }
        return nil
    }

    private func discardLine() {
        if let found = memchr(buffer, 0x0A, filled) {
            let lineFeed = UnsafeRawPointer(found) - UnsafeRawPointer(buffer)
            drop(lineFeed)
            isDiscardingLine = false
        } else {
            drop(filled)
        }
    }

    private func skipToFirstLine() {
        // Reading started one byte before the shard: a line feed there means a line starts at the bound.
        if let found = memchr(buffer, 0x0A, filled) {
            drop(UnsafeRawPointer(found) - UnsafeRawPointer(buffer) + 1)
            isSkippingToFirstLine = false
        } else {
            drop(filled)
            if isAtEnd { isSkippingToFirstLine = false }
        }
    }

    /// Where the first byte that is not whitespace sits in the buffer (`filled` when there is none).
    private func firstNonWhitespace() -> Int {
        var first = 0
        while first < filled, ShapeDetector.isWhitespace(buffer[first]) { first += 1 }
        return first
    }

    /// Forgets the first `count` bytes of the buffer; the next chunk counts them as read.
    private func drop(_ count: Int) {
        guard count > 0 else { return }
        droppedBytes += count
        let kept = filled - count
        if kept > 0 { buffer.update(from: buffer + count, count: kept) }
        filled = kept
        bufferOffset += count
        scanned = 0
    }

    // MARK: - Arrays

    private func frameArray() throws(SluiceError) -> Bool {
        if arrayLines == .undecided {
            arrayLines = .no
            if let start = firstLineOfElements() {
                // The framer reads up to there, as the probe did, and the chunk before it is handed on; lines follow.
                let scan = framer.scan(buffer, count: start, at: bufferOffset)
                if framer.arraysStarted > 0 { container += 1 }
                if scan.problem == nil && framer.state == .beforeElement {
                    guard hand(upTo: start, failure: nil) else { return false }
                    arrayLines = .yes
                    scanned = 0
                    return true
                }
                if let end = scan.lastElementEnd { unhandedElementsEnd = end }
                scanned = start
                if let problem = scan.problem { return handProblem(problem, lastElementEnd: unhandedElementsEnd) }
            }
        }
        var problem: ArrayFramer.Problem?
        if filled > scanned {
            let arraysBefore = framer.arraysStarted
            let scan = framer.scan(buffer + scanned, count: filled - scanned, at: bufferOffset + scanned)
            if let end = scan.lastElementEnd { unhandedElementsEnd = end }
            problem = scan.problem
            scanned = filled
            if framer.arraysStarted > arraysBefore { container += 1 }
            if let next = framer.nextArrayStart {
                // Another container's records start: what comes before them is the last chunk of this one.
                guard hand(upTo: next - bufferOffset, failure: nil) else { return false }
                scanned = 0
                framer.beginNextArray()
                return true
            }
        }
        if problem == nil && isAtEnd {
            let end = framer.finish(at: bufferOffset + filled)
            if let elementEnd = end.lastElementEnd { unhandedElementsEnd = elementEnd }
            problem = end.problem
        }
        if let problem {
            if problem.kind == .misplacedToken || problem.kind == .trailingGarbage || problem.kind == .notAnArray {
                // The message points past the whole token, as yajl's does: read on until it has ended.
                let at = problem.offset - bufferOffset
                while tokenLength(at: at) == nil && !isAtEnd && filled - at <= maximumRecordSize { try readMore() }
            }
            return handProblem(problem, lastElementEnd: unhandedElementsEnd)
        }
        if isAtEnd {
            guard filled > 0 else { return true }
            guard let limitedEnd = framer.pendingElementEnd(number: maximumRecords) else { return hand(upTo: filled, failure: nil) }
            return hand(upTo: limitedEnd - bufferOffset, failure: nil)
        }
        if let lastElementEnd = unhandedElementsEnd {
            let end = framer.pendingElementEnd(number: maximumRecords) ?? lastElementEnd
            return hand(upTo: end - bufferOffset, failure: nil)
        }
        // One element longer than a chunk.
        let first = firstNonWhitespace()
        if first == filled {
            // Nothing but whitespace since the last element (or what the framer and the records-path filter
            // blanked: punctuation, the wrapper's other members): dropped as it streams past, so that a run of any
            // length costs neither memory nor a second scan. Its line feeds still count.
            // The next step reads on, and at the end of the input lets the framer say whether the array was complete.
            droppedLineFeeds += NewlineCounter.count(in: UnsafeBufferPointer(start: buffer, count: filled))
            drop(filled)
            return true
        }
        if filled - first > maximumRecordSize {
            let shown = Array(UnsafeBufferPointer(start: buffer + first, count: Rejection.Failure.shownBytesOfOversizedRecord(limit: maximumRecordSize)))
            let failure = FramingFailure(
                byteOffset: bufferOffset + first, lineFeedsBefore: NewlineCounter.count(in: UnsafeBufferPointer(start: buffer, count: first)),
                failure: .recordTooLarge(limit: maximumRecordSize, found: "a longer record", at: bufferOffset + first),
                rawText: shown, isRawTextTruncated: true)
            _ = hand(upTo: 0, failure: failure)
            return false
        }
        try readMore()
        return true
    }

    /// Ends the run at a structural problem: the records before it are handed out, then the problem.
    private func handProblem(_ problem: ArrayFramer.Problem, lastElementEnd: Int?) -> Bool {
        let at = problem.offset - bufferOffset
        if problem.kind == .forWorker {
            // The worker's parser reports what is wrong there, in yajl's words.
            _ = hand(upTo: min(at + 1, filled), failure: nil)
            return false
        }
        let cut = lastElementEnd.map { $0 - bufferOffset } ?? 0
        // As one reader reports it: yajl says "parse error" and points just past the offending token; a record
        // starts at a value after an element, and at garbage after the array, where commas do not start one.
        var errorOffset = problem.offset
        var recordOffset = problem.offset
        var tokenEnd = min(at + 1, filled)
        var message = problem.message
        if problem.kind == .misplacedToken || problem.kind == .trailingGarbage {
            message = "parse error: " + message
            tokenEnd = at + (tokenLength(at: at) ?? 1)
            errorOffset = bufferOffset + tokenEnd
            if problem.kind == .trailingGarbage {
                var start = at
                while start < filled && buffer[start] == UInt8(ascii: ",") { start += 1 }
                recordOffset = bufferOffset + start
            }
        }
        // Only the offending byte: what else is in view depends on where reads and chunks ended.
        var rejection: Rejection.Failure = problem.kind == .endOfInput ? .truncated(at: errorOffset)
            : .malformedJSON(message, near: UnsafeBufferPointer(start: buffer + at, count: at < filled ? 1 : 0), at: errorOffset)
        if problem.kind == .notAnArray {
            // As one reader's state machine says it, once yajl has delivered the value's first token.
            tokenEnd = at + (tokenLength(at: at) ?? 1)
            rejection = Rejection.Failure(keyPath: "$", kind: .typeMismatch, expected: "a top-level array of records",
                                          found: "a value that is not an array", byteOffset: bufferOffset + tokenEnd)
        }
        let failure = FramingFailure(
            byteOffset: recordOffset,
            lineFeedsBefore: NewlineCounter.count(in: UnsafeBufferPointer(start: buffer + cut, count: max(at - cut, 0))),
            failure: rejection,
            rawText: at < filled && recordOffset == problem.offset ? Array(UnsafeBufferPointer(start: buffer + at, count: min(tokenEnd, filled) - at)) : [])
        _ = hand(upTo: cut, failure: failure)
        return false
    }

    // MARK: - An array's lines

    /// How much of the first chunk the line probe reads.
    private static let probedBytes = 1 << 20

    /// Where the array's lines start (just past a line feed, with the framer after a comma), when every whole line
    /// of the first chunk's bytes after it holds one element and its comma, or is blank: found by a framer of its
    /// own on a copy of those bytes, line by line, which leaves the buffer as it was. `nil` to frame exactly.
    private func firstLineOfElements() -> Int? {
        if let filter = recordsFilter {
            // Records in an object come with keys, which only the framer hands on.
            guard filter.containers.count == 1, filter.containers.first?.isObject == false else { return nil }
        }
        let count = min(filled, Self.probedBytes)
        let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, 1))
        copy.initialize(from: buffer, count: count)
        var probe = framer.fresh()
        defer {
            probe.deallocate()
            copy.deallocate()
        }
        var start: Int?
        var linesAfterStart = 0
        var lineStart = 0
        while lineStart < count, let found = memchr(copy + lineStart, 0x0A, count - lineStart) {
            let lineEnd = UnsafeRawPointer(found) - UnsafeRawPointer(copy) + 1
            let endedBefore = probe.pendingElementCount
            let scan = probe.scan(copy + lineStart, count: lineEnd - lineStart, at: bufferOffset + lineStart)
            guard scan.problem == nil else { return nil }
            let ended = probe.pendingElementCount - endedBefore
            if start == nil {
                // The first chunk ends there: it must not hold more records than a chunk may.
                guard probe.pendingElementCount <= maximumRecords else { return nil }
                if probe.state == .beforeElement && ended > 0 { start = lineEnd }
            } else {
                guard probe.state == .beforeElement && ended <= 1 else { return nil }
                linesAfterStart += 1
            }
            lineStart = lineEnd
        }
        return linesAfterStart > 0 ? start : nil
    }

    /// Cuts chunks at line feeds, for the workers to check. The lines end at the input's end, where the array must
    /// have ended (the workers find the line that ends it holding no comma) and where the framer is left to say so
    /// if it has not; or at a line longer than a record may be, which the framer reads after the lines before it.
    private func frameArrayLines() -> Bool {
        if isAtEnd {
            let cut = linesCut(filled)
            guard hand(upTo: cut, failure: nil, exactReadingFrom: cut == filled ? bufferOffset + cut : nil) else { return false }
            if cut < filled { scanned = 0 }
            return true
        }
        if let lineFeed = lastLineFeed(from: scanned, to: filled) {
            return handLines(upTo: lineFeed + 1)
        }
        scanned = filled
        // No line feed: the line is longer than a chunk (it starts at the buffer's start). It is read again exactly.
        if filled > maximumRecordSize {
            filled = 0
            _ = hand(upTo: 0, failure: nil, exactReadingFrom: bufferOffset)
            return false
        }
        do { try readMore() } catch { pendingReadError = error; return true }
        return true
    }

    /// The length of the token at `buffer[at]`, as yajl reads it before it reports a misplaced one: a string to its
    /// closing quote, a number or a literal to its last character (or the input's end), any other byte alone. A
    /// token that runs past the bytes read so far has no length yet (`nil`).
    private func tokenLength(at: Int) -> Int? {
        guard at < filled else { return 1 }
        var end = at + 1
        switch buffer[at] {
        case UInt8(ascii: "\""):
            var escaped = false
            while end < filled {
                let byte = buffer[end]
                end += 1
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == UInt8(ascii: "\"") { return end - at }
            }
            return nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            while end < filled, ArrayFramer.continuesNumber(buffer[end]) { end += 1 }
        case UInt8(ascii: "a")...UInt8(ascii: "z"):
            while end < filled, buffer[end] >= UInt8(ascii: "a") && buffer[end] <= UInt8(ascii: "z") { end += 1 }
        default:
            return 1
        }
        return end < filled || isAtEnd ? end - at : nil
    }
}
