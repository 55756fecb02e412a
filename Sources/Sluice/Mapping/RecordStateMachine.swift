import Foundation

/// Writes the records the matched walks read (one tape each, against a ``CompiledPlan``) into the current batch:
/// converts mapped values straight into column storage and, at the end of each record, either commits the row or
/// rolls it back and reports a ``Rejection``.
///
/// Taking a record returns `false` to ask the walk's caller to stop. The caller then finds why: the rejection policy
/// said stop (``stoppingRejection``), or the machine rejected a record the input cannot be read past
/// (``endingRejection``: a header that is not one). A record the walks hand back is judged by yajl and rejected
/// with ``rejectRecordInProgress(_:end:rawTextIsTruncated:)``.
///
/// This file holds the machine's state; its jobs live beside it, one file each: the walked record, key matching and
/// unmapped keys, value writes, list columns, typed arrays element by element, header rows, and the record's
/// outcome.
struct RecordStateMachine {
    // MARK: Plan, cached as raw pointers (the plan outlives the machine).
    let plan: CompiledPlan
    let nodes: UnsafeMutablePointer<PlanNode>
    let keyEntries: UnsafeMutablePointer<KeyEntry>
    let targets: UnsafeMutablePointer<Int32>
    let columnTypes: UnsafeMutablePointer<FieldType>
    let columnIsOptional: UnsafeMutablePointer<Bool>
    let columnIsTransformed: UnsafeMutablePointer<Bool>
    let columnIsList: UnsafeMutablePointer<Bool>
    /// Per column: its place among the list columns (-1 for others); per list: one element's conversion, and
    /// for unique lists the elements seen in this record.
    let listOrdinals: UnsafeMutablePointer<Int32>?
    let listScratch: UnsafeMutablePointer<ColumnStorage>?
    var listSeen: [Set<[UInt8]>]
    let columnIsUniqueList: UnsafeMutablePointer<Bool>
    /// The list columns and, per list, the node of its array: copied out of the plan so that the per-record
    /// paths read them without retaining the plan's arrays.
    let listColumnTable: [Int]
    let listArrayNodeTable: [Int32]
    let columnHasDefault: UnsafeMutablePointer<Bool>
    let columnCount: Int
    let requiredColumns: [Int]
    let columnPaths: [String]

    /// Stands in for a null pointer a tape entry may hold for an empty key or string.
    let emptyBytes: UnsafePointer<UInt8>

    // MARK: Output
    let batches: BatchQueue
    var columns: UnsafeMutablePointer<ColumnStorage>
    var row = 0
    /// Per column, the serial of the last record that gave it a value (or null, or a failed value).
    let stamps: UnsafeMutablePointer<UInt32>
    /// Per column: the serial of the record whose validators were given the column's default (the key was
    /// missing), so that the record does not count as having had the column.
    let defaultedStamps: UnsafeMutablePointer<UInt32>
    var serial: UInt32 = 1

    // MARK: Position in the input
    /// Set by a walk that has checked the whole record's UTF-8 itself (simdjson's), while it delivers it.
    var recordIsKnownUTF8 = false
    let maximumDepth: Int
    /// Levels around each record that the input no longer shows (an array's, in a chunk of its elements): the
    /// limit is lowered by them, and messages state it as the user set it.
    var hiddenOuterLevels = 0
    let sizeLimit: RecordSizeLimit
    /// How many values a walk may read of one record.
    let valueLimit: RecordValueLimit
    /// The key order of each object last time: the guess tried before the hash table.
    let keyOrder: KeyOrderCache
    /// Counts of unmapped keys evicted from the key order cache (or never cached).
    var unmappedKeyCounts: [UnmappedKey: Int] = [:]
    /// Strict mode: a key no field reads rejects the record.
    let rejectsUnmappedKeys: Bool
    /// Where cleanups write what they make of a value; made on the first value a cleanup writes.
    var cleanupScratch: CleanupScratch?
    /// Columns with fallback paths: per column, which path gave the record its value so far (see
    /// ``FieldSpec/fallbackPaths``); empty when no column has fallbacks.
    var fallbackValues: [FallbackValue] = []
    var withdrawnFailures: [Range<Int>] = []
    /// Set when null spellings or cleanups made a fallback column's value null, which then gives it nothing.
    var fallbackValueWasNull = false
    // MARK: Typed arrays mapped element by element
    /// One machine per element column (``CompiledPlan/elementColumns``): it maps each element of that column's
    /// arrays as a record of its own, into the element batch of the batch in hand, in the record's own pass.
    var elementMachines: [RecordStateMachine] = []
    /// In an element machine: the batch its rows go into (nil in a record's machine). An element that does not
    /// map goes into that batch's rejections, not the run's: the array's row names it, and the model made from
    /// the row is refused with the failures of every other value made then.
    var elementBatch: ColumnarBatch?
    /// While an array is mapped element by element: its column (-1 otherwise), element machine, its first row, and
    /// the element batch's rejections before it. `feedsElements` is cleared at the first element that fails: the
    /// rest of the array is passed over.
    var elementsColumn = -1
    var elementsMachine = 0
    var elementsStart = 0
    var elementsRejectionsBefore = 0
    var feedsElements = false
    /// The tally of rows staged for the record by this machine and its element machines, shared by all of them
    /// (nil without element machines); the record's machine owns it.
    let stagedRows: UnsafeMutablePointer<StagedRows>?
    /// In an element machine: about what one of its rows takes besides its text, and its text columns.
    let stagedRowBytes: Int
    let textColumns: [Int]
    /// Set when a rejection fills the batch's room for rejections, so that the next record hands the batch on;
    /// and when a batch was handed on, so that the next record takes the columns of a new one (made only then:
    /// the last batch of an input is never followed by an empty one).
    var batchNeedsCare = false

    // MARK: The record being read
    var inRecord = false
    var failures: [Rejection.Failure] = []
    /// When set, a finished record waits for ``finishDeferredRecord()`` (NDJSON: the rest of the line must be
    /// clean; a document: the rest of the input must be; an array's line: the line must hold nothing else).
    var defersFinish: Bool
    var hasDeferredRecord = false
    var deferredEnd = 0

    // MARK: Where bytes are: set by the driver before each record it hands to a walk.
    /// The bytes retained by the driver, and the absolute offset of `buffer[0]`.
    var buffer: UnsafePointer<UInt8>?
    var bufferOffset = 0
    var bufferCount = 0
    /// The absolute offset of the record being taken (its tape's offsets count from it).
    var recordOffset = 0
    /// NDJSON, an array's lines, a document: the start and line of the record, known from framing.
    var knownRecordStart: Int?
    var knownRecordLine = 1
    /// Elements: records start at the first byte after `boundary` that is not whitespace or a comma; lines are
    /// counted up to `lineCountedTo`.
    var boundary = 0
    var lineCountedTo = 0
    var line = 1

    /// The keys of the records of an object at the records path, in record order.
    var recordKeys: RecordKeys?
    /// The key taken for the record in progress, and the key of a record abandoned to be read again, which the
    /// next record takes instead of a new one.
    var recordKeyInProgress: [UInt8]?
    var abandonedRecordKey: [UInt8]?

    // MARK: Records passed over at the start, and the column header
    /// Records still to pass over before the data (or the header) starts.
    var recordsToSkip = 0
    /// Whether this machine reads the header row (its chunk holds the input's start); others wait for it.
    var readsHeader = false
    /// Where the header's names are shared with the run's other machines.
    var columnHeader: ColumnHeader?
    /// Per value of a row, the root's child node it feeds (unmapped past the named columns), once the header is
    /// known (``knowsHeader``).
    var headerNodes: [Int32] = []
    var knowsHeader = false
    var isPassingOver = false

    // MARK: Counters and the outcome
    var ordinal = 0
    var mappedCount = 0
    var rejectedCount = 0
    let stopsAtFirstRejection: Bool
    /// The rejection that made the machine stop under ``RejectionPolicy/stop``.
    var stoppingRejection: Rejection?
    /// A rejection the machine made itself that the input cannot be read past (a document over the size limit, a
    /// header that is not one); the driver ends the run with it.
    var endingRejection: Rejection?

    init(
        plan: CompiledPlan, batches: BatchQueue, defersFinish: Bool, maximumDepth: Int,
        maximumRecordSize: Int = .max, stopsAtFirstRejection: Bool, memoryShare: Int = .max,
        elementBatch: ColumnarBatch? = nil, stagedRows shared: UnsafeMutablePointer<StagedRows>? = nil
    ) {
        self.plan = plan
        nodes = plan.nodes
        keyEntries = plan.keyEntries
        targets = plan.targets
        columnTypes = plan.columnTypes
        columnIsOptional = plan.columnIsOptional
        columnIsTransformed = plan.columnIsTransformed
        columnIsList = plan.columnIsList
        // Most plans have no lists, and nested arrays make a machine per value: allocate only for lists.
        var listOrdinals: UnsafeMutablePointer<Int32>?
        var listScratch: UnsafeMutablePointer<ColumnStorage>?
        listSeen = []
        if !plan.listColumns.isEmpty {
            let ordinals = UnsafeMutablePointer<Int32>.allocate(capacity: plan.fields.count)
            let scratch = UnsafeMutablePointer<ColumnStorage>.allocate(capacity: plan.listColumns.count)
            ordinals.initialize(repeating: -1, count: plan.fields.count)
            for (ordinal, column) in plan.listColumns.enumerated() {
                ordinals[column] = Int32(ordinal)
                (scratch + ordinal).initialize(to: ColumnStorage(type: plan.fields[column].type, capacity: 1))
            }
            listOrdinals = ordinals
            listScratch = scratch
            listSeen = plan.listColumns.map { _ in [] }
        }
        self.listOrdinals = listOrdinals
        self.listScratch = listScratch
        columnIsUniqueList = plan.columnIsUniqueList
        listColumnTable = plan.listColumns
        listArrayNodeTable = plan.listArrayNodes
        columnHasDefault = plan.columnHasDefault
        columnCount = plan.fields.count
        requiredColumns = plan.fields.indices.filter { !plan.fields[$0].isOptional && plan.fields[$0].defaultValue == nil }
        columnPaths = plan.columnPaths
        if plan.columnHasFallbacks.contains(true) {
            fallbackValues = Array(repeating: FallbackValue(), count: plan.fields.count)
        }
        let empty = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        empty.initialize(to: 0)
        emptyBytes = UnsafePointer(empty)
        self.batches = batches
        let host = elementBatch ?? batches.current
        columns = host.columns
        self.elementBatch = elementBatch
        if elementBatch != nil { knownRecordStart = 0 }
        stamps = .allocate(capacity: max(columnCount, 1))
        stamps.initialize(repeating: 0, count: max(columnCount, 1))
        defaultedStamps = .allocate(capacity: max(columnCount, 1))
        defaultedStamps.initialize(repeating: 0, count: max(columnCount, 1))
        keyOrder = KeyOrderCache(plan: plan)
        rejectsUnmappedKeys = plan.rejectsUnmappedKeys
        self.defersFinish = defersFinish
        self.maximumDepth = maximumDepth
        sizeLimit = RecordSizeLimit(bytes: maximumRecordSize)
        valueLimit = RecordValueLimit(share: memoryShare)
        self.stopsAtFirstRejection = stopsAtFirstRejection
        var stagedRows = shared
        if stagedRows == nil && !plan.elementColumns.isEmpty {
            stagedRows = .allocate(capacity: 1)
            stagedRows?.initialize(to: StagedRows(share: memoryShare))
        }
        self.stagedRows = stagedRows
        stagedRowBytes = ColumnarBatch.bytesPerRow(of: plan.fields, keepsRecordText: false)
        textColumns = plan.fields.indices.filter { plan.fields[$0].columnType.layout == .text }
        for (index, column) in plan.elementColumns.enumerated() {
            // Every element column has its machine: a batch without element batches (one written for encoding
            // only) gives its machines none to write into, and their arrays are captured as text instead.
            guard let elementPlan = plan.fields[column].elementPlan as? CompiledPlan, index < host.elementBatches.count else { break }
            // The record's machine checks the depth of everything inside the array; an element's records are
            // never stopped for their own.
            elementMachines.append(RecordStateMachine(
                plan: elementPlan, batches: BatchQueue(fields: elementPlan.fields, capacity: 1), defersFinish: false,
                maximumDepth: Int.max / 2, stopsAtFirstRejection: false, elementBatch: host.elementBatches[index], stagedRows: stagedRows))
        }
    }

    /// Frees the machine's own tables; call once, when its engine is done.
    func deallocate() {
        for machine in elementMachines { machine.deallocate() }
        if elementBatch == nil, let stagedRows {
            stagedRows.deinitialize(count: 1)
            stagedRows.deallocate()
        }
        emptyBytes.deallocate()
        stamps.deallocate()
        defaultedStamps.deallocate()
        keyOrder.deallocate()
        listOrdinals?.deallocate()
        if let listScratch {
            for ordinal in 0..<plan.listColumns.count { listScratch[ordinal].deallocate() }
            listScratch.deinitialize(count: plan.listColumns.count)
            listScratch.deallocate()
        }
    }

    /// What key matching gives besides a node: no field reads the value.
    static let unmapped: Int32 = -1
    /// A key no field reads where an ignored path covers it: passed over like an unmapped one, but neither counted
    /// nor rejected.
    static let ignored: Int32 = -4

    /// Whether a whole record (not one passed over) waits to be finished with no failure found so far.
    var holdsCleanRecord: Bool { hasDeferredRecord && failures.isEmpty && !isPassingOver }

    /// After 2^32 records in one machine (a long run's worker, an array field's kept engine) the serials start
    /// again from 1, and the stamps of earlier records are cleared so that none of them can match a new serial.
    mutating func restartSerials() {
        let count = max(columnCount, 1)
        stamps.update(repeating: 0, count: count)
        defaultedStamps.update(repeating: 0, count: count)
        for column in fallbackValues.indices { fallbackValues[column] = FallbackValue() }
        serial = 1
    }

    /// Whether the last record finished gave `column` a value or a null (as opposed to missing it).
    func lastRecordHad(column: Int) -> Bool { stamps[column] == serial && defaultedStamps[column] != serial }

    /// Forgets the input read so far, to read another one whose first byte sits at absolute `offset`: counters,
    /// lines and the position start over; the plan's caches and the unmapped-key counts are kept.
    mutating func restart(at offset: Int) {
        ordinal = 0
        mappedCount = 0
        rejectedCount = 0
        line = 1
        lineCountedTo = offset
        boundary = offset
        clearFailures()
        deferredEnd = 0
        stoppingRejection = nil
        endingRejection = nil
        knownRecordStart = nil
        isPassingOver = false
        abandonedRecordKey = nil
        leaveRecord()
    }

    /// Hands the partly filled batch to the queue (end of input, or a stop).
    mutating func flush() {
        batches.completeCurrent(count: row)
        batchNeedsCare = true
        row = 0
    }
}
