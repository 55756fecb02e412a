import Dispatch

/// Pulls from a blocking reader on a queue of its own, so that `async` callers never block their executor.
/// Cancelling the waiting task cancels the reader: the parallel pipeline stops its threads and frees its chunks.
struct AsyncPull<Element>: @unchecked Sendable {
    // The reader is used from one queue at a time: the iterator awaits each pull before the next.
    private let pull: () throws(SluiceError) -> Element?
    private let cancel: () -> Void
    private let queue = DispatchQueue(label: "sluice.async-reader")

    init(pull: @escaping () throws(SluiceError) -> Element?, cancel: @escaping () -> Void) {
        self.pull = pull
        self.cancel = cancel
    }

    func next() async throws -> Element? {
        try await withTaskCancellationHandler {
            let box: UncheckedBox<Element?> = try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    do {
                        continuation.resume(returning: UncheckedBox(try pull()))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
            return box.value
        } onCancel: {
            cancel()
        }
    }
}

extension ColumnarReader {
    /// The batches as an asynchronous sequence, for `for try await` loops. A batch stays valid until the loop asks
    /// for the next one. Cancelling the task stops the reader's workers promptly and releases their memory.
    ///
    /// ```swift
    /// for try await batch in reader.batches { ... }
    /// ```
    public var batches: AsyncBatches<ColumnarBatch> {
        AsyncBatches(pull: AsyncPull(pull: { () throws(SluiceError) in try self.next() }, cancel: { self.cancelReading() }))
    }
}

/// An asynchronous sequence of a reader's batches.
public struct AsyncBatches<Batch>: AsyncSequence, Sendable {
    public typealias Element = Batch
    let pull: AsyncPull<Batch>

    public func makeAsyncIterator() -> Iterator {
        Iterator(pull: pull)
    }

    /// Pulls the reader's next batch each time it is asked.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let pull: AsyncPull<Batch>

        public mutating func next() async throws -> Batch? {
            try await pull.next()
        }
    }
}
