/// Opens an input for reading: the single-threaded ``MappingEngine`` or the ``ParallelPipeline``, whichever the
/// options and the input call for.
enum BatchSourceOpener {
    /// Opens `input` and picks how to read it: NDJSON, arrays (wrapper documents too) and concatenated values are
    /// cut into chunks of whole records by the ``ChunkReader`` and mapped chunk by chunk, by worker threads or on
    /// the caller's thread; a single document is read by one engine on the caller's thread.
    static func open(_ input: Input, plan: CompiledPlan, options: ReaderOptions, keepsRecordText: Bool, progress: ProgressMonitor) throws(SluiceError) -> any BatchSource {
        var options = try options.validated()
        try plan.checkDepth(within: options.maximumDepth)
        let tokenizer = Tokenizer(options.tokenizer)
        if let shard = options.shard {
            if shard.content == .lines {
                guard plan.recordsPath == nil else { throw .invalidOptions("a shard of lines holds no wrapper document's records") }
                // Lines are read as a byte range is; the shard only numbers them as in the whole file.
                options.byteRange = shard.byteRange
            } else {
                return try openArrayShard(input, shard: shard, plan: plan, options: options, tokenizer: tokenizer, keepsRecordText: keepsRecordText, progress: progress)
            }
        }
        // A shard past the file's start holds neither the records to skip nor the header: they are read from
        // the start of the file, and the shard starts after them at the earliest.
        var columnNames: [[UInt8]]?
        if let range = options.byteRange, range.lowerBound > 0, plan.skippedRecords > 0 || plan.columnsFromHeader {
            let preamble = try Preamble(of: input, skipping: plan.skippedRecords, header: plan.columnsFromHeader, limit: options.maximumRecordSize,
                                        maximumWindow: options.maximumDecompressionWindow)
            columnNames = preamble.columnNames
            let start = max(range.lowerBound, preamble.end)
            options.byteRange = min(start, range.upperBound)..<range.upperBound
        }
        let start = options.shard?.decodingStart
        var (raw, source) = try openCounting(input, options: &options, progress: progress, at: start)
        if options.byteRange != nil { try checkSplittable(raw: raw, source: source, what: options.shard == nil ? "a byte range" : "a shard", start: start) }
        if options.byteRange != nil && options.shape == .automatic && plan.recordsPath == nil {
            // The shape is the file's, seen from its start: a range of an array read as lines would be garbage.
            let fileShape = try ShapeDetector.shape(atStartOf: input, maximumWindow: options.maximumDecompressionWindow)
            guard fileShape == .ndjson else {
                throw .invalidOptions("a byte range splits NDJSON only, and \(raw.name) holds \(fileShape == .array ? "an array" : "a single document or concatenated values"); split arrays and wrapper documents with `sluice split` and read the shards it gives (ReaderOptions.shard)")
            }
        }
        var startOffset = 0
        var startsAtInputStart = true
        if let range = options.byteRange, range.lowerBound > 0, let start {
            // Decompressed from the frame holding the shard's start; from the byte before it, when the frame holds
            // that too, to see whether a line starts at the bound (a split cuts there; another plan may not).
            let lookback = range.lowerBound > start.offset ? 1 : 0
            try source.skip(range.lowerBound - lookback - start.offset)
            startOffset = range.lowerBound - lookback
            startsAtInputStart = false
        } else if let range = options.byteRange, range.lowerBound > 0 {
            // The first record starts after a byte-order mark: a shard that starts inside the mark holds it.
            let mark = try source.peek(4).withUnsafeBufferPointer(ShapeDetector.byteOrderMarkLength)
            if range.lowerBound > mark {
                // Read from the byte before the range, to see whether a line starts at its first byte.
                try source.skip(range.lowerBound - 1)
                startOffset = range.lowerBound - 1
                startsAtInputStart = false
            }
        }
        var shape = options.shape
        if plan.recordsPath != nil {
            // A wrapper document, which the reader turns into an array of its records.
            shape = .array
        } else if shape == .automatic && options.byteRange != nil {
            shape = .ndjson
        }
        // Only as many bytes as the decision needs, so that a pipe's first records are mapped as they arrive.
        let needsShape = shape == .automatic
        let peeked = try source.peek(upTo: 64 << 10) { bytes in
            bytes.withUnsafeBufferPointer { bytes in
                bytes.count >= 3 && (!needsShape || ShapeDetector.detection(UnsafeBufferPointer(rebasing: bytes[ShapeDetector.byteOrderMarkLength(bytes)...])).isFinal)
            }
        }
        let byteOrderMark = startOffset == 0 ? peeked.withUnsafeBufferPointer(ShapeDetector.byteOrderMarkLength) : 0
        if needsShape {
            shape = peeked.withUnsafeBufferPointer { ShapeDetector.detect(UnsafeBufferPointer(rebasing: $0[byteOrderMark...])) }
        }
        if options.byteRange != nil && (shape != .ndjson || plan.recordsPath != nil) {
            throw .invalidOptions("a byte range can split NDJSON only; this input is read as \(shape.rawValue)")
        }
        guard shape != .document else {
            // One document is one record: one thread reads it (the byte-order mark still in front, which the engine
            // skips and counts in its offsets).
            var sequential = options
            sequential.shape = shape
            let engine = try MappingEngine(plan: plan, document: source, options: sequential, keepsRecordText: keepsRecordText)
            engine.tableRows = options.tablesToFill?.rows(ofMapping: 0)
            return engine
        }
        if byteOrderMark > 0 {
            try source.skip(byteOrderMark)
            startOffset = byteOrderMark
        }
        // One worker reads and maps on the caller's thread, except where a reader thread of its own pays: it
        // decompresses, or frames a large array's elements or stream's values for simdjson, while the worker maps,
        // on another core.
        let runsInline = options.workers == 1 && !source.isDecompressing
            && !(shape != .ndjson && (raw.size ?? 0) >= options.chunkSize && tokenizer.framesElementsOnReaderThread)
        return ParallelPipeline(plans: [plan], source: source, shape: shape, startOffset: startOffset, options: options, tokenizer: tokenizer,
                                keepsRecordText: keepsRecordText, startsAtInputStart: startsAtInputStart, columnNames: columnNames,
                                runsInline: runsInline, reopenForExactReading: runsInline ? nil : reopening(input, raw: raw, source: source, shape: shape, tokenizer: tokenizer,
                                                                                                          plan: plan, options: options, progress: progress))
    }

    /// For an array file that a reader thread may cut at line feeds (its elements checked by simdjson, line by
    /// line): how to open it again where its lines stop being one element each, to read it exactly from there.
    /// `nil` where lines are not tried: the input is a stream or compressed, or split, or starts with records that
    /// are not mapped. A file is opened again through its open descriptor, so it is the file that was read.
    private static func reopening(_ input: Input, raw: any ByteSource, source: PrefixedSource, shape: InputShape, tokenizer: Tokenizer, plan: CompiledPlan,
                                  options: ReaderOptions, progress: ProgressMonitor) -> ParallelPipeline.ReopenAt? {
        guard shape == .array, options.readsArrayLines, tokenizer.readsArrayLines, !source.isDecompressing, raw.size != nil,
              options.byteRange == nil, options.shard == nil, plan.skippedRecords == 0, !plan.columnsFromHeader else { return nil }
        let file = raw as? FileSource
        guard file != nil || input.holdsItsBytes else { return nil }
        let sendableFile = UncheckedBox(file)
        return { offset, readBefore throws(SluiceError) in
            var reopened: any ByteSource
            if let file = sendableFile.value {
                reopened = try file.duplicate()
            } else {
                reopened = try input.openRaw()
            }
            let skipped = try reopened.skip(offset)
            guard skipped == offset else {
                throw .io(source: reopened.name, byteOffset: skipped, message: "the file ended at byte \(skipped) when read again from byte \(offset)")
            }
            return CountingSource(reopened, progress: progress, countedBefore: readBefore)
        }
    }

    /// A shard of an array's elements: read from its first byte to its last, mapped as elements of the records
    /// array (a wrapper's other members lie outside it), numbered as in the whole file.
    private static func openArrayShard(
        _ input: Input, shard: InputShard, plan: CompiledPlan, options: ReaderOptions, tokenizer: Tokenizer, keepsRecordText: Bool, progress: ProgressMonitor
    ) throws(SluiceError) -> any BatchSource {
        if plan.skippedRecords > 0 || plan.columnsFromHeader {
            throw .invalidOptions("skipped records and header rows are not read from shards of an array")
        }
        var options = options
        var (raw, source) = try openCounting(input, options: &options, progress: progress, at: shard.decodingStart)
        try checkSplittable(raw: raw, source: source, what: "a shard", start: shard.decodingStart)
        // Decompressed bytes have no size to check the shard against; the file's fingerprint is checked instead.
        guard shard.decodingStart != nil || shard.byteRange.upperBound <= raw.size ?? 0 else {
            throw .invalidOptions("the shard ends at byte \(shard.byteRange.upperBound), past the end of \(raw.name) (\(raw.size ?? 0) bytes): it comes from another file")
        }
        try source.skip(shard.byteRange.lowerBound - (shard.decodingStart?.offset ?? 0))
        var arrayOptions = options
        arrayOptions.shape = .array
        return ParallelPipeline(plans: [plan], source: source, shape: .array, startOffset: shard.byteRange.lowerBound, options: arrayOptions, tokenizer: tokenizer,
                                keepsRecordText: keepsRecordText, startsAtInputStart: false, runsInline: options.workers == 1)
    }

    /// Byte ranges and shards need a regular file, read as stored; a shard of a zstd, gzip or bzip2 file (one that
    /// names its `start`, where its reading starts decompressing) is read decompressed.
    private static func checkSplittable(raw: any ByteSource, source: PrefixedSource, what: String, start: DecodingStart? = nil) throws(SluiceError) {
        if raw.size == nil || source.isDecompressing && start == nil {
            throw .invalidOptions("\(what) needs an uncompressed file (\(raw.name) is \(raw.size == nil ? "a stream" : "compressed"))")
        }
    }

    /// Opens the input, counting the stored bytes read into `progress`, behind a decompressor when its first bytes
    /// say it is compressed; at a zstd frame, bzip2 block or gzip member (`start`), from there on.
    private static func openCounting(
        _ input: Input, options: inout ReaderOptions, progress: ProgressMonitor, at start: DecodingStart? = nil
    ) throws(SluiceError) -> (raw: any ByteSource, source: PrefixedSource) {
        let raw = try input.openRaw()
        progress.start(totalBytes: raw.size)
        var counting = CountingSource(raw, progress: progress)
        guard let start else {
            // Decompressing is the slower part for xz, and may be for gzip: its blocks and members get as many
            // threads as the mapping, and part of the memory budget.
            let source = try Compression.decompressing(counting, maximumWindow: options.maximumDecompressionWindow, threads: options.workers,
                                                       memoryBudget: options.memoryBudget)
            options.memoryBudget -= source.budgetedMemory
            return (raw, source)
        }
        guard start.storedOffset < raw.size ?? .max else {
            throw .invalidOptions("the shard's \(start.name) starts at byte \(start.storedOffset), past the end of \(raw.name): it comes from another file")
        }
        _ = try counting.skip(start.storedOffset)
        let source = try Compression.decompressing(counting, at: start, maximumWindow: options.maximumDecompressionWindow, threads: options.workers,
                                                   memoryBudget: options.memoryBudget)
        options.memoryBudget -= source.budgetedMemory
        return (raw, source)
    }

    /// Opens a wrapper document whose records paths each lead to one plan's records, for the parallel pipeline
    /// (with one worker or more): one pass over the input maps every record type.
    static func openSeveral(_ input: Input, plans: [CompiledPlan], options: ReaderOptions, progress: ProgressMonitor) throws(SluiceError) -> ParallelPipeline {
        var options = try options.validated()
        for plan in plans { try plan.checkDepth(within: options.maximumDepth) }
        let paths = plans.map(\.recordsPath)
        var problems: [String] = []
        if plans.isEmpty { problems.append("no schemas") }
        for (index, path) in paths.enumerated() {
            guard let path else {
                problems.append("schema \(index + 1) has no records path (each record type needs the key path of its records)")
                continue
            }
            for (other, otherPath) in paths.enumerated() where other != index {
                if let otherPath, otherPath.segments.count <= path.segments.count, Array(path.segments.prefix(otherPath.segments.count)) == otherPath.segments,
                   otherPath.segments.count < path.segments.count || other < index {
                    problems.append("records path \(path) lies inside \(otherPath) (schemas \(other + 1) and \(index + 1)): record types must not nest")
                }
            }
        }
        if paths.count > 64 { problems.append("at most 64 record types can be read in one pass") }
        if plans.contains(where: { $0.skippedRecords > 0 || $0.columnsFromHeader }) {
            problems.append("skipped records and headers apply to one record type at a time")
        }
        if options.byteRange != nil || options.shard != nil { problems.append("byte ranges and shards apply to one record type at a time") }
        guard problems.isEmpty else { throw .invalidOptions(problems.joined(separator: "; ")) }

        var (_, source) = try openCounting(input, options: &options, progress: progress)
        let byteOrderMark = try source.peek(4).withUnsafeBufferPointer(ShapeDetector.byteOrderMarkLength)
        if byteOrderMark > 0 { try source.skip(byteOrderMark) }
        return ParallelPipeline(plans: plans, source: source, shape: .array, startOffset: byteOrderMark, options: options,
                                tokenizer: Tokenizer(options.tokenizer), keepsRecordText: false)
    }
}
