import Foundation
import Sluice
import SluiceWriters
import Synchronization

/// Runs an ``ImportJob``: reads each input through its mappings and writes every record read either into its
/// table or, rejected, into the table's rejections (and to the caller), never both and never neither.
///
/// With a database destination, rows, rejections and a checkpoint per input and table are committed together,
/// at least every ``ImportJob/recordsPerCommit`` records and once a second; a run resumed after an interruption
/// or a crash (``ImportJob/resumes``) starts after the last committed record, so nothing is written twice and
/// nothing is skipped. File destinations appear only when the run ends well.
public final class Importer: Sendable {
    private let job: ImportJob
    private let stopRequested = Atomic<Bool>(false)
    /// Stops the reader of the input being read, so that a stop does not wait for input that may never come.
    private let cancelReading = Mutex<(@Sendable () -> Void)?>(nil)

    /// What the caller hears while the run goes on, all on the thread that called ``run(observer:)``.
    public struct Observer {
        /// An input is being read: its progress, and its name.
        public var inputStarted: (ProgressMonitor, _ index: Int, _ name: String) -> Void = { _, _, _ in }
        /// The input is done (or stopped).
        public var inputFinished: () -> Void = {}
        /// A record was rejected (for a table whose index is given).
        public var rejected: (Rejection, _ source: String, _ table: Int) throws(SluiceError) -> Void = { _, _, _ in }
        /// Opening the destination removed a partial file a killed run left.
        public var removedPartial: (AbandonedPartial) -> Void = { _ in }

        /// An observer that reports nothing.
        public init() {}
    }

    /// An importer that runs `job`.
    public init(_ job: ImportJob) {
        self.job = job
    }

    /// Asks the run to stop after the batch in hand: what was written is committed and the run ends as
    /// interrupted. Safe from any thread (a signal handler's queue).
    public func requestStop() {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        cancelReading.withLock { $0?() }
    }

    /// Runs the import and says how it ended; errors end up in the summary's outcome, never thrown.
    public func run(observer: Observer = Observer()) -> ImportSummary {
        let started = DispatchTime.now().uptimeNanoseconds
        var run = Run(job: job, observer: observer, isStopRequested: { [self] in stopRequested.load(ordering: .sequentiallyConsistent) },
                      readerOpened: { [self] cancel in
                          cancelReading.withLock { $0 = cancel }
                          if stopRequested.load(ordering: .sequentiallyConsistent) { cancel?() }
                      })
        run.execute()
        run.summary.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        run.summary.peakMemoryBytes = ProcessMemory.peakResidentBytes()
        return run.summary
    }
}

/// One run's state: the sink, the counts and the checkpoints.
private struct Run {
    let job: ImportJob
    let observer: Importer.Observer
    let isStopRequested: () -> Bool
    /// Hands the importer a way to stop the reader just opened (nil once it is done).
    let readerOpened: ((@Sendable () -> Void)?) -> Void
    var summary: ImportSummary
    /// The job's mappings, with what the destination adds (SQLite's integer range).
    var schemas: [MappingSchema]
    var sink: (any TableSink)?
    /// The tables written: each mapping's, and its child tables.
    var written: WrittenTables?
    /// Rows per child table (in ``WrittenTables/layouts`` order, records' tables counting none) as of the last commit.
    var committedChildRows: [Int] = []
    /// Keys of the rows of one write, when a key's rows replace the child rows of an earlier row with that key.
    private var keysInWrite: Set<UInt64> = []
    /// The checkpoint of the input being read, per table.
    var checkpoints: [Checkpoint] = []
    /// Checkpoints of inputs already done in this run, written again with every commit.
    var finished: [Checkpoint] = []
    var committed: [String: Checkpoint] = [:]
    /// What each table's rows mean, kept with its checkpoints.
    let meanings: [TableMeaning]
    var recordsSinceCommit = 0
    /// The last rejection written, which a stop by the rejection limit names.
    private var lastRejectionTaken: Rejection?
    /// Records written and rejected per table as of the last commit: what a rollback leaves.
    var committedCounts: [(written: Int, rejected: Int)]
    /// Records since the last commit lie in a compressed frame whose checksum has not passed yet.
    var holdsUnverifiedRecords = false
    var lastCommit = DispatchTime.now().uptimeNanoseconds
    var groups: [String: Int] = [:]

    init(job: ImportJob, observer: Importer.Observer, isStopRequested: @escaping () -> Bool,
         readerOpened: @escaping ((@Sendable () -> Void)?) -> Void) {
        self.job = job
        self.observer = observer
        self.isStopRequested = isStopRequested
        self.readerOpened = readerOpened
        schemas = job.schemas
        summary = ImportSummary(destination: job.destination.description, tables: job.tables.map { ImportSummary.TableCounts(name: $0.name) })
        committedCounts = job.tables.map { _ in (0, 0) }
        let dateStorage = job.destination.kind.choosesDateStorage ? job.dateStorage : nil
        meanings = zip(job.tables, job.schemas).map { TableMeaning(layout: $0, options: $1.options, dateStorage: dateStorage) }
    }

    mutating func execute() {
        do {
            schemas = try schemas.map { schema throws(SluiceError) in try schema.restricted(to: job.destination) }
            let written = try WrittenTables(tables: job.tables, schemas: schemas, destination: job.destination, readsByteRange: job.readerOptions.byteRange != nil)
            self.written = written
            for (table, _) in job.tables.enumerated() {
                for child in written.childTables(of: table) {
                    summary.childTables.append(ImportSummary.ChildTableCounts(name: written.layouts[child].name, records: job.tables[table].name))
                }
            }
            committedChildRows = summary.childTables.map { _ in 0 }
            let sink = try openSink(tables: written.layouts)
            self.sink = sink
            for partial in sink.removedPartials { observer.removedPartial(partial) }
            if job.resumes {
                let checkpoints = try sink.committedCheckpoints()
                try checkMeanings(of: checkpoints)
                for checkpoint in checkpoints { committed[checkpoint.input.path + "\u{0}" + checkpoint.table] = checkpoint }
            }
            for (index, input) in job.inputs.enumerated() {
                guard try importInput(input, index: index, sink: sink) else { break }
            }
            if summary.outcome == .complete, let limit = job.rejectLimit,
               limit.isExceeded(rejected: summary.recordsRejectedInAllRuns, read: summary.recordsRead, isFinal: true) {
                throw SluiceError.tooManyRejections("\(CountText.grouped(summary.recordsRejectedInAllRuns)) of \(CountText.grouped(summary.recordsRead)) records rejected, more than --max-rejects \(limit)")
            }
            if summary.outcome == .interrupted && (!sink.keepsCheckpoints || holdsUnverifiedRecords) {
                // A file cut short must not look complete: it is dropped. Records from a frame not yet checked
                // are rolled back to the last commit.
                abandon(sink)
            } else {
                try sink.finish(finished + checkpoints)
            }
            // The status tells of the whole import, its earlier runs' rejections included.
            if summary.outcome == .complete && summary.recordsRejectedInAllRuns > 0 { summary.outcome = .someRejected }
        } catch {
            summary.outcome = .failed(Self.message(error))
            summary.errorCategory = Self.category(of: error)
            if let sink { abandon(sink, after: error) }
        }
    }

    /// Rolls back what was not committed (a database) or drops the files, and counts only what stays. A stream keeps
    /// what it was given, and it stays counted.
    private mutating func abandon(_ sink: any TableSink, after error: (any Error)? = nil) {
        let takesBack = sink.takesBackUncommitted
        sink.abandon()
        guard takesBack else {
            // A stream keeps every batch it took whole; a batch whose write failed is lost, and counted so.
            var lost = 0
            for table in summary.tables.indices {
                lost += summary.tables[table].recordsUnaccounted
                summary.tables[table].recordsRolledBack += summary.tables[table].recordsUnaccounted
            }
            if case SluiceError.write? = error as? SluiceError {
                if lost > 0, case .failed(let message) = summary.outcome {
                    summary.outcome = .failed(message + "; up to \(CountText.grouped(lost)) records of the batch it refused may not have arrived, and count as not written")
                }
                return
            }
            if summary.recordsWritten > 0, case .failed(let message) = summary.outcome {
                let unverified = holdsUnverifiedRecords ? " (the last of them from a compressed frame that had not passed its checksum)" : ""
                summary.outcome = .failed(message + "; the \(CountText.grouped(summary.recordsWritten)) records written stay in \(sink.destinationName), which cannot take them back\(unverified)")
            }
            return
        }
        for (table, kept) in committedChildRows.enumerated() {
            summary.childTables[table].rowsRolledBack += summary.childTables[table].rowsWritten - kept
            summary.childTables[table].rowsWritten = kept
        }
        var dropped = 0
        for (table, kept) in committedCounts.enumerated() {
            // Everything read since the last commit, a batch whose write failed included.
            var counts = summary.tables[table]
            counts.recordsWritten = kept.written
            counts.recordsRejected = kept.rejected
            dropped += counts.recordsUnaccounted
            counts.recordsRolledBack += counts.recordsUnaccounted
            summary.tables[table] = counts
        }
        if dropped > 0, case .failed(let message) = summary.outcome {
            let what = !sink.keepsCheckpoints ? "not kept (the files were removed)"
                : holdsUnverifiedRecords ? "rolled back to the last commit (their compressed frame had not passed its checksum)"
                : "rolled back to the last commit"
            let resume = sink.keepsCheckpoints ? " (--resume continues from there)" : ""
            summary.outcome = .failed(message + "; the \(CountText.grouped(dropped)) records written or rejected since were \(what)\(resume)")
        }
    }

    /// Refuses to resume into a table whose checkpoints say its rows were written through another mapping, or do
    /// not say (an earlier version's).
    private func checkMeanings(of checkpoints: [Checkpoint]) throws(SluiceError) {
        for (table, layout) in job.tables.enumerated() {
            let earlier = checkpoints.filter { $0.table == layout.name }.sorted { $0.input.path < $1.input.path }
            if earlier.contains(where: { $0.meaning == nil }) {
                throw .invalidOptions("the checkpoints of table \(layout.name) were written by an earlier version of Sluice, which did not record "
                                      + "the mapping: --resume cannot tell whether the rows mean what this mapping gives; import again with --if-exists replace")
            }
            let meaning = meanings[table]
            guard let other = earlier.first(where: { $0.meaning != meaning.text }), let text = other.meaning else { continue }
            let before = TableMeaning(text: text)
            throw .invalidOptions("table \(layout.name) was imported through another mapping (fingerprint \(before.fingerprint), this one's \(meaning.fingerprint)): "
                                  + meaning.changes(since: before).joined(separator: "; ")
                                  + ". Resume with the mapping it was started with, or import again with --if-exists replace")
        }
    }

    /// The kind of what stopped the run; an error from outside Sluice has none.
    private static func category(of error: any Error) -> SluiceError.Category? {
        (error as? SluiceError)?.category
    }

    private static func message(_ error: any Error) -> String {
        switch error as? SluiceError {
        case .invalidOptions(let text), .tooManyRejections(let text): return text
        default: break
        }
        return "\(error)"
    }

    private func openSink(tables: [TableLayout]) throws(SluiceError) -> any TableSink {
        if job.resumes && job.inputs.contains("-") {
            throw .invalidOptions("standard input cannot be resumed: name the input file")
        }
        if job.resumes && !job.destination.keepsCheckpoints {
            throw .invalidOptions("--resume needs a database destination; files are written whole or not at all")
        }
        var expanded = job
        expanded.tables = tables
        return try job.destination.kind.open(expanded)
    }

    /// Imports one input; returns whether to go on with the next.
    private mutating func importInput(_ name: String, index: Int, sink: any TableSink) throws(SluiceError) -> Bool {
        let identity = try InputIdentity.of(path: name) ?? InputIdentity(path: name, size: 0, modificationNanoseconds: 0, headHash: "")
        checkpoints = zip(job.tables, meanings).map { Checkpoint(input: identity, table: $0.name, meaning: $1.text) }
        var skipUpTo = job.tables.map { _ in 0 }
        if job.resumes {
            var allComplete = true
            for (table, layout) in job.tables.enumerated() {
                guard let previous = committed[identity.path + "\u{0}" + layout.name] else {
                    allComplete = false
                    continue
                }
                guard previous.input == identity else {
                    throw .invalidOptions("\(name) has changed since it was imported into \(layout.name) (size, time or first MiB differ): cannot resume; import it again with --if-exists replace")
                }
                checkpoints[table] = previous
                skipUpTo[table] = previous.ordinal
                summary.tables[table].recordsSkipped += previous.ordinal
                summary.tables[table].recordsSkippedRejected += previous.rejected
                summary.tables[table].recordsRead += previous.ordinal
                allComplete = allComplete && previous.isComplete
            }
            if allComplete {
                finished += checkpoints
                checkpoints = []
                return true
            }
        }

        var options = job.readerOptions
        options.rejectionPolicy = .collect
        let input: Input = name == "-" ? .standardInput : .file(name)
        // Only mappings with child tables have their batches' tables filled: the others' rows are the batches' own.
        let tables = written?.mapped.map { $0.hasChildTables ? $0 : nil } ?? schemas.map { _ in nil }
        let reader = try BatchReader(input: input, schemas: schemas, tables: tables, options: options)
        observer.inputStarted(reader.progress, index, name)
        let cancellable = UncheckedSendable(reader)
        readerOpened { cancellable.value.cancel() }
        defer {
            readerOpened(nil)
            observer.inputFinished()
            summary.bytesRead += reader.statistics.bytesRead
            for (key, count) in reader.unmappedKeys(tableNames: job.tables.map(\.name)) { summary.unmappedKeys[key, default: 0] += count }
            summary.recordsBehindUnmappedKeys += reader.statistics.recordsRead
        }
        var stopped = false
        var readError: SluiceError?
        var limitReached: Set<Int> = []
        var isLimited = false
        while true {
            let next: (table: Int, batch: ColumnarBatch)?
            do {
                next = try reader.next()
            } catch {
                // Records before the problem were delivered; a rejection that ends the stream was in the last batch.
                readError = error
                next = nil
            }
            guard let (table, batch) = next else { break }
            // The rejection limit is judged record by record, in input order: the records after the one at which it
            // is passed are neither written nor counted, whatever batch they came in.
            let passed = job.rejectLimit.flatMap { rejectLimitPassed($0, in: batch, skipUpTo: skipUpTo[table]) }
            try take(batch, table: table, skipUpTo: skipUpTo[table], through: passed, source: name, sink: sink)
            noteVerification(of: reader)
            if let limit = job.rejectLimit, passed != nil {
                reader.cancel()
                let last = lastRejectionTaken.map { "; the last: \($0)" } ?? ""
                throw .tooManyRejections("stopped: \(CountText.grouped(summary.recordsRejectedInAllRuns)) of \(CountText.grouped(summary.recordsRead)) records rejected, more than --max-rejects \(limit)\(last)")
            }
            if let limit = job.recordLimit, Self.lastOrdinal(of: batch) >= limit {
                limitReached.insert(table)
                if limitReached.count == job.tables.count {
                    reader.cancel()
                    isLimited = true
                    break
                }
            }
            if isStopRequested() {
                reader.cancel()
                stopped = true
                break
            }
            try commitIfDue(sink: sink)
        }
        // A stop cancels the reader, which then ends early as if the input had: the input is not complete.
        if isStopRequested() { stopped = true }
        noteVerification(of: reader)
        if let readError, !stopped {
            // A stream that cannot be read on keeps what was committed; the input is not complete.
            if case .streamEnded = readError, !holdsUnverifiedRecords {
                summary.outcome = .failed("\(readError)")
                summary.errorCategory = readError.category
                return false
            }
            throw readError
        }
        if stopped {
            summary.outcome = .interrupted
            return false
        }
        // The first records only: what was written is committed, and the input is not complete.
        if !isLimited {
            for table in checkpoints.indices { checkpoints[table].isComplete = true }
        }
        finished += checkpoints
        checkpoints = []
        return true
    }

    /// Writes a batch's rows and rejections, past those an earlier run committed.
    /// The ordinal of the last record a batch holds, written or rejected (0 for none).
    private static func lastOrdinal(of batch: ColumnarBatch) -> Int {
        let written = batch.count > 0 ? batch.location(ofRow: batch.count - 1).ordinal : 0
        return max(written, batch.rejections.last?.location.ordinal ?? 0)
    }

    /// Where the rejections so far pass `limit`, counting records as ``take(_:table:skipUpTo:through:source:sink:)``
    /// does, in input order: the ordinal of the record at which they do (a rejection, or the record from which a
    /// share is judged).
    private func rejectLimitPassed(_ limit: RejectLimit, in batch: ColumnarBatch, skipUpTo: Int) -> Int? {
        let recordLimit = job.recordLimit ?? .max
        let rejections = batch.rejections
        // Read counts what earlier runs of a resumed import committed, and so does rejected.
        var rejected = summary.recordsRejectedInAllRuns
        var read = summary.recordsRead
        var row = 0
        var next = 0
        while row < batch.count || next < rejections.count {
            let rowOrdinal = row < batch.count ? batch.location(ofRow: row).ordinal : .max
            let isRejection = next < rejections.count && rejections[next].location.ordinal < rowOrdinal
            let ordinal = isRejection ? rejections[next].location.ordinal : rowOrdinal
            guard ordinal <= recordLimit else { return nil }
            if isRejection { next += 1 } else { row += 1 }
            guard ordinal > skipUpTo else { continue }
            read += 1
            if isRejection { rejected += 1 }
            if limit.isExceeded(rejected: rejected, read: read, isFinal: false) { return ordinal }
        }
        return nil
    }

    /// Records past ``ImportJob/recordLimit``, and past ordinal `through`, are left out.
    private mutating func take(_ batch: ColumnarBatch, table: Int, skipUpTo: Int, through: Int? = nil, source: String, sink: any TableSink) throws(SluiceError) {
        let limit = min(job.recordLimit ?? .max, through ?? .max)
        var first = 0
        while first < batch.count && batch.location(ofRow: first).ordinal <= skipUpTo { first += 1 }
        var end = batch.count
        while end > first && batch.location(ofRow: end - 1).ordinal > limit { end -= 1 }
        if first < end {
            // Read before the write, so that rows a failed write loses are counted (as rolled back).
            summary.tables[table].recordsRead += end - first
            try write(batch, rows: first..<end, table: table, source: source, sink: sink)
            summary.tables[table].recordsWritten += end - first
            recordsSinceCommit += end - first
            note(batch.location(ofRow: end - 1), table: table)
        }
        for rejection in batch.rejections where rejection.location.ordinal > skipUpTo && rejection.location.ordinal <= limit {
            summary.tables[table].recordsRead += 1
            try sink.reject(rejection, source: source, table: written?.starts[table] ?? table)
            lastRejectionTaken = rejection
            try observer.rejected(rejection, source, table)
            summary.tables[table].recordsRejected += 1
            checkpoints[table].rejected += 1
            recordsSinceCommit += 1
            group(rejection, source: source)
            if rejection.location.ordinal > checkpoints[table].ordinal { note(rejection.location, table: table) }
        }
    }

    /// Writes rows of a records' table and those of its child tables. Where rows with a key replace earlier ones
    /// with their child rows, the rows go in runs without a repeated key, so that a record replaced within one
    /// write takes its child rows with it as one replaced before does.
    private mutating func write(_ batch: ColumnarBatch, rows: Range<Int>, table: Int, source: String, sink: any TableSink) throws(SluiceError) {
        guard let written, written.mapped[table].hasChildTables else {
            try sink.write(batch, rows: rows, table: written?.starts[table] ?? table)
            return
        }
        guard !job.tables[table].keyColumns.isEmpty else {
            try writeTables(of: batch, rows: rows, table: table, sink: sink)
            return
        }
        var start = rows.lowerBound
        keysInWrite.removeAll(keepingCapacity: true)
        for row in rows where !keysInWrite.insert(written.keyHash(of: batch, row: row, table: table)).inserted {
            try writeTables(of: batch, rows: start..<row, table: table, sink: sink)
            start = row
            keysInWrite.removeAll(keepingCapacity: true)
            keysInWrite.insert(written.keyHash(of: batch, row: row, table: table))
        }
        try writeTables(of: batch, rows: start..<rows.upperBound, table: table, sink: sink)
    }

    private mutating func writeTables(of batch: ColumnarBatch, rows: Range<Int>, table: Int, sink: any TableSink) throws(SluiceError) {
        guard let written, !rows.isEmpty else { return }
        // The summary counts child tables in the written tables' order, without the records' tables before them.
        let childCountsBefore = written.starts[table] - table
        for (offset, part) in batch.tables.enumerated() {
            let partRows = batch.rows(ofTable: offset, forRecords: rows)
            guard !partRows.isEmpty else { continue }
            try sink.write(part, rows: partRows, table: written.starts[table] + offset)
            if offset > 0 { summary.childTables[childCountsBefore + offset - 1].rowsWritten += partRows.count }
        }
    }

    private mutating func note(_ location: RecordLocation, table: Int) {
        checkpoints[table].ordinal = location.ordinal
        checkpoints[table].line = location.line
        checkpoints[table].byteOffset = location.byteOffset
    }

    private mutating func group(_ rejection: Rejection, source: String) {
        for failure in rejection.failures {
            let key = failure.keyPath + "\u{0}" + failure.kind.rawValue
            if let index = groups[key] {
                summary.rejectionGroups[index].count += 1
            } else {
                groups[key] = summary.rejectionGroups.count
                summary.rejectionGroups.append(ImportSummary.RejectionGroup(
                    keyPath: failure.keyPath, kind: failure.kind, count: 1, first: failure, firstSource: source, firstLocation: rejection.location))
            }
        }
    }

    /// Whether records since the last commit include some whose compressed frame has not passed its check yet.
    private mutating func noteVerification(of reader: BatchReader) {
        holdsUnverifiedRecords = job.verifiesFrames && recordsSinceCommit > 0 && !reader.isDeliveredInputVerified
    }

    /// Commits once enough records or time have passed, and only records from checked frames.
    private mutating func commitIfDue(sink: any TableSink) throws(SluiceError) {
        guard sink.keepsCheckpoints, !holdsUnverifiedRecords else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard recordsSinceCommit >= job.recordsPerCommit || (recordsSinceCommit > 0 && now - lastCommit >= 1_000_000_000) else { return }
        try sink.commit(finished + checkpoints)
        recordsSinceCommit = 0
        lastCommit = now
        committedCounts = summary.tables.map { ($0.recordsWritten, $0.recordsRejected) }
        committedChildRows = summary.childTables.map(\.rowsWritten)
        try sink.beginTransaction()
    }
}

/// One mapping through ``ColumnarReader``, several (record types of one document) through ``MultiSchemaReader``.
enum BatchReader {
    case one(ColumnarReader)
    case several(MultiSchemaReader)

    /// Per schema, the tables its batches come with the rows of (nil: none).
    init(input: Input, schemas: [MappingSchema], tables: [MappedTables?], options: ReaderOptions) throws(SluiceError) {
        guard schemas.count == 1 else {
            self = .several(try MultiSchemaReader(input: input, schemas: schemas, tables: tables, options: options))
            return
        }
        self = if let first = tables[0] {
            .one(try ColumnarReader(input: input, schema: schemas[0], tables: first, options: options))
        } else {
            .one(try ColumnarReader(input: input, schema: schemas[0], options: options))
        }
    }

    func next() throws(SluiceError) -> (table: Int, batch: ColumnarBatch)? {
        switch self {
        case .one(let reader):
            guard let batch = try reader.next() else { return nil }
            return (0, batch)
        case .several(let reader):
            guard let (schema, batch) = try reader.next() else { return nil }
            return (schema, batch)
        }
    }

    func cancel() {
        switch self {
        case .one(let reader): reader.cancelReading()
        case .several(let reader): reader.cancelReading()
        }
    }

    var statistics: ReadStatistics {
        switch self {
        case .one(let reader): reader.statistics
        case .several(let reader): reader.statistics
        }
    }

    var isDeliveredInputVerified: Bool {
        switch self {
        case .one(let reader): reader.isDeliveredInputVerified
        case .several(let reader): reader.isDeliveredInputVerified
        }
    }

    var progress: ProgressMonitor {
        switch self {
        case .one(let reader): reader.progress
        case .several(let reader): reader.progress
        }
    }

    /// Keys by key path; with several tables, each prefixed by its table's name.
    func unmappedKeys(tableNames: [String]) -> [String: Int] {
        switch self {
        case .one(let reader): return reader.unmappedKeys
        case .several(let reader):
            var keys: [String: Int] = [:]
            for index in reader.schemas.indices {
                for (path, count) in reader.unmappedKeys(ofSchema: index) { keys[tableNames[index] + ": " + path, default: 0] += count }
            }
            return keys
        }
    }
}

/// Hands a value to another thread where the code guarantees its safe use (a reader's cancellation, which is
/// safe from any thread).
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
