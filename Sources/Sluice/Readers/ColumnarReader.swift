/// Reads an input's records into columnar batches, following a ``MappingSchema``.
///
/// ```swift
/// let schema = try MappingSchema(contentsOfFile: "tweets.mapping.yaml")
/// let reader = try ColumnarReader(input: .file("tweets.ndjson"), schema: schema)
/// while let batch = try reader.next() {
///     let ids = batch.column(named: "id")
///     for row in 0..<batch.count { print(ids?.int64(row) ?? 0) }
/// }
/// ```
///
/// A reader is single-threaded; batches are reused (a batch stays valid until the next call to ``next()``).
public final class ColumnarReader {
    private let engine: any BatchSource
    /// How far the run has come; readable from any thread while it goes on.
    public let progress = ProgressMonitor()

    /// Opens `input` and looks at its first bytes (to skip a byte order mark and detect the shape).
    /// - Throws: ``SluiceError/io(source:byteOffset:message:)`` when the input cannot be opened or read,
    ///   ``SluiceError/invalidOptions(_:)`` for unusable options.
    public init(input: Input, schema: MappingSchema, options: ReaderOptions = ReaderOptions()) throws(SluiceError) {
        engine = try BatchSourceOpener.open(input, plan: schema.plan, options: options, keepsRecordText: false, progress: progress)
    }

    /// Opens `input` as ``init(input:schema:options:)`` does, and hands each batch with the rows of every table of
    /// `tables` (made from `schema`) that its records give, in ``ColumnarBatch/tables``: the records' table's rows,
    /// then each child table's, their links filled in. Rows of records without a key link by the input's name: its
    /// path, or `-` for standard input. The rows are filled by the engine that mapped the batch, on a worker's
    /// thread when the run has threads of its own.
    ///
    /// ```swift
    /// let tables = try MappedTables(schema: schema)
    /// let reader = try ColumnarReader(input: .file("tweets.ndjson"), schema: schema, tables: tables)
    /// while let batch = try reader.next() {
    ///     for (index, table) in tables.tables.enumerated() {
    ///         let rows = batch.rows(ofTable: index, forRecords: 0..<batch.count)
    ///         print(table.name(records: "tweets"), rows.count)   // rows of batch.tables[index]
    ///     }
    /// }
    /// ```
    /// - Throws: also ``SluiceError/invalidOptions(_:)`` when `tables` were made from another schema.
    public convenience init(input: Input, schema: MappingSchema, tables: MappedTables, options: ReaderOptions = ReaderOptions()) throws(SluiceError) {
        try TablesToFill.check(tables, against: schema.plan)
        var options = options
        options.tablesToFill = TablesToFill(tables: [tables], source: TablesToFill.linkName(of: input))
        try self.init(input: input, schema: schema, options: options)
    }

    /// The next batch of mapped records (with the rejections found while filling it), or `nil` at the end.
    /// - Throws: ``SluiceError/rejected(_:)`` under ``RejectionPolicy/stop``; ``SluiceError/streamEnded(source:_:)``
    ///   when a rejected record leaves no place to resume; ``SluiceError/io(source:byteOffset:message:)``. Records before
    ///   the problem are delivered first.
    public func next() throws(SluiceError) -> ColumnarBatch? {
        try engine.nextBatch(reportingTo: progress)
    }

    deinit { engine.cancel() }

    /// Stops reading: the parallel pipeline's threads stop and its memory is released; ``next()`` then returns
    /// `nil`. Safe to call from any thread.
    public func cancelReading() {
        engine.cancel()
    }

    /// Whether every record delivered so far comes from compressed data that has passed its checksum: each gzip
    /// member and zstd frame it lies in has ended with its check matched. Always true for uncompressed input.
    ///
    /// Records reach you as they are decompressed, before the end of their frame, so a damaged frame can deliver
    /// records that look valid (or rejections of garbage) before its checksum fails and the read throws. A
    /// consumer that can take records back, such as a database transaction, commits only while this is true and
    /// rolls back when a read fails; see docs/mapping.md, "Compressed input".
    public var isDeliveredInputVerified: Bool { engine.isDeliveredInputVerified }

    /// Counts so far; final once ``next()`` has returned `nil` or thrown.
    public var statistics: ReadStatistics { engine.statistics }

    /// How often each key that no field reads was seen so far, by key path (`$.source`, `$.user.id_str`,
    /// `$.entities.hashtags[0].indices`): the answer to "which keys did my mapping never read?". A key whose value
    /// is an object or array stands for everything inside it. The counts cover the records ``statistics`` counts:
    /// with several workers, those of the chunks handed out so far, never those mapped ahead and not delivered.
    public var unmappedKeys: [String: Int] { engine.unmappedKeys }

    /// The shape the input is read as.
    public var shape: InputShape { engine.shape }
}
