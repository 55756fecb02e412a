/// What the readers pull batches from: the single-threaded ``MappingEngine`` or the ``ParallelPipeline``.
protocol BatchSource: AnyObject {
    var shape: InputShape { get }
    /// The next batch, `nil` at the end; the batch returned before is recycled by this call.
    func nextBatch() throws(SluiceError) -> ColumnarBatch?
    var statistics: ReadStatistics { get }
    /// The keys no field reads, over the records ``statistics`` counts (those handed out so far).
    var unmappedKeys: [String: Int] { get }
    /// Counts a delivered record as rejected after all (the typed door's checks refused it).
    func countRejectedAfterCommit()
    /// Stops background work early; the reader is being dropped.
    func cancel()
    /// Whether every record delivered so far lies in compressed frames whose checksums passed (always true for
    /// uncompressed input).
    var isDeliveredInputVerified: Bool { get }
}

extension BatchSource {
    /// The next batch, with `progress` brought up to date (and finished at the end, or at an error).
    func nextBatch(reportingTo progress: ProgressMonitor) throws(SluiceError) -> ColumnarBatch? {
        do {
            let batch = try nextBatch()
            progress.update(statistics)
            if batch == nil { progress.finish() }
            return batch
        } catch {
            progress.update(statistics)
            progress.finish()
            throw error
        }
    }
}
