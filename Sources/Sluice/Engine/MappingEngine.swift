import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One run of a compiled plan over one input: reads, frames, tokenizes and maps, one batch at a time.
///
/// It maps either the chunks of whole records that the ``ChunkReader`` cut (NDJSON lines, an array's elements), or a
/// stream of concatenated values or one document, which no scan can cut cheaply.
///
/// A chunk's NDJSON lines are mapped one by one (a bad line then spoils only itself), each whole by simdjson, or by
/// yajl when simdjson is not chosen or cannot read it; an array chunk's elements, whose ends the reader found, go to
/// simdjson first as well. A stream goes through one yajl handle slice by slice, and the state machine finds the
/// record boundaries (so too in a nested array's text, which the typed door hands to a chunk engine of its own,
/// value after value). Either way the bytes of the record being mapped stay in ``InputBuffer``, so json fields and
/// rejections can copy them.
final class MappingEngine: BatchSource {
    let plan: CompiledPlan
    let options: ReaderOptions
    let shape: InputShape
    private var source: any ByteSource
    private let input: InputBuffer
    private let batches: BatchQueue
    private let machine: UnsafeMutablePointer<RecordStateMachine>
    private let tokenizer: YajlTokenizer
    /// Reads NDJSON records first when the options ask for it; yajl reads what it cannot.
    private let simdjson: SimdjsonTokenizer?
    private var lentBatch: ColumnarBatch?
    private var hasEnded = false
    private var pendingError: SluiceError?
    private let isCancelled = Atomic<Bool>(false)
    /// Whether this engine maps the parallel pipeline's chunks.
    private var isMappingChunks = false
    /// A read that failed while the first bytes were peeked at.
    private var peekError: SluiceError?

    // A chunk's NDJSON lines: where the next starts, and its number within the chunk.
    private var lineStart = 0
    private var lineNumber = 1
    // Streams: the next byte to hand to yajl
    private var feedFrom = 0
    // An array's elements in a chunk: where each ends, and the next to read.
    private var elementEnds: [Int] = []
    private var nextElement = 0
    /// The chunk holds an array's lines, one element and its comma each until shown otherwise.
    private var holdsArrayLines = false
    /// Where the chunk's array lines stop being one element and its comma each (or the reader stopped them).
    private var exactReadingFrom: Int?
    /// The start of the line simdjson refused after it had begun to read it, which ended the chunk's lines.
    private var refusedLineStart: Int?
    /// Mapping a chunk's lines again: those before this offset were each found to be one element and its comma
    /// (whose comma is blanked by now), and the lines end there.
    private var linesCheckedBefore: Int?
    /// Where the input's first value may start (past a byte-order mark).
    private var inputStart = 0

    /// Records the consumer rejected after they were committed (typed finishing hooks and transforms).
    private var rejectedAfterCommit = 0
    /// How far the records handed out reach, against the input's frame checksums.
    private var delivered: DeliveredInput

    /// Opens `source` as a stream: concatenated values or one document. Its first bytes are looked at for a byte
    /// order mark and, when asked, the shape. The plan's records path is not followed here: wrapper documents go
    /// through the chunk reader.
    convenience init(plan: CompiledPlan, source: any ByteSource, options: ReaderOptions, keepsRecordText: Bool = false) throws(SluiceError) {
        let options = try options.validated()
        var source = source
        // Small inputs of known size get a buffer of their size.
        let capacity = max(options.readBufferSize, 64 << 10)
        let input = InputBuffer(capacity: source.size.map { min(capacity, $0 + 16) } ?? capacity)

        // Peek at the first bytes: a byte order mark to skip, and the shape when it is to be detected. A small
        // input is then read whole before yajl sees it, so where yajl places an error does not depend on the read
        // size; from a pipe, with the shape given, no more than the mark's bytes, so its first record is not held back.
        let peekSize = options.shape == .automatic || source.size != nil ? 64 << 10 : 3
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
        let shape = options.shape == .automatic
            ? ShapeDetector.detect(UnsafeBufferPointer(start: input.storage + start, count: input.count - start))
            : options.shape
        guard shape != .ndjson else {
            // Lines are cut by the chunk reader, whose chunks ``mapChunk(_:count:at:leadingRecords:holdsHeader:recordKeys:elementEnds:)`` maps.
            throw .invalidOptions("NDJSON is read in chunks; open it with a reader")
        }
        self.init(plan: plan, shape: shape, options: options, keepsRecordText: keepsRecordText, source: source, input: input, start: start)
        self.peekError = peekError
        machine.pointee.recordsToSkip = plan.skippedRecords
        machine.pointee.readsHeader = plan.columnsFromHeader
    }

    /// An engine for the parallel pipeline's workers: it maps chunks lent to
    /// ``mapChunk(_:count:at:leadingRecords:holdsHeader:recordKeys:elementEnds:)``, one after another, in `shape`
    /// (``InputShape/ndjson`` or ``InputShape/concatenated``). The run's engines share `columnHeader`: the one that
    /// maps the chunk holding the header row reads the names into it.
    /// `hiddenOuterLevels`: levels around each record that chunks no longer show (1 for an array's elements);
    /// `options.maximumDepth` is already lowered by them.
    convenience init(plan: CompiledPlan, chunkShape shape: InputShape, hiddenOuterLevels: Int, options: ReaderOptions, keepsRecordText: Bool,
                     sourceName: String, columnHeader: ColumnHeader) {
        self.init(plan: plan, shape: shape, options: options, keepsRecordText: keepsRecordText,
                  source: MemorySource(bytes: [], name: sourceName), input: InputBuffer(capacity: 16), start: 0)
        machine.pointee.columnHeader = columnHeader
        machine.pointee.hiddenOuterLevels = hiddenOuterLevels
    }

    private init(plan: CompiledPlan, shape: InputShape, options: ReaderOptions, keepsRecordText: Bool, source: any ByteSource, input: InputBuffer, start: Int) {
        self.plan = plan
        self.options = options
        self.source = source
        self.input = input
        self.shape = shape
        delivered = DeliveredInput(checks: source.frameChecks)
        lineStart = start
        feedFrom = start
        inputStart = start

        // The current batch, those ready and the consumer's together stay within a share of the budget, however
        // wide the mapping.
        let capacity = ColumnarBatch.capacity(of: plan.fields, keepsRecordText: keepsRecordText, requested: options.batchCapacity,
                                              byteLimit: options.memoryBudget / 8)
        batches = BatchQueue(fields: plan.fields, capacity: capacity, keepsRecordText: keepsRecordText)
        machine = .allocate(capacity: 1)
        machine.initialize(to: RecordStateMachine(
            plan: plan, batches: batches, outerLevels: shape == .array ? 1 : 0,
            defersFinish: shape == .ndjson || shape == .document, maximumDepth: options.maximumDepth,
            maximumRecordSize: options.maximumRecordSize,
            stopsAtFirstRejection: options.rejectionPolicy == .stop
        ))
        machine.pointee.boundary = start
        tokenizer = YajlTokenizer(machine: machine, allowsMultipleValues: shape == .ndjson || shape == .concatenated)
        // NDJSON lines, and the elements of an array that the pipeline's chunks name one by one.
        simdjson = (shape == .ndjson || shape == .concatenated) && options.tokenizer.usesSimdjson
            ? SimdjsonTokenizer(machine: machine, matchesKeys: options.matchesKeysInWalk) : nil
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
    /// `elementEnds`: for an array's elements, where each one ends, so that each can go to simdjson on its own.
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
        isMappingChunks = true
        self.holdsArrayLines = holdsArrayLines
        machine.pointee.defersFinish = shape == .ndjson || holdsArrayLines
        linesCheckedBefore = nil
        var produced = mapRecords(from: offset, elementEnds: elementEnds, linesEndAt: exactReadingFrom)
        if let refused = refusedLineStart {
            // The line simdjson refused showed keys no field reads, which count again when the array is read
            // exactly from it: the lines before it, known good, are mapped once more without it.
            for batch in produced { batches.recycle(batch) }
            _ = machine.pointee.takeUnmappedKeyCounts()
            linesCheckedBefore = refused
            produced = mapRecords(from: offset, elementEnds: elementEnds, linesEndAt: exactReadingFrom)
        }
        // NDJSON framing counted every line already. In a stream the machine counted lines up to the last record's
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
        feedFrom = offset
        lineNumber = 1
        hasEnded = false
        pendingError = nil
        rejectedAfterCommit = 0
        machine.pointee.restart(at: offset)
        tokenizer.reset()
        self.elementEnds = simdjson == nil ? [] : elementEnds
        nextElement = 0
        exactReadingFrom = nil
        refusedLineStart = nil
        var produced: [ColumnarBatch] = []
        while true {
            if let batch = batches.takeReady() {
                produced.append(batch)
                continue
            }
            if hasEnded { break }
            do {
                if shape == .ndjson {
                    stepLines()
                } else if holdsArrayLines {
                    stepArrayLines(endingAt: readerEnd)
                } else if nextElement < self.elementEnds.count {
                    stepElements()
                } else {
                    try stepStream()
                }
            } catch {
                end(with: error)
            }
        }
        return produced
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

    var unmappedKeys: [String: Int] { machine.pointee.unmappedKeys }

    /// The unmapped keys seen since the last call, by trie node (see ``RecordStateMachine/takeUnmappedKeyCounts()``).
    func takeUnmappedKeyCounts() -> [UnmappedKey: Int] { machine.pointee.takeUnmappedKeyCounts() }

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
            if let batch = batches.takeReady() {
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
                try stepStream()
            } catch {
                end(with: error)
            }
        }
    }

    /// Delivers what was mapped, then `error` (if any) on the following call.
    private func end(with error: SluiceError?) {
        machine.pointee.flush()
        pendingError = error
        hasEnded = true
    }

    private func fillInput() throws(SluiceError) {
        if let peekError {
            self.peekError = nil
            throw peekError
        }
        try input.fill(from: &source, readSize: options.readBufferSize)
    }

    /// Whether everything read is whitespace and still held (yajl holds a bare value at the end, `42` or `"ab`,
    /// without a word: only blank input may skip its verdict).
    private func isBlankSinceStart() -> Bool {
        !machine.pointee.inRecord && input.baseOffset <= inputStart && firstNonWhitespace(from: inputStart) == input.endOffset
    }

    private func pointMachineAtBuffer() {
        machine.pointee.buffer = UnsafePointer(input.storage)
        machine.pointee.bufferOffset = input.baseOffset
        machine.pointee.bufferCount = input.count
    }

    // MARK: - NDJSON

    /// Maps the chunk's lines one by one. The chunk reader cut the chunk after a line feed, or at the input's end,
    /// or just past the size limit inside a line too long (the reader drops the rest of it), so each line is whole.
    private func stepLines() {
        while !hasEnded && !batches.hasReady {
            guard lineStart < input.endOffset else {
                end(with: nil)
                return
            }
            if let found = memchr(input.pointer(at: lineStart), 0x0A, input.endOffset - lineStart) {
                let lineFeed = lineStart + (UnsafeRawPointer(found) - UnsafeRawPointer(input.pointer(at: lineStart)))
                mapLine(from: lineStart, to: lineFeed + 1, endsWithLineFeed: true)
                lineNumber += 1
                lineStart = lineFeed + 1
            } else {
                mapLine(from: lineStart, to: input.endOffset, endsWithLineFeed: false)
                lineStart = input.endOffset
            }
        }
    }

    private static let lineFeed: [UInt8] = [0x0A]

    /// The first byte from `start` that is not whitespace, or `end` (the input's end by default): a line looks no
    /// further than itself, so that a run of blank lines costs time linear in its length.
    private func firstNonWhitespace(from start: Int, to end: Int? = nil) -> Int {
        let limit = min(end ?? input.endOffset, input.endOffset)
        var first = start
        while first < limit, ShapeDetector.isWhitespace(input.pointer(at: first).pointee) { first += 1 }
        return first
    }

    private func mapLine(from start: Int, to end: Int, endsWithLineFeed: Bool) {
        let first = firstNonWhitespace(from: start, to: end)
        guard first < end else { return }  // a blank line
        if machine.pointee.recordsToSkip > 0 {
            // A line passed over need not even be JSON (a title, a comment).
            machine.pointee.recordsToSkip -= 1
            return
        }
        // The size limit counts from the first byte to the line feed, so that it is the same whether the line
        // was seen whole or noticed too long while reading.
        if (endsWithLineFeed ? end - 1 : end) - first > options.maximumRecordSize {
            rejectOversizedLine(first: first)
            return
        }
        var last = end
        while last > first, ShapeDetector.isWhitespace(input.pointer(at: last - 1).pointee) { last -= 1 }

        pointMachineAtBuffer()
        machine.pointee.knownRecordStart = first
        machine.pointee.knownRecordLine = lineNumber
        var isUTF8 = true
        if let simdjson {
            switch simdjson.walk(input.pointer(at: first), count: last - first, readable: input.readableBytes(from: first), at: first) {
            case .ok:
                finishLine(keepGoing: machine.pointee.finishDeferredRecord())
                return
            case .cancelled:
                finishLine(keepGoing: machine.pointee.stoppingRejection != nil || machine.pointee.rejectRecordInProgress(nil, end: last))
                return
            case .invalidUTF8:
                isUTF8 = false
            case .unreadable:
                machine.pointee.abandonRecordInProgress()
            }
        }
        var status = tokenizer.parse(input.pointer(at: start), count: end - start, at: start)
        if status == .ok && !endsWithLineFeed {
            // A line feed ends a number or literal that the input's last line leaves open.
            status = Self.lineFeed.withUnsafeBufferPointer { newline in
                newline.baseAddress.map { tokenizer.parse($0, count: 1, at: end) } ?? .ok
            }
        }
        var keepGoing = true
        switch status {
        case .ok:
            if machine.pointee.inRecord {
                keepGoing = machine.pointee.rejectRecordInProgress(
                    .truncated(at: last, found: "the end of the line"),
                    end: last)
                tokenizer.reset()
            } else if !isUTF8 && machine.pointee.holdsCleanRecord {
                // yajl reads past ill-formed UTF-8 in values no field reads; the record is not UTF-8 all the same.
                keepGoing = machine.pointee.rejectRecordInProgress(invalidUTF8Failure(from: first, to: last), end: last)
            } else {
                keepGoing = machine.pointee.finishDeferredRecord()
            }
        case .cancelled:
            if machine.pointee.stoppingRejection == nil {
                keepGoing = machine.pointee.rejectRecordInProgress(nil, end: last)
            }
            tokenizer.reset()
        case .malformed(let message, let offset):
            keepGoing = machine.pointee.rejectRecordInProgress(syntaxFailure(message, at: offset, within: first..<last), end: last)
            tokenizer.reset()
        case .truncated(let offset):
            keepGoing = machine.pointee.rejectRecordInProgress(.truncated(at: offset), end: last)
            tokenizer.reset()
        }
        finishLine(keepGoing: keepGoing)
    }

    private func finishLine(keepGoing: Bool) {
        machine.pointee.knownRecordStart = nil
        if !keepGoing || machine.pointee.stoppingRejection != nil { stopByPolicy() }
    }

    /// The failure of a record that holds ill-formed UTF-8 in `first..<last`, where it first goes wrong.
    private func invalidUTF8Failure(from first: Int, to last: Int) -> Rejection.Failure {
        let bytes = UnsafePointer(input.pointer(at: first))
        let offset = UTF8Validation.firstInvalidOffset(bytes, last - first) ?? 0
        return Rejection.Failure(keyPath: "$", kind: .invalidUTF8, expected: "well-formed UTF-8",
                                 found: UTF8Validation.describeSequence(bytes, last - first, at: offset), byteOffset: first + offset)
    }

    private func rejectOversizedLine(first: Int) {
        pointMachineAtBuffer()
        machine.pointee.knownRecordStart = first
        machine.pointee.knownRecordLine = lineNumber
        let limit = options.maximumRecordSize
        let keepGoing = machine.pointee.rejectRecordInProgress(
            .recordTooLarge(limit: limit, found: "a longer line", at: first),
            end: first + Rejection.Failure.shownBytesOfOversizedRecord(limit: limit), rawTextIsTruncated: true)
        machine.pointee.knownRecordStart = nil
        if !keepGoing { stopByPolicy() }
    }

    private func stopByPolicy() {
        if let rejection = machine.pointee.stoppingRejection {
            end(with: .rejected(rejection))
        } else {
            endWithMachineRejection()
        }
    }

    // MARK: - Streams (array, concatenated, document)

    private func stepStream() throws(SluiceError) {
        while !hasEnded && !batches.hasReady {
            if feedFrom == input.endOffset {
                if input.isAtEnd {
                    finishStream()
                    return
                }
                pointMachineAtBuffer()
                if input.endOffset - machine.pointee.recordInProgressStart > options.maximumRecordSize {
                    machine.pointee.rejectOversizedRecordInProgress(end: input.endOffset)
                    endWithMachineRejection()
                    return
                }
                machine.pointee.countLines(upTo: machine.pointee.boundary)
                input.discard(before: machine.pointee.boundary)
                try fillInput()
                continue
            }
            pointMachineAtBuffer()
            let count = input.endOffset - feedFrom
            let status = tokenizer.parse(input.pointer(at: feedFrom), count: count, at: feedFrom)
            feedFrom = input.endOffset
            handleStreamStatus(status)
        }
    }

    /// Reads an array chunk's elements one by one with simdjson. At the first element simdjson cannot read, what it
    /// took from it is forgotten and the rest of the chunk is left to yajl's stream (``stepStream()``), which then
    /// reads from that element on exactly as it would have from the chunk's start.
    private func stepElements() {
        guard let simdjson else { return }
        pointMachineAtBuffer()
        while !hasEnded && !batches.hasReady && nextElement < elementEnds.count {
            let first = firstNonWhitespace(from: feedFrom)
            let end = elementEnds[nextElement]
            guard first < end else {
                nextElement = elementEnds.count
                return
            }
            switch simdjson.walk(input.pointer(at: first), count: end - first, readable: input.readableBytes(from: first), at: first) {
            case .ok:
                feedFrom = end
                nextElement += 1
            case .cancelled:
                feedFrom = end
                nextElement = elementEnds.count
                handleStreamStatus(.cancelled)
            case .unreadable, .invalidUTF8:
                machine.pointee.abandonRecordInProgress()
                nextElement = elementEnds.count
            }
        }
    }

    /// Maps the chunk's lines as an array's elements, one element and its comma per line (blank lines aside).
    /// Every line before the first holds one (the reader started lines after a comma, and the earlier chunks are
    /// checked before this one is delivered), so each line starts at an element; simdjson's walk of the line up
    /// to its comma refuses anything but one value. At the first line that is not one element and its comma, or
    /// that simdjson cannot read, the chunk ends before it and the array is to be read exactly from there: by the
    /// framer and, where simdjson cannot, by yajl, as if lines had never been tried.
    private func stepArrayLines(endingAt readerEnd: Int?) {
        while !hasEnded && !batches.hasReady {
            if let checked = linesCheckedBefore, lineStart >= checked {
                readExactly(from: checked)
                return
            }
            guard lineStart < input.endOffset else {
                exactReadingFrom = readerEnd
                end(with: nil)
                return
            }
            var lineEnd = input.endOffset
            if let found = memchr(input.pointer(at: lineStart), 0x0A, input.endOffset - lineStart) {
                lineEnd = lineStart + (UnsafeRawPointer(found) - UnsafeRawPointer(input.pointer(at: lineStart)))
            }
            let next = min(lineEnd + 1, input.endOffset)
            let first = firstNonWhitespace(from: lineStart, to: lineEnd)
            if first == lineEnd {
                lineNumber += lineEnd < input.endOffset ? 1 : 0
                lineStart = next
                continue
            }
            guard let element = elementOnLine(first: first, lineEnd: lineEnd), let simdjson else {
                readExactly(from: lineStart)
                return
            }
            // Blanked, as the framer blanks the array's punctuation: the element's bytes are the same either way.
            input.pointer(at: element.comma).pointee = 0x20
            pointMachineAtBuffer()
            machine.pointee.knownRecordStart = first
            machine.pointee.knownRecordLine = lineNumber
            switch simdjson.walk(input.pointer(at: first), count: element.end - first, readable: input.readableBytes(from: first), at: first) {
            case .ok:
                finishLine(keepGoing: machine.pointee.finishDeferredRecord())
            case .cancelled:
                feedFrom = element.end
                handleStreamStatus(.cancelled)
                machine.pointee.knownRecordStart = nil
            case .unreadable, .invalidUTF8:
                machine.pointee.abandonRecordInProgress()
                machine.pointee.knownRecordStart = nil
                refusedLineStart = lineStart
                readExactly(from: lineStart)
                return
            }
            lineNumber += lineEnd < input.endOffset ? 1 : 0
            lineStart = next
        }
    }

    /// The element on the line from `first` (not whitespace) to `lineEnd`, when the line ends with a comma: where
    /// the element ends as the framer ends it (just past a container or string, past the byte after a bare number
    /// or literal), and where the comma is. `nil` when the line does not end with a comma after something, or
    /// holds more than a record may.
    private func elementOnLine(first: Int, lineEnd: Int) -> (end: Int, comma: Int)? {
        var last = lineEnd
        while last > first, ShapeDetector.isWhitespace(input.pointer(at: last - 1).pointee) { last -= 1 }
        let isChecked = linesCheckedBefore.map { first < $0 } ?? false
        // A line checked before has its comma blanked already, and then ends with its element.
        let comma = isChecked ? last : last - 1
        guard isChecked || comma > first && input.pointer(at: comma).pointee == UInt8(ascii: ",") else { return nil }
        var valueEnd = comma
        while valueEnd > first, ShapeDetector.isWhitespace(input.pointer(at: valueEnd - 1).pointee) { valueEnd -= 1 }
        let lastByte = input.pointer(at: valueEnd - 1).pointee
        let isBare = lastByte != UInt8(ascii: "}") && lastByte != UInt8(ascii: "]") && lastByte != UInt8(ascii: "\"")
        let end = isBare ? valueEnd + 1 : valueEnd
        guard end - first <= options.maximumRecordSize else { return nil }
        return (end, comma)
    }

    /// Ends the chunk's lines before the one at `offset`, from which the array is to be read exactly.
    private func readExactly(from offset: Int) {
        exactReadingFrom = offset
        end(with: nil)
    }

    private func finishStream() {
        pointMachineAtBuffer()
        if shape == .document && machine.pointee.ordinal == 0 && machine.pointee.recordInProgressStart >= input.endOffset {
            failStream(Rejection.Failure(keyPath: "$", kind: .truncated, expected: "a JSON value", found: "no value", byteOffset: input.endOffset), end: input.endOffset)
            return
        }
        // Only whitespace after the last value: nothing for yajl to complete (it would call an input without a
        // value malformed, though an empty stream of values is not). So too an array input that held only
        // whitespace: an empty input holds no records, as the parallel pipeline reads it.
        let onlyWhitespaceLeft = shape == .concatenated && !machine.pointee.inRecord
            && machine.pointee.recordInProgressStart >= input.endOffset
            || shape == .array && !machine.pointee.isOuterOpen && !machine.pointee.isOuterClosed && isBlankSinceStart()
        let status = onlyWhitespaceLeft ? .ok : tokenizer.finish()
        handleStreamStatus(status)
        guard !hasEnded else { return }
        if shape == .concatenated && !onlyWhitespaceLeft && !machine.pointee.inRecord && machine.pointee.recordInProgressStart < input.endOffset {
            // yajl holds a value cut short outside any container (a string, a literal) without a word at the end
            // of a stream of values: the last record was cut off.
            failStream(.truncated(at: input.endOffset), end: input.endOffset)
            return
        }
        if machine.pointee.inRecord || machine.pointee.isOuterOpen {
            failStream(Rejection.Failure(keyPath: "$", kind: .truncated, expected: "the rest of the input", found: "the end of the input", byteOffset: input.endOffset), end: input.endOffset)
            return
        }
        if shape == .document {
            if machine.pointee.hasDeferredRecord {
                if !machine.pointee.finishDeferredRecord() { stopByPolicy() }
            }
        }
        if !hasEnded { end(with: nil) }
    }

    private func handleStreamStatus(_ status: YajlTokenizer.Status) {
        switch status {
        case .ok:
            return
        case .cancelled:
            if machine.pointee.stoppingRejection != nil {
                stopByPolicy()
            } else if machine.pointee.endingRejection != nil {
                endWithMachineRejection()
            } else {
                failStream(nil, end: min(machine.pointee.lastTokenEnd, input.endOffset))
            }
        case .malformed(let message, let offset):
            readAhead(to: offset + Self.bytesShownPastAProblem)
            let recordStart = machine.pointee.isBetweenRecords ? max(offset - 1, input.baseOffset) : machine.pointee.boundary
            failStream(syntaxFailure(message, at: offset, within: recordStart..<input.endOffset), end: min(offset, input.endOffset))
        case .truncated(let offset):
            failStream(.truncated(at: offset), end: min(offset, input.endOffset))
        }
    }

    private func endWithMachineRejection() {
        guard let rejection = machine.pointee.endingRejection else { return }
        end(with: .streamEnded(source: source.name, rejection))
    }

    /// Rejects the record in progress and ends the run: a stream cannot be resynchronised.
    private func failStream(_ failure: Rejection.Failure?, end recordEnd: Int) {
        pointMachineAtBuffer()
        _ = machine.pointee.rejectRecordInProgress(failure, end: recordEnd)
        // A header that is not one ends the run with a rejection of its own, counted nowhere.
        let rejection = machine.pointee.stoppingRejection ?? machine.pointee.endingRejection ?? machine.pointee.batches.lastRejectionInCurrent
        if let rejection {
            end(with: .streamEnded(source: source.name, rejection))
        } else {
            end(with: nil)
        }
    }

    private static let bytesShownPastAProblem = 8

    /// Reads until the bytes up to absolute `end` are held (or the input ends), so that what a syntax error shows
    /// does not depend on how much had been read when it was found. The stream ends there, so a read error
    /// met on the way is beside the point.
    private func readAhead(to end: Int) {
        while input.endOffset < end && !input.isAtEnd {
            do { try fillInput() } catch { return }
        }
    }

    /// yajl's message, with the bytes around the offset (which is just past the offending byte) to show where.
    private func syntaxFailure(_ message: String, at offset: Int, within record: Range<Int>) -> Rejection.Failure {
        // Never the whitespace before the record's first byte: how much of it a reader holds depends on where its
        // chunk began.
        var start = max(record.lowerBound, input.baseOffset)
        if record.lowerBound >= input.baseOffset {
            while start < min(offset, input.endOffset) && ShapeDetector.isWhitespace(input.pointer(at: start).pointee) { start += 1 }
        }
        let from = max(offset - 16, start)
        // An array chunk ends where the chunk size says: there, show only what leads up to the problem.
        let to = isMappingChunks && shape != .ndjson ? min(offset, input.endOffset)
            : min(offset + Self.bytesShownPastAProblem, min(record.upperBound, input.endOffset))
        return .malformedJSON(message, near: UnsafeBufferPointer(start: input.pointer(at: from), count: max(to - from, 0)), at: offset)
    }
}
