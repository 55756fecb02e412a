/// Reads several record types from one wrapper document in one pass: each schema names its records path, and
/// each batch comes with the index of the schema it was mapped by.
///
/// ```swift
/// let events = try MappingSchema(contentsOfFile: "events.mapping.yaml")              // records: events
/// let performances = try MappingSchema(contentsOfFile: "performances.mapping.yaml")  // records: performances
/// let reader = try MultiSchemaReader(input: .file("citm_catalog.json"), schemas: [events, performances])
/// while let (schema, batch) = try reader.next() {
///     // schema 0: a batch of events; schema 1: a batch of performances
/// }
/// ```
///
/// The document streams past once, in bounded memory; the containers are read in document order, so all the
/// batches of one type come before those of a type whose records come later in the file. Ordinals count each
/// type's records from 1; lines and byte offsets are the file's. A records path must not lie inside another.
/// Batches are reused, as with ``ColumnarReader``: one stays valid until the next call to ``next()``.
public final class MultiSchemaReader {
    private let pipeline: ParallelPipeline
    /// The schemas, in the order their indexes refer to.
    public let schemas: [MappingSchema]
    /// How far the run has come; readable from any thread while it goes on.
    public let progress = ProgressMonitor()

    /// Opens `input`, a document holding each schema's records at its records path.
    /// - Throws: ``SluiceError/invalidOptions(_:)`` when a schema has no records path, one path lies inside
    ///   another, or the options do not apply (a byte range, skipped records, headers);
    ///   ``SluiceError/io(source:byteOffset:message:)`` when the input cannot be opened.
    public init(input: Input, schemas: [MappingSchema], options: ReaderOptions = ReaderOptions()) throws(SluiceError) {
        self.schemas = schemas
        pipeline = try BatchSourceOpener.openSeveral(input, plans: schemas.map(\.plan), options: options, progress: progress)
    }

    /// Opens `input` as ``init(input:schemas:options:)`` does, and hands each batch with the rows of its schema's
    /// tables (`tables[index]`, made from `schemas[index]`), as ``ColumnarReader/init(input:schema:tables:options:)``
    /// does; a schema whose tables are nil gets batches without (``ColumnarBatch/tables`` empty).
    /// - Throws: also ``SluiceError/invalidOptions(_:)`` when `tables` and `schemas` differ in number, or a schema's
    ///   tables were made from another schema.
    public convenience init(input: Input, schemas: [MappingSchema], tables: [MappedTables?], options: ReaderOptions = ReaderOptions()) throws(SluiceError) {
        guard tables.count == schemas.count else { throw .invalidOptions("\(schemas.count) schemas and \(tables.count) sets of tables: give one per schema") }
        for (index, (table, schema)) in zip(tables, schemas).enumerated() {
            if let table { try TablesToFill.check(table, against: schema.plan, schema: index) }
        }
        var options = options
        options.tablesToFill = TablesToFill(tables: tables, source: TablesToFill.linkName(of: input))
        try self.init(input: input, schemas: schemas, options: options)
    }

    /// The next batch and the index of its schema, or `nil` at the end.
    /// - Throws: what ``ColumnarReader/next()`` throws; a records path the document does not hold is an error
    ///   once the whole document has been read, after every record found.
    public func next() throws(SluiceError) -> (schema: Int, batch: ColumnarBatch)? {
        guard let batch = try pipeline.nextBatch(reportingTo: progress) else { return nil }
        return (pipeline.lastBatchType, batch)
    }

    deinit { pipeline.cancel() }

    /// Stops reading and releases memory; ``next()`` then returns `nil`. Safe to call from any thread.
    public func cancelReading() {
        pipeline.cancel()
    }

    /// Whether every record delivered so far has passed its compressed frame's checksum (see
    /// ``ColumnarReader/isDeliveredInputVerified``).
    public var isDeliveredInputVerified: Bool { pipeline.isDeliveredInputVerified }

    /// Counts so far over all record types; final once ``next()`` has returned `nil` or thrown.
    public var statistics: ReadStatistics { pipeline.statistics }

    /// Counts so far for the records of one schema.
    public func statistics(ofSchema index: Int) -> ReadStatistics { pipeline.statistics(ofType: index) }

    /// How often each key that the schema's fields never read was seen in its records, by key path.
    public func unmappedKeys(ofSchema index: Int) -> [String: Int] { pipeline.unmappedKeys(ofType: index) }
}
