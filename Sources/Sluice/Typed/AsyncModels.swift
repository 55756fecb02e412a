extension TypedReader {
    /// The batches of models as an asynchronous sequence (see ``ColumnarReader/batches``).
    public var batches: AsyncBatches<ModelBatch<Model>> {
        AsyncBatches(pull: AsyncPull(pull: { () throws(SluiceError) in try self.next() }, cancel: { self.cancelReading() }))
    }

    /// The models one at a time, as an asynchronous sequence; the reader is asked for a batch at a time, so the
    /// loop pays one hop between threads per batch, not per model. As with ``nextModel()``, rejections are not
    /// elements: under the default ``RejectionPolicy/stop`` the first one is thrown, under
    /// ``RejectionPolicy/collect`` they are counted in ``statistics`` and listed only by ``batches``.
    ///
    /// ```swift
    /// for try await tweet in reader.models { ... }
    /// ```
    public var models: AsyncModels<Model> {
        AsyncModels(batches: batches)
    }
}

/// An asynchronous sequence of a typed reader's models.
public struct AsyncModels<Model>: AsyncSequence, Sendable {
    public typealias Element = Model
    let batches: AsyncBatches<ModelBatch<Model>>

    public func makeAsyncIterator() -> Iterator {
        Iterator(pull: batches.pull)
    }

    /// Hands out the models of the batch in hand, and pulls the next batch when they are done.
    public struct Iterator: AsyncIteratorProtocol {
        let pull: AsyncPull<ModelBatch<Model>>
        private var models = ContiguousArray<Model>()
        private var position = 0

        init(pull: AsyncPull<ModelBatch<Model>>) {
            self.pull = pull
        }

        public mutating func next() async throws -> Model? {
            while position == models.count {
                // Let go of the finished batch first, so that the reader can reuse its storage.
                models = []
                position = 0
                guard let batch = try await pull.next() else { return nil }
                models = batch.models
            }
            defer { position += 1 }
            return models[position]
        }
    }
}
