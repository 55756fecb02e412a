/// A batch of models read by a ``TypedReader``.
public struct ModelBatch<Model> {
    /// The mapped records, in input order.
    public var models: ContiguousArray<Model>
    /// Where each model's record starts, parallel to ``models``.
    public var locations: ContiguousArray<RecordLocation>
    /// Records rejected while this batch was read (with ``RejectionPolicy/collect``).
    public var rejections: [Rejection]
}

/// Reads an input's records as values of a Swift model, following a ``Mapping``.
///
/// ```swift
/// let reader = try TypedReader(input: .file("tweets.ndjson"), mapping: mapping)
/// while let batch = try reader.next() {
///     for tweet in batch.models { ... }
/// }
/// ```
///
/// The arrays of a batch are reused for the next one when the caller has let go of them.
public final class TypedReader<Model> {
    private let engine: any BatchSource
    /// How far the run has come; readable from any thread while it goes on.
    public let progress: ProgressMonitor
    private let mapping: Mapping<Model>
    private var modelStorage = ContiguousArray<Model>()
    private var locations = ContiguousArray<RecordLocation>()
    private var nextModelPosition = 0
    private let options: ReaderOptions
    /// Rejections made while models were made (transforms, the finishing hook), for the batch being handed out.
    private var lateRejections: [Rejection] = []
    /// Under ``RejectionPolicy/stop``: records of the last batch after the one that stopped the run, which the
    /// counts leave out.
    private var undelivered = ReadStatistics()
    /// Under ``RejectionPolicy/stop``: the late rejection to throw once the models before it are delivered.
    private var pendingError: SluiceError?
    private var hasStopped = false

    /// Opens `input` for reading with `mapping`.
    public init(input: Input, mapping: Mapping<Model>, options: ReaderOptions = ReaderOptions()) throws(SluiceError) {
        self.mapping = mapping
        self.options = options
        progress = ProgressMonitor()
        engine = try BatchSourceOpener.open(input, plan: mapping.plan, options: options, keepsRecordText: mapping.rejectsAfterCommit, progress: progress)
        modelStorage.reserveCapacity(options.batchCapacity)
        locations.reserveCapacity(options.batchCapacity)
    }

    /// The next batch of models, or `nil` at the end.
    /// - Throws: As ``ColumnarReader/next()``.
    public func next() throws(SluiceError) -> ModelBatch<Model>? {
        guard let batch = try fill() else { return nil }
        let rejections = lateRejections.isEmpty ? batch.rejections
            : (batch.rejections + lateRejections).sorted { $0.location.ordinal < $1.location.ordinal }
        return ModelBatch(models: modelStorage, locations: locations, rejections: rejections)
    }

    /// The next model, or `nil` at the end. Rejections are not returned here: use ``next()`` with
    /// ``RejectionPolicy/collect``, or the default ``RejectionPolicy/stop``, which throws them.
    public func nextModel() throws(SluiceError) -> Model? {
        while nextModelPosition >= modelStorage.count {
            guard try fill() != nil else { return nil }
        }
        defer { nextModelPosition += 1 }
        return modelStorage[nextModelPosition]
    }

    /// Maps the engine's next batch into `modelStorage` and `locations`, reusing their storage.
    private func fill() throws(SluiceError) -> ColumnarBatch? {
        modelStorage.removeAll(keepingCapacity: true)
        locations.removeAll(keepingCapacity: true)
        nextModelPosition = 0
        lateRejections.removeAll()
        if let pendingError {
            self.pendingError = nil
            throw pendingError
        }
        guard !hasStopped, let batch = try engine.nextBatch(reportingTo: progress) else { return nil }
        let refused = mapping.appendModels(from: batch, to: &modelStorage)
        for row in 0..<batch.count {
            locations.append(RecordLocation(ordinal: batch.ordinals[row], line: batch.lines[row], byteOffset: batch.byteOffsets[row]))
        }
        if !refused.isEmpty { takeOut(refused, of: batch) }
        return batch
    }

    deinit { engine.cancel() }

    /// Stops reading: the parallel pipeline's threads stop and its memory is released; ``next()`` then returns
    /// `nil`. Safe to call from any thread.
    public func cancelReading() {
        engine.cancel()
    }

    /// Turns rows refused while their models were made into rejections, like any other.
    private func takeOut(_ refused: [Int: [Rejection.Failure]], of batch: ColumnarBatch) {
        for row in refused.keys.sorted() {
            let raw = batch.recordText.map { Array($0.pointee.textBytes(row)) } ?? []
            lateRejections.append(Rejection(location: locations[row], failures: refused[row] ?? [], rawText: raw))
            engine.countRejectedAfterCommit()
        }
        // The mapping appended no model for a refused row.
        for row in refused.keys.sorted(by: >) { locations.remove(at: row) }
        if options.rejectionPolicy == .stop, let first = lateRejections.first {
            // Deliver the models before the first refused record, then stop there: what the batch holds after
            // it was never read, as far as the counts go.
            let stop = first.location.ordinal
            for row in 0..<batch.count where batch.ordinals[row] > stop {
                undelivered.recordsRead += 1
                if refused[row] != nil { undelivered.recordsRejected += 1 } else { undelivered.recordsMapped += 1 }
            }
            for rejection in batch.rejections where rejection.location.ordinal > stop {
                undelivered.recordsRead += 1
                undelivered.recordsRejected += 1
            }
            let keep = locations.firstIndex { $0.ordinal > first.location.ordinal } ?? locations.count
            modelStorage.removeSubrange(keep...)
            locations.removeSubrange(keep...)
            lateRejections = [first]
            pendingError = .rejected(first)
            hasStopped = true
        }
    }

    /// How often each key that no field reads was seen so far, by key path (see ``ColumnarReader/unmappedKeys``).
    public var unmappedKeys: [String: Int] { engine.unmappedKeys }

    /// Whether every record delivered so far has passed its compressed frame's checksum (see
    /// ``ColumnarReader/isDeliveredInputVerified``).
    public var isDeliveredInputVerified: Bool { engine.isDeliveredInputVerified }

    /// Counts so far.
    public var statistics: ReadStatistics {
        var statistics = engine.statistics
        statistics.recordsRead -= undelivered.recordsRead
        statistics.recordsMapped -= undelivered.recordsMapped
        statistics.recordsRejected -= undelivered.recordsRejected
        return statistics
    }
}
