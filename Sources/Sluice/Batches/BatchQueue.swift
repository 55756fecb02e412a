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
    private(set) var current: ColumnarBatch
    private var ready: [ColumnarBatch] = []
    private var readyStart = 0
    private var spares: [ColumnarBatch] = []
    private let sparesLock = NSLock()

    let keepsRecordText: Bool

    init(fields: [FieldSpec], capacity: Int, keepsRecordText: Bool = false) {
        self.fields = fields
        self.capacity = capacity
        self.keepsRecordText = keepsRecordText
        current = ColumnarBatch(fields: fields, capacity: capacity, keepsRecordText: keepsRecordText)
    }

    /// Moves the batch being filled (with `count` records) to the ready list if it holds anything, and starts a
    /// fresh one.
    func completeCurrent(count: Int) {
        guard count > 0 || !current.rejections.isEmpty else { return }
        current.count = count
        ready.append(current)
        current = takeSpare() ?? ColumnarBatch(fields: fields, capacity: capacity, keepsRecordText: keepsRecordText)
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
