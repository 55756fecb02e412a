import Synchronization

/// A ``RecordEncoder`` made the first time a record is written back as JSON: most mappings never are, and the
/// encoder's tree of a mapping of 100,000 fields takes 16 MB.
final class LazyRecordEncoder: Sendable {
    private let plan: CompiledPlan
    private let made = Mutex<RecordEncoder?>(nil)

    init(plan: CompiledPlan) {
        self.plan = plan
    }

    /// The JSON text of `row` of `batch`.
    func encode(_ batch: ColumnarBatch, row: Int) -> [UInt8] {
        let encoder = made.withLock { made in
            if let made { return made }
            let encoder = RecordEncoder(plan: plan)
            made = encoder
            return encoder
        }
        return encoder.encode(batch, row: row)
    }
}
