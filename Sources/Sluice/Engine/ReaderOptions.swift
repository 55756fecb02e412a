/// What a reader does when a record cannot be mapped.
public enum RejectionPolicy: String, Sendable, Hashable, CaseIterable {
    /// Throw ``SluiceError/rejected(_:)`` at the first rejected record, after delivering the records before it.
    case stop
    /// Report each rejected record in ``ColumnarBatch/rejections`` and go on.
    case collect
}

/// How a reader reads: input shape, buffer sizes, limits and the rejection policy.
public struct ReaderOptions: Sendable, Hashable {
    /// How records are laid out; detected from the first bytes by default.
    public var shape: InputShape = .automatic
    /// Bytes per read from the input. Output does not depend on it.
    public var readBufferSize = 1 << 20
    /// Records per batch.
    public var batchCapacity = 4096
    /// The largest record accepted. Larger NDJSON lines are rejected and reading goes on; in other shapes the
    /// input ends with an error.
    public var maximumRecordSize = 64 << 20
    /// The deepest nesting accepted, counting the top-level array if records are its elements.
    public var maximumDepth = 1024
    /// Stop at the first rejected record, or collect rejections and go on.
    public var rejectionPolicy: RejectionPolicy = .stop

    /// Options with every default.
    public init() {}

    /// Options with the given values; omitted ones keep their defaults.
    public init(
        shape: InputShape = .automatic, readBufferSize: Int = 1 << 20, batchCapacity: Int = 4096,
        maximumRecordSize: Int = 64 << 20, maximumDepth: Int = 1024, rejectionPolicy: RejectionPolicy = .stop
    ) {
        self.shape = shape
        self.readBufferSize = readBufferSize
        self.batchCapacity = batchCapacity
        self.maximumRecordSize = maximumRecordSize
        self.maximumDepth = maximumDepth
        self.rejectionPolicy = rejectionPolicy
    }

    func validated() throws(SluiceError) -> ReaderOptions {
        var problems: [String] = []
        if readBufferSize < 1 { problems.append("readBufferSize must be at least 1") }
        if batchCapacity < 1 { problems.append("batchCapacity must be at least 1") }
        if maximumRecordSize < 1 { problems.append("maximumRecordSize must be at least 1") }
        if maximumDepth < 1 { problems.append("maximumDepth must be at least 1") }
        if !problems.isEmpty { throw .invalidOptions(problems.joined(separator: "; ")) }
        return self
    }
}

/// Counts for one run. At every point, `recordsRead == recordsMapped + recordsRejected`.
public struct ReadStatistics: Sendable, Hashable {
    /// Records seen, mapped or rejected.
    public var recordsRead = 0
    /// Records written into batches.
    public var recordsMapped = 0
    /// Records reported as rejected.
    public var recordsRejected = 0
    /// Bytes read from the input.
    public var bytesRead = 0
    /// The shape the input was read as (the detected one for ``InputShape/automatic``).
    public var shape: InputShape = .automatic

    /// Zero counts, to add runs to.
    public init() {}

    init(recordsRead: Int, recordsMapped: Int, recordsRejected: Int, bytesRead: Int, shape: InputShape) {
        self.recordsRead = recordsRead
        self.recordsMapped = recordsMapped
        self.recordsRejected = recordsRejected
        self.bytesRead = bytesRead
        self.shape = shape
    }
}
