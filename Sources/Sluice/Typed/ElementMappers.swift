import Synchronization

/// The engines that map one array field's values from their JSON text element by element, for an array that
/// another field also reads (one only its field reads is mapped in the record's own pass); kept from one value to
/// the next: an array of nested models is mapped once per record, and an engine made for each value cost more than mapping it (on
/// tweets with a few hashtags each, about half of all the instructions of the run). Each thread that maps a value
/// takes an idle engine, or makes one, and gives it back afterwards.
final class ElementMappers<Element>: Sendable {
    private let mapping: Mapping<Element>
    private let idle = Mutex<[ElementEngine]>([])

    init(mapping: Mapping<Element>) {
        self.mapping = mapping
    }

    /// Maps the elements of the JSON array `text`; nulls are dropped, and the first element that does not map
    /// fails the whole array with the element's path relative to the array (`$[2].text`).
    func map(_ text: consuming [UInt8]) -> Result<[Element], ValueFailure> {
        let engine = idle.withLock { $0.popLast() } ?? ElementEngine(mapping: mapping)
        defer { idle.withLock { $0.append(engine) } }
        var bytes = consume text
        let framed = bytes.withUnsafeMutableBufferPointer { buffer -> Result<MappingEngine.ChunkOutcome, ValueFailure>? in
            guard let start = buffer.baseAddress else { return nil }
            let elementEnds: [Int]
            switch Self.frameElements(start, count: buffer.count, maximumDepth: engine.framingDepth) {
            case .success(let ends): elementEnds = ends
            case .failure(let failure): return .failure(failure)
            }
            let plan = mapping.plan
            return .success(engine.engine.mapChunk(start, count: buffer.count, at: 0,
                                                   leadingRecords: LeadingRecords(toSkip: plan.skippedRecords, readsHeader: plan.columnsFromHeader),
                                                   elementEnds: elementEnds))
        }
        let outcome: MappingEngine.ChunkOutcome
        switch framed {
        case nil: return .success([])
        case .failure(let failure)?: return .failure(failure)
        case .success(let mapped)?: outcome = mapped
        }
        defer { for batch in outcome.batches { engine.engine.recycle(batch) } }
        var elements = ContiguousArray<Element>()
        for batch in outcome.batches {
            let first = elements.count
            let refused = mapping.appendModels(from: batch, to: &elements)
            // Nulls are no elements: their rows are rejected (an object was expected) or, for a model that takes
            // any value, mapped; either way they are left out.
            var kept = first
            var failures: [(ordinal: Int, failure: Rejection.Failure?)] = []
            for row in 0..<batch.count {
                if let reasons = refused[row] {
                    if !Self.startsWithNull(bytes, at: batch.byteOffsets[row]) {
                        failures.append((batch.ordinals[row], reasons.first))
                    }
                    continue
                }
                if Self.startsWithNull(bytes, at: batch.byteOffsets[row]) {
                    elements.remove(at: kept)
                } else {
                    kept += 1
                }
            }
            for rejection in batch.rejections where rejection.rawText != Array("null".utf8) {
                failures.append((rejection.location.ordinal, rejection.failures.first))
            }
            if let earliest = failures.min(by: { $0.ordinal < $1.ordinal }) {
                return .failure(ArrayElements.failure(ofElement: earliest.failure, ordinal: earliest.ordinal))
            }
        }
        if let error = outcome.error {
            if case .rejected(let rejection) = error, let failure = rejection.failures.first {
                return .failure(ValueFailure(failure))
            }
            return .failure(ValueFailure(keyPath: "$", kind: .malformedJSON, expected: "an array", found: "\(error)"))
        }
        return .success(Array(elements))
    }

    /// Where each element of the array in `bytes` ends, as the chunk reader frames an array, its `[`, commas and `]`
    /// blanked in place so that the elements are a stream of values; the failure of an array that is not one.
    private static func frameElements(_ bytes: UnsafeMutablePointer<UInt8>, count: Int, maximumDepth: Int) -> Result<[Int], ValueFailure> {
        var framer = RecordFramer(maximumDepth: maximumDepth)
        defer { framer.deallocate() }
        var problem = framer.scan(bytes, count: count, at: 0).problem
        if problem == nil { problem = framer.finish(at: count).problem }
        if let problem {
            return .failure(ValueFailure(keyPath: "$", kind: .malformedJSON, expected: "an array", found: "\(problem.message) at byte \(problem.offset)"))
        }
        return .success(framer.takeElementEnds(upTo: count))
    }

    private static func startsWithNull(_ text: [UInt8], at offset: Int) -> Bool {
        offset + 4 <= text.count && text[offset] == UInt8(ascii: "n") && text[offset + 1] == UInt8(ascii: "u")
            && text[offset + 2] == UInt8(ascii: "l") && text[offset + 3] == UInt8(ascii: "l")
    }
}

/// An engine that maps one array value at a time, its elements framed into a stream of values, each walked whole, as
/// the pipeline's workers map a top-level array's. One thread uses it at a time: it is taken from its pool under the
/// pool's lock and given back the same way.
private final class ElementEngine: @unchecked Sendable {
    let engine: MappingEngine
    /// How deep the framer lets an element nest: the array's own level counts, as it does for a top-level array.
    let framingDepth: Int

    init<Element>(mapping: Mapping<Element>) {
        var options = ReaderOptions(shape: .concatenated, batchCapacity: 16, rejectionPolicy: .collect)
        framingDepth = options.maximumDepth
        // The framer blanks the array's brackets: the elements' limit is one level lower, as the pipeline's is.
        options.maximumDepth -= 1
        // The array's text reached the model outside any reader's run: the process's tokenizer walks its elements.
        engine = MappingEngine(plan: mapping.plan, chunkShape: .concatenated, hiddenOuterLevels: 1, options: options,
                               tokenizer: .processDefault, keepsRecordText: mapping.rejectsAfterCommit, sourceName: "$", columnHeader: ColumnHeader())
    }
}
