/// The one rule for the rows a record stages besides its own: the element rows of its arrays of models and the rows
/// of its child tables, nested to any depth. The size limit bounds a record's bytes, not the rows they make (a
/// million-element array of small objects is a few megabytes of JSON and tens of megabytes of rows), so these rows
/// count against a share of the memory budget: a record whose rows pass it is rejected as too large, naming the
/// limit, and its array is no longer read into rows once they pass it; a batch whose records' rows pass it is handed
/// on after the record that did, so that one batch holds at most twice the share.
///
/// The record's machine and its element machines, at every depth, count into the same tally.
struct StagedRows {
    /// The share of the memory budget a record's rows, and a batch's, may take.
    let limit: Int
    /// What the rows staged for the record in progress take, about.
    private(set) var recordBytes = 0
    /// What the rows staged in the batch in hand take, about (rows of rejected records included: they stay in the
    /// batch until it is emptied).
    private(set) var batchBytes = 0

    /// `share`: the memory budget's share that staged rows may take (``ReaderOptions/engineShare``).
    init(share: Int) {
        limit = max(share, 1)
    }

    /// A row of `bytes` was staged.
    mutating func add(_ bytes: Int) {
        recordBytes &+= bytes
        batchBytes &+= bytes
    }

    /// Whether the record in progress staged more than the limit.
    var recordIsOver: Bool { recordBytes > limit }

    /// Whether the batch in hand should be handed on after the record just committed.
    var batchIsFull: Bool { batchBytes > limit }

    /// A record starts.
    mutating func startRecord() { recordBytes = 0 }

    /// The batch was handed on: the next one starts empty.
    mutating func startBatch() { batchBytes = 0 }

    /// The failure of a record whose rows passed the limit while the array at `keyPath` was read into rows.
    func failure(keyPath: String) -> Rejection.Failure {
        Rejection.Failure(
            keyPath: keyPath, kind: .recordTooLarge,
            expected: "rows of at most \(CountText.grouped(limit)) bytes (an eighth of the memory budget)",
            found: "an array whose rows take more"
        )
    }
}
