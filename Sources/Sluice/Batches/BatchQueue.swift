import Foundation

/// The batches of one reader: the one being filled, the filled ones waiting for the consumer, and spares.
///
/// One tokenizer call may complete several batches (a large slice of small records), so completed batches wait
/// here until the consumer takes them; batches the consumer is done with come back as spares, so the reader
/// allocates only as many as it ever had in flight. Spares are locked: in the parallel pipeline the consumer
/// hands batches back from its own thread.
final class BatchQueue: @unchecked Sendable {
    let fields: [FieldSpec]
    let capacity: Int
    private var filling: ColumnarBatch?
    private var ready: [ColumnarBatch] = []
    private var readyStart = 0
    private var spares: [ColumnarBatch] = []
    private let sparesLock = NSLock()

    let keepsRecordText: Bool

    init(fields: [FieldSpec], capacity: Int, keepsRecordText: Bool = false) {
        self.fields = fields
        self.capacity = capacity
        self.keepsRecordText = keepsRecordText
    }

    /// The batch being filled: made (or taken from the spares) when first asked for after the last one was
    /// completed, so that the batch a reader fills last is not followed by an empty one (a batch of a mapping of
    /// 100,000 fields is 10 MB).
    var current: ColumnarBatch {
        if let filling { return filling }
        let batch = takeSpare() ?? ColumnarBatch(fields: fields, capacity: capacity, keepsRecordText: keepsRecordText)
        filling = batch
        return batch
    }

    /// The last rejection in the batch being filled, if one is being filled.
    var lastRejectionInCurrent: Rejection? { filling?.rejections.last }

    /// Moves the batch being filled (with `count` records) to the ready list if it holds anything; the next one
    /// is made when ``current`` is next asked for.
    func completeCurrent(count: Int) {
        guard let filling, count > 0 || !filling.rejections.isEmpty else { return }
        filling.count = count
        ready.append(filling)
        self.filling = nil
    }

    var hasReady: Bool { readyStart < ready.count }

    /// The oldest completed batch, if any.
    func takeReady() -> ColumnarBatch? {
        guard readyStart < ready.count else { return nil }
        let batch = ready[readyStart]
        readyStart += 1
        if readyStart == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyStart = 0
        }
        return batch
    }

    /// Takes back a batch the consumer is done with.
    func recycle(_ batch: ColumnarBatch) {
        batch.reset()
        sparesLock.lock()
        spares.append(batch)
        sparesLock.unlock()
    }

    private func takeSpare() -> ColumnarBatch? {
        sparesLock.lock()
        defer { sparesLock.unlock() }
        return spares.popLast()
    }
}
