import CYajl
import Foundation

/// Walks the event stream of one input against a ``CompiledPlan`` and writes each record into the current batch.
///
/// It receives yajl's events (or scripted events in tests), keeps a stack of ``Frame``s for the containers the plan
/// looks into, skips everything else by counting depth, converts mapped values straight into column storage, and
/// at the end of each record either commits the row or rolls it back and reports a ``Rejection``.
///
/// Each event method returns `false` to ask the tokenizer to stop. The driver then finds why: the rejection policy
/// said stop (``stoppingRejection``), the machine rejected a record the input cannot be read past
/// (``endingRejection``), or the record in progress cannot be read on (nesting too deep, a second value on an
/// NDJSON line, no top-level array), which the driver rejects with ``rejectRecordInProgress(_:end:rawTextIsTruncated:)``.
struct RecordStateMachine {
    // MARK: Plan, cached as raw pointers (the plan outlives the machine).
    let plan: CompiledPlan
    private let nodes: UnsafeMutablePointer<PlanNode>
    private let keyEntries: UnsafeMutablePointer<KeyEntry>
    private let targets: UnsafeMutablePointer<Int32>
    private let columnTypes: UnsafeMutablePointer<FieldType>
    private let columnIsOptional: UnsafeMutablePointer<Bool>
    private let columnIsTransformed: UnsafeMutablePointer<Bool>
    private let columnIsList: UnsafeMutablePointer<Bool>
    /// Per column: its place among the list columns (-1 for others); per list: one element's conversion, and
    /// for unique lists the elements seen in this record.
    private let listOrdinals: UnsafeMutablePointer<Int32>?
    private let listScratch: UnsafeMutablePointer<ColumnStorage>?
    private var listSeen: [Set<[UInt8]>]
    private let startsLists: UnsafeMutablePointer<Bool>
    private let columnIsUniqueList: UnsafeMutablePointer<Bool>
    /// The list columns and, per list, the node of its array: copied out of the plan so that the per-record
    /// paths read them without retaining the plan's arrays.
    private let listColumnTable: [Int]
    private let listArrayNodeTable: [Int32]
    private let columnHasDefault: UnsafeMutablePointer<Bool>
    private let columnCount: Int
    private let requiredColumns: [Int]
    private let columnPaths: [String]

    /// Stands in for a null pointer yajl may pass with an empty key or string.
    let emptyBytes: UnsafePointer<UInt8>

    // MARK: Output
    let batches: BatchQueue
    private var columns: UnsafeMutablePointer<ColumnStorage>
    private var row = 0
    /// Per column, the serial of the last record that gave it a value (or null, or a failed value).
    private let stamps: UnsafeMutablePointer<UInt32>
    /// Per column: the serial of the record whose validators were given the column's default (the key was
    /// missing), so that the record does not count as having had the column.
    private let defaultedStamps: UnsafeMutablePointer<UInt32>
    private var serial: UInt32 = 1

    // MARK: Position in the input
    private let frames: UnsafeMutablePointer<Frame>
    private(set) var frameCount = 0
    /// Open containers being skipped; 0 when not skipping.
    private(set) var skipDepth = 0
    /// While skipping a subtree that a json field captures: its node and first byte.
    private var skipCaptureNode: Int32 = -1
    /// Open containers that a json field captures: everything inside them is read, to be checked.
    private var openCaptures = 0
    /// Set by a tokenizer that has checked the whole record's UTF-8 itself (simdjson), while it delivers it.
    var recordIsKnownUTF8 = false
    private var skipCaptureStart = 0
    /// Containers around the records: 0 when top-level values are records, 1 when elements of a top-level array are.
    let outerLevels: Int
    private(set) var outerOpen = false
    private(set) var outerClosed = false
    let maximumDepth: Int
    /// Levels around each record that the input no longer shows (an array's, in a chunk of its elements): the
    /// limit is lowered by them, and messages state it as the user set it.
    var hiddenOuterLevels = 0
    let maximumRecordSize: Int
    /// The key order of each object last time: the guess tried before the hash table.
    private let keyOrder: KeyOrderCache
    /// Counts of unmapped keys evicted from the key order cache (or never cached).
    private var unmappedKeyCounts: [UnmappedKey: Int] = [:]
    /// Strict mode: a key no field reads rejects the record.
    private let rejectsUnmappedKeys: Bool
    /// Where cleanups write what they make of a value; made on the first value a cleanup writes.
    private var cleanupScratch: CleanupScratch?
    /// Columns with fallback paths: per column, which path gave the record its value so far (see
    /// ``FieldSpec/fallbackPaths``); empty when no column has fallbacks.
    private var fallbackValues: [FallbackValue] = []
    private var withdrawnFailures: [Range<Int>] = []
    /// Set when null spellings or cleanups made a fallback column's value null, which then gives it nothing.
    private var fallbackValueWasNull = false
    // MARK: Typed arrays mapped element by element
    /// One machine per element column (``CompiledPlan/elementColumns``): it maps each element of that column's
    /// arrays as a record of its own, into the element batch of the batch in hand, in the record's own pass.
    private var elementMachines: [RecordStateMachine] = []
    /// In an element machine: the batch its rows go into (nil in a record's machine). An element that does not
    /// map goes into that batch's rejections, not the run's: the array's row names it, and the model made from
    /// the row is refused with the failures of every other value made then.
    private var elementBatch: ColumnarBatch?
    /// While an array is mapped element by element: its column (-1 otherwise), element machine, the index of its
    /// next element, its first row, and the element batch's rejections before it. `feedsElements` is cleared at
    /// the first element that fails: the rest of the array is skipped.
    private var elementsColumn = -1
    private var elementsMachine = 0
    private var elementsIndex = 0
    private var elementsStart = 0
    private var elementsRejectionsBefore = 0
    private var feedsElements = false
    /// Set when a rejection fills the batch's room for rejections, so that the next record hands the batch on;
    /// and when a batch was handed on, so that the next record takes the columns of a new one (made only then:
    /// the last batch of an input is never followed by an empty one).
    private var batchNeedsCare = false

    // MARK: The record being read
    private(set) var inRecord = false
    private var failures: [Rejection.Failure] = []
    /// When set, a finished record waits for ``finishDeferredRecord()`` (NDJSON: the rest of the line must be
    /// clean; a document: the rest of the input must be; an array's line: the line must hold nothing else).
    var defersFinish: Bool
    private(set) var hasDeferredRecord = false
    private var deferredEnd = 0

    // MARK: Where bytes are: set by the driver before each slice it feeds.
    /// The bytes retained by the driver, and the absolute offset of `buffer[0]`.
    var buffer: UnsafePointer<UInt8>?
    var bufferOffset = 0
    var bufferCount = 0
    /// The yajl handle parsing the current slice, and the slice's absolute offset; a scripted test leaves the
    /// handle `nil` and sets ``scriptedOffset`` instead.
    var handle: yajl_handle?
    var sliceOffset = 0
    /// While yajl completes the input: its end, past which a top-level number cannot reach.
    var scalarEndLimit = Int.max
    var scriptedOffset = 0
    /// NDJSON: the start and line of the record on the current line, known from framing.
    var knownRecordStart: Int?
    var knownRecordLine = 1
    /// Streams: records start at the first byte after `boundary` that is not whitespace or a comma; lines are
    /// counted up to `lineCountedTo`.
    var boundary = 0
    private var lineCountedTo = 0
    private var line = 1

    /// The keys of the records of an object at the records path, in record order.
    var recordKeys: RecordKeys?
    /// The key taken for the record in progress, and the key of a record abandoned to be read again, which the
    /// next record takes instead of a new one.
    private var recordKeyInProgress: [UInt8]?
    private var abandonedRecordKey: [UInt8]?

    // MARK: Records passed over at the start, and the column header
    /// Records still to pass over before the data (or the header) starts.
    var recordsToSkip = 0
    /// Whether this machine reads the header from the stream (it meets the input's start); others wait for it.
    var readsHeader = false
    /// Where the header's names are shared with the run's other machines.
    var columnHeader: ColumnHeader?
    /// Per value of a row, the root's child node it feeds (unmapped past the named columns), once the header is
    /// known (``knowsHeader``).
    private var headerNodes: [Int32] = []
    private(set) var knowsHeader = false
    private var isPassingOver = false

    // MARK: Counters and the outcome
    private(set) var ordinal = 0
    private(set) var mappedCount = 0
    private(set) var rejectedCount = 0
    let stopsAtFirstRejection: Bool
    /// The rejection that made the machine stop under ``RejectionPolicy/stop``.
    private(set) var stoppingRejection: Rejection?
    /// A rejection the machine made itself that the input cannot be read past (a record over the size limit in a
    /// stream); the driver ends the run with it.
    private(set) var endingRejection: Rejection?

    init(
        plan: CompiledPlan, batches: BatchQueue, outerLevels: Int, defersFinish: Bool, maximumDepth: Int,
        maximumRecordSize: Int = .max, stopsAtFirstRejection: Bool, elementBatch: ColumnarBatch? = nil
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
        startsLists = plan.startsLists
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
        frames = .allocate(capacity: plan.maxDepth + 1)
        keyOrder = KeyOrderCache(plan: plan)
        rejectsUnmappedKeys = plan.rejectsUnmappedKeys
        self.outerLevels = outerLevels
        self.defersFinish = defersFinish
        self.maximumDepth = maximumDepth
        self.maximumRecordSize = maximumRecordSize
        self.stopsAtFirstRejection = stopsAtFirstRejection
        for (index, column) in plan.elementColumns.enumerated() {
            // Every element column has its machine: a batch without element batches (one written for encoding
            // only) gives its machines none to write into, and their arrays are captured as text instead.
            guard let elementPlan = plan.fields[column].elementPlan as? CompiledPlan, index < host.elementBatches.count else { break }
            // The record's machine checks the depth of everything inside the array; an element's records are
            // never stopped for their own.
            elementMachines.append(RecordStateMachine(
                plan: elementPlan, batches: BatchQueue(fields: elementPlan.fields, capacity: 1), outerLevels: 0, defersFinish: false,
                maximumDepth: Int.max / 2, stopsAtFirstRejection: false, elementBatch: host.elementBatches[index]))
        }
    }

    /// Frees the machine's own tables; call once, when its engine is done.
    func deallocate() {
        for machine in elementMachines { machine.deallocate() }
        emptyBytes.deallocate()
        stamps.deallocate()
        defaultedStamps.deallocate()
        frames.deallocate()
        keyOrder.deallocate()
        listOrdinals?.deallocate()
        if let listScratch {
            for ordinal in 0..<plan.listColumns.count { listScratch[ordinal].deallocate() }
            listScratch.deinitialize(count: plan.listColumns.count)
            listScratch.deallocate()
        }
    }

    /// Absolute offset just past the token being delivered.
    @inline(__always)
    private func offsetAfterToken() -> Int {
        guard let handle else { return scriptedOffset }
        return sliceOffset + Int(yajl_get_bytes_consumed(handle))
    }

    // MARK: - Events

    mutating func startMap() -> Bool {
        if skipDepth > 0 { return enterSkipped(isArray: false) }
        return startContainer(isArray: false)
    }

    mutating func startArray() -> Bool {
        if skipDepth > 0 { return enterSkipped(isArray: true) }
        return startContainer(isArray: true)
    }

    mutating func endMap() -> Bool { endContainer() }
    mutating func endArray() -> Bool { endContainer() }

    mutating func key(_ key: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        if skipDepth > 0 { return !feedsElements || feedElements(.key(key, length)) }
        let frame = frames + (frameCount - 1)
        let node = frame.pointee.node
        let position = frame.pointee.keyCount
        frame.pointee.keyCount = position + 1
        frame.pointee.pendingChild = match(key, length, at: node, position: position)
        return true
    }

    /// The child of `node` that key number `position` of its object leads to, or ``unmapped`` or ``ignored``; a
    /// key no field reads is counted (and, in strict mode, fails the record).
    @inline(__always)
    mutating func match(_ key: UnsafePointer<UInt8>, _ length: Int, at node: Int32, position: Int) -> Int32 {
        let slot = keyOrder.slot(node: node, position: position)
        if slot >= 0, let child = keyOrder.cachedResult(slot: slot, key: key, length) {
            if child == Self.unmapped {
                keyOrder.countUnmapped(slot: slot)
                if rejectsUnmappedKeys { rejectUnmappedKey(node: node, key, length) }
            }
            return child
        }
        let entry = plan.lookupFull(node: nodes[Int(node)], key: key, length)
        let child = entry >= 0 ? keyEntries[Int(entry)].node : plan.ignoresUnreadKeys[Int(node)] ? Self.ignored : Self.unmapped
        let isUnmapped = child == Self.unmapped
        if slot >= 0 {
            if let evicted = keyOrder.unmappedSightings(slot: slot) {
                unmappedKeyCounts[UnmappedKey(node: node, key: evicted.key), default: 0] += evicted.count
            }
            keyOrder.store(slot: slot, key: key, length, result: child, countsSighting: isUnmapped)
        }
        if isUnmapped {
            if slot < 0 || length > KeyOrderCache.maximumKeyLength {
                unmappedKeyCounts[UnmappedKey(node: node, key: Array(UnsafeBufferPointer(start: key, count: length))), default: 0] += 1
            }
            if rejectsUnmappedKeys { rejectUnmappedKey(node: node, key, length) }
        }
        return child
    }

    /// Strict mode: a key no field reads rejects its record.
    @inline(never)
    private mutating func rejectUnmappedKey(node: Int32, _ key: UnsafePointer<UInt8>, _ length: Int) {
        let name = FieldPath.escaped(key: String(decoding: UnsafeBufferPointer(start: key, count: length), as: UTF8.self))
        failures.append(Rejection.Failure(keyPath: plan.displayPaths[Int(node)] + "." + name, kind: .unmappedKey, expected: "only keys the mapping reads", found: "a key it does not read"))
    }

    /// How often each key that no field reads was seen, by key path (`$.source`, `$.user.id_str`). Keys inside
    /// an unread object are not counted one by one: the object's own key stands for them.
    var unmappedKeys: [String: Int] {  // lint: reporting, not the per-value path
        UnmappedKey.named(countedUnmappedKeys(handingOn: false), in: plan)
    }

    /// The unmapped keys seen since the last call (or since the machine was made), by trie node; the machine then
    /// counts from 0. A reader that hands records out a chunk at a time takes each chunk's keys with its records,
    /// so that keys of records never handed out are never counted.
    mutating func takeUnmappedKeyCounts() -> [UnmappedKey: Int] {  // lint: reporting, once per chunk
        let counts = countedUnmappedKeys(handingOn: true)
        unmappedKeyCounts = [:]
        return counts
    }

    /// The counts so far: those handed on from the key-order cache, and the sightings it still holds.
    private func countedUnmappedKeys(handingOn: Bool) -> [UnmappedKey: Int] {  // lint: reporting, not the per-value path
        var counts = unmappedKeyCounts
        for sighting in keyOrder.allUnmappedSightings(nodeCount: plan.nodeCount, clearing: handingOn) {
            counts[UnmappedKey(node: sighting.node, key: sighting.key), default: 0] += sighting.count
        }
        return counts
    }

    mutating func string(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        if skipDepth > 0 { return !feedsElements || feedElements(.string(bytes, length)) }
        return scalar(.string, bytes, length, false)
    }

    mutating func number(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        if skipDepth > 0 { return !feedsElements || feedElements(.number(bytes, length)) }
        return scalar(.number, bytes, length, false)
    }

    mutating func bool(_ value: Bool) -> Bool {
        if skipDepth > 0 { return !feedsElements || feedElements(.bool(value)) }
        return scalar(.bool, nil, 0, value)
    }

    mutating func null() -> Bool {
        if skipDepth > 0 { return !feedsElements || feedElements(.null) }
        return scalar(.null, nil, 0, false)
    }

    // MARK: - Values

    /// ``nodeForValue(isArrayStart:)`` results besides a node: no field reads the value (-1), the event opened the
    /// top-level array, or the machine must stop.
    private static let unmapped: Int32 = -1
    private static let consumedByOuter: Int32 = -2
    private static let mustStop: Int32 = -3
    /// A key no field reads where an ignored path covers it: skipped like an unmapped one, but neither counted
    /// nor rejected.
    private static let ignored: Int32 = -4

    /// The trie node of the value that starts now, or one of the markers above.
    @inline(__always)
    private mutating func nodeForValue(isArrayStart: Bool) -> Int32 {
        if frameCount > 0 {
            let frame = frames + (frameCount - 1)
            if frame.pointee.isArray {
                let index = frame.pointee.nextIndex
                frame.pointee.nextIndex = index + 1
                if frame.pointee.readsByHeader { return headerNode(index) }
                return plan.lookupIndex(node: nodes[Int(frame.pointee.node)], index: index)
            }
            let child = frame.pointee.pendingChild
            frame.pointee.pendingChild = Self.unmapped
            return child
        }
        return beginRecordOrOuter(isArrayStart: isArrayStart)
    }

    /// Outside a record: either open the top-level array, or start a record at the plan's root.
    @inline(never)
    mutating func beginRecordOrOuter(isArrayStart: Bool) -> Int32 {
        if outerLevels > 0 && !outerOpen {
            if isArrayStart && !outerClosed {
                outerOpen = true
                boundary = offsetAfterToken()
                return Self.consumedByOuter
            }
            inRecord = true
            return fatal(.typeMismatch, expected: "a top-level array of records", found: isArrayStart ? "a second array" : "a value that is not an array")
        }
        if hasDeferredRecord {
            return fatal(.extraValue, expected: "one JSON value per line", found: "another value after it")
        }
        // Rejections fill a batch as rows do, so that a stream of rejected records is handed on batch by batch
        // instead of held whole until enough records map. The batch is handed on when the next record starts,
        // never at a rejection that ends the run, which must stay with the batch it ends. A flag, not the batch's
        // count, is what every record tests: reaching into the batch costs hundreds of instructions a record.
        if batchNeedsCare {
            batchNeedsCare = false
            if batches.current.rejections.count >= batches.current.capacity {
                batches.completeCurrent(count: row)
                row = 0
            }
            columns = batches.current.columns
            if !elementMachines.isEmpty { bindElementBatches(of: batches.current) }
        }
        inRecord = true
        serial &+= 1
        if serial == 0 { restartSerials() }
        if recordsToSkip > 0 || readsHeader {
            isPassingOver = true
            if plan.keyNode >= 0 { _ = takeRecordKey() }
            return Self.unmapped
        }
        if plan.keyNode >= 0 { writeRecordKey() }
        return 0
    }

    /// The record's key: the one an abandoned record gave back, or the next.
    private mutating func takeRecordKey() -> [UInt8]? {
        let key = abandonedRecordKey ?? recordKeys?.take()
        abandonedRecordKey = nil
        recordKeyInProgress = key
        return key
    }

    /// `$key` fields: the record's key in the object of records (nothing for the elements of an array).
    @inline(never)
    private mutating func writeRecordKey() {
        guard let key = takeRecordKey(), !key.isEmpty else { return }
        key.withUnsafeBufferPointer { buffer in
            writeScalar(node: plan.keyNode, .string, buffer.baseAddress, buffer.count, false)
        }
    }

    private mutating func scalar(_ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) -> Bool {
        let node = nodeForValue(isArrayStart: false)
        if node >= 0 {
            writeScalar(node: node, kind, bytes, length, boolValue)
        } else if node == Self.mustStop {
            return false
        }
        if frameCount == 0 { return endRecord(end: min(offsetAfterToken(), scalarEndLimit)) }
        return true
    }

    @inline(__always)
    mutating func writeScalar(node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        let node = nodes[Int(nodeID)]
        if node.scalarNeedsCare {
            // A null inside the record stands for everything beneath it being missing; a null record is not one.
            if node.hasChildren && (kind != .null || nodeID == 0) && !plan.feedsNoField[Int(nodeID)] {
                fail(node: nodeID, .typeMismatch, expected: node.expectsArray ? "an object or array" : "an object", kind, bytes, length, boolValue)
            }
            if node.hasSpecialTargets { return writeSpecialScalar(node: nodeID, kind, bytes, length, boolValue) }
        }
        var target = Int(node.targetStart)
        let end = target + Int(node.targetCount)
        while target < end {
            let column = Int(targets[target])
            target += 1
            convert(column: column, node: nodeID, kind, bytes, length, boolValue)
        }
    }

    /// Converts one scalar into one column by the column's type.
    @inline(__always)
    private mutating func convert(column: Int, node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        stamps[column] = serial
        if kind == .null {
            writeNull(column: column, node: nodeID)
            return
        }
        if kind == .string, let bytes, !isWellFormed(node: nodeID, bytes, length) { return }
        convertValue(column: column, into: columns + column, row: row, node: nodeID, kind, bytes, length, boolValue)
    }

    /// Converts a value that is not null by the column's type into `storage` at `row`: the column's own
    /// storage, or a list column's scratch for one element.
    @inline(__always)
    private mutating func convertValue(
        column: Int, into storage: UnsafeMutablePointer<ColumnStorage>, row: Int, node nodeID: Int32, _ kind: ScalarKind,
        _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool
    ) {
        let value = ScalarValue(kind, bytes, length, boolValue)
        if let failure = ColumnDecoding.decode(columnTypes[column], value, conversion: plan.conversion(column), into: ColumnSlot(storage: storage, row: row)) {
            fail(node: nodeID, failure, column: column, kind, bytes, length, boolValue)
        }
    }

    /// A scalar at a node that a transformed or list column reads: transformed columns get what their transform
    /// makes of it, lists an element, the others the scalar itself.
    @inline(never)
    private mutating func writeSpecialScalar(node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        let node = nodes[Int(nodeID)]
        for target in Int(node.targetStart)..<Int(node.targetStart + node.targetCount) {
            let column = Int(targets[target])
            if plan.columnHasFallbacks[column] {
                writeFallback(column: column, rank: plan.targetRanks[target], node: nodeID, kind, bytes, length, boolValue)
            } else if plan.columnIsCleaned[column] {
                writeCleaned(column: column, node: nodeID, kind, bytes, length, boolValue)
            } else {
                writeSpecial(column: column, node: nodeID, kind, bytes, length, boolValue)
            }
        }
    }

    /// A scalar at one of the paths of a column with fallbacks: written unless it is null or a path before it has
    /// given the record a value, and then the failures of a value from a later path are withdrawn.
    @inline(never)
    private mutating func writeFallback(
        column: Int, rank: Int32, node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool
    ) {
        guard kind != .null else { return }
        let given = fallbackValues[column]
        let hadValue = given.serial == serial
        // The same path again (a duplicate key) replaces what it gave, as it would without fallbacks.
        if hadValue && given.rank < rank { return }
        let failuresBefore = failures.count
        fallbackValueWasNull = false
        if plan.columnIsCleaned[column] {
            writeCleaned(column: column, node: nodeID, kind, bytes, length, boolValue)
        } else {
            convert(column: column, node: nodeID, kind, bytes, length, boolValue)
        }
        if fallbackValueWasNull { return }
        if hadValue && !given.failures.isEmpty { withdrawnFailures.append(given.failures) }
        fallbackValues[column] = FallbackValue(serial: serial, rank: rank, failures: failuresBefore..<failures.count)
    }

    /// What a required column that nothing gave a value found: no value, at its path or at any of its fallbacks.
    private func missingValue(column: Int) -> String {
        guard plan.columnHasFallbacks[column] else { return "no value" }
        return "no value, nor at " + plan.fields[column].fallbackPaths.map { "$." + $0 }.joined(separator: ", ")
    }

    /// Forgets the record's failures, and with them those a fallback withdrew.
    private mutating func clearFailures() {
        failures.removeAll()
        if !withdrawnFailures.isEmpty { withdrawnFailures.removeAll() }
    }

    /// The value one of a column's paths gave a record: the path's rank, and the failures the value made, withdrawn
    /// if a path before it gives one. Its own serial, not `stamps`, which other rules set too (a container where
    /// the column reads a scalar), says which record it belongs to.
    private struct FallbackValue {
        var serial: UInt32 = 0
        var rank: Int32 = 0
        var failures: Range<Int> = 0..<0
    }

    /// Takes out the failures of values that a path before theirs replaced.
    @inline(never)
    private mutating func removeWithdrawnFailures() {
        for range in withdrawnFailures.sorted(by: { $0.lowerBound > $1.lowerBound }) { failures.removeSubrange(range) }
        withdrawnFailures.removeAll()
    }

    /// A scalar for a column with null spellings or cleanups: what they make of it goes on as the input would
    /// have. A failure to convert a value they made null names the value they read.
    @inline(never)
    private mutating func writeCleaned(column: Int, node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        // Read in place: a copy of the compiled cleanups would retain their tables for every value.
        let conversion = plan.conversion(column)
        var isSpelledNull = false
        switch kind {
        case .string: isSpelledNull = bytes.map { conversion.pointee.cleaning?.nullSpellings?.matchesString($0, length) ?? false } ?? false
        case .number: isSpelledNull = bytes.map { conversion.pointee.cleaning?.nullSpellings?.matchesNumber($0, length) ?? false } ?? false
        case .bool: isSpelledNull = conversion.pointee.cleaning?.nullSpellings?.matchesBool(boolValue) ?? false
        case .null: break
        }
        guard !isSpelledNull else { return writeCleanedOutcome(.null, column: column, node: nodeID, kind, bytes, length, boolValue) }
        guard kind == .string, conversion.pointee.cleaning?.hasSteps == true, let bytes else {
            return writeSpecial(column: column, node: nodeID, kind, bytes, length, boolValue)
        }
        if !isWellFormed(node: nodeID, bytes, length) { return }
        let scratch = cleanupScratch ?? CleanupScratch()
        cleanupScratch = scratch
        conversion.pointee.cleaning?.clean(bytes, length, scratch: scratch) { outcome in
            writeCleanedOutcome(outcome, column: column, node: nodeID, kind, bytes, length, boolValue)
        }
    }

    /// What null spellings and cleanups made of a value (or of one piece of a split value), written as the input
    /// would have been; the original value is what rejections show.
    private mutating func writeCleanedOutcome(
        _ outcome: CompiledCleanups.Outcome, column: Int, node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool
    ) {
        let failuresBefore = failures.count
        switch outcome {
        case .string(let text, let count): writeSpecial(column: column, node: nodeID, .string, text, count, false)
        case .number(let text, let count): writeSpecial(column: column, node: nodeID, .number, text, count, false)
        case .null:
            if plan.columnHasFallbacks[column] {
                fallbackValueWasNull = true
                return
            }
            writeSpecial(column: column, node: nodeID, .null, nil, 0, false)
            if failures.count > failuresBefore {
                fail(node: nodeID, failures[failuresBefore].kind, expected: failures[failuresBefore].expected, kind, bytes, length, boolValue)
                failures[failuresBefore].found = failures.removeLast().found + " (read as null)"
            }
        case .failed(let expected):
            stamps[column] = serial
            fail(node: nodeID, .typeMismatch, expected: expected, kind, bytes, length, boolValue)
        case .listStarts:
            if columnIsList[column] { startList(column: column) }
        }
    }

    /// One column of a node with special targets: a transform's result, a list's element, or the plain conversion.
    private mutating func writeSpecial(column: Int, node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        guard columnIsTransformed[column] else {
            if columnIsList[column] {
                appendListElement(column: column, node: nodeID, kind, bytes, length, boolValue)
            } else {
                convert(column: column, node: nodeID, kind, bytes, length, boolValue)
            }
            return
        }
        // Decoding would replace ill-formed UTF-8 without a word: it is rejected first.
        if kind == .string, let bytes, !isWellFormed(node: nodeID, bytes, length) { return }
        let text = { String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self) }
        let value: JSONValue = switch kind {
        case .string: .string(text())
        case .number: .number(text())
        case .bool: .bool(boolValue)
        case .null: .null
        }
        writeTransformed(value, column: column, node: nodeID)
    }

    // MARK: - Lists

    /// Opens the record's list for `column` (`[`), unless it is open already.
    private mutating func startList(column: Int) {
        guard stamps[column] != serial else { return }
        stamps[column] = serial
        columns[column].beginText(row: row)
        columns[column].appendText(byte: UInt8(ascii: "["))
        if columnIsUniqueList[column], let ordinal = listOrdinals?[column] { listSeen[Int(ordinal)].removeAll(keepingCapacity: true) }
    }

    /// The lists whose array starts at `nodeID`: an empty array gives `[]`, not a missing value.
    @inline(never)
    private mutating func startLists(at nodeID: Int32) {
        for (ordinal, arrayNode) in listArrayNodeTable.enumerated() where arrayNode == nodeID {
            startList(column: listColumnTable[ordinal])
        }
    }

    /// Converts one element by the list's type and appends it as JSON; nulls are dropped, and an element that
    /// does not convert fails the record like any value.
    private mutating func appendListElement(column: Int, node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        guard kind != .null, let listScratch, let ordinal = listOrdinals?[column] else { return }
        if kind == .string, let bytes, !isWellFormed(node: nodeID, bytes, length) { return }
        startList(column: column)
        if columnTypes[column].keepsScalarText, kind == .string || kind == .number, let bytes {
            // Text that a string list takes as it is (the string conversion's own rule) needs no scratch.
            let mark = beginListElement(column: column)
            columns[column].appendJSONString(UnsafeBufferPointer(start: bytes, count: length))
            endListElement(column: column, from: mark)
            return
        }
        let scratch = listScratch + Int(ordinal)
        scratch.pointee.reset()
        let failuresBefore = failures.count
        convertValue(column: column, into: scratch, row: 0, node: nodeID, kind, bytes, length, boolValue)
        guard failures.count == failuresBefore, scratch.pointee.isValid(0) else { return }
        let mark = beginListElement(column: column)
        ListElementText.append(scratch.pointee, type: columnTypes[column], to: columns + column)
        endListElement(column: column, from: mark)
    }

    /// Appends an element's JSON text as it stands in the input (json lists).
    private mutating func appendListText(column: Int, _ element: UnsafeBufferPointer<UInt8>) {
        startList(column: column)
        let mark = beginListElement(column: column)
        if let base = element.baseAddress { columns[column].appendText(base, count: element.count) }
        endListElement(column: column, from: mark)
    }

    /// Writes the comma before an element unless it is the first; returns where the element's bytes start.
    private mutating func beginListElement(column: Int) -> (beforeComma: Int, element: Int) {
        let storage = columns + column
        let beforeComma = storage.pointee.byteCount
        if beforeComma > storage.pointee.offsets[row] + 1 { storage.pointee.appendText(byte: UInt8(ascii: ",")) }
        return (beforeComma, storage.pointee.byteCount)
    }

    /// A unique list keeps only the first of equal elements: a repeated one is taken back out.
    private mutating func endListElement(column: Int, from mark: (beforeComma: Int, element: Int)) {
        guard columnIsUniqueList[column], let ordinal = listOrdinals?[column] else { return }
        let storage = columns + column
        let element = Array(UnsafeBufferPointer(start: storage.pointee.bytes + mark.element, count: storage.pointee.byteCount - mark.element))
        if !listSeen[Int(ordinal)].insert(element).inserted { storage.pointee.truncateText(to: mark.beforeComma) }
    }

    /// Closes the record's open lists (`]`), before validators and the commit look at them.
    @inline(never)
    private mutating func closeLists() {
        for column in listColumnTable where stamps[column] == serial {
            columns[column].appendText(byte: UInt8(ascii: "]"))
            columns[column].endText(row: row)
        }
    }

    /// Runs a column's transform and converts its result by the column's type; nil converts as `null` does.
    @inline(never)
    private mutating func writeTransformed(_ value: JSONValue, column: Int, node nodeID: Int32) {
        stamps[column] = serial
        guard let transform = plan.conversion(column).pointee.transform else { return }
        let result: JSONValue?
        do {
            result = try transform.body(value)
        } catch {
            failures.append(Rejection.Failure(keyPath: plan.displayPaths[Int(nodeID)], kind: .custom, expected: transform.description, found: "\(error)"))
            return
        }
        switch result ?? .null {
        case .null:
            convert(column: column, node: nodeID, .null, nil, 0, false)
        case .bool(let flag):
            convert(column: column, node: nodeID, .bool, nil, 0, flag)
        case .string(var text):
            text.withUTF8 { convert(column: column, node: nodeID, .string, $0.baseAddress ?? emptyBytes, $0.count, false) }
        case .number(var text):
            let isNumber = !text.hasPrefix("+") && text.withUTF8 { NumberConversion.isNumberText($0.baseAddress ?? emptyBytes, $0.count) }
            guard isNumber else {
                failures.append(Rejection.Failure(keyPath: plan.displayPaths[Int(nodeID)], kind: .custom, expected: transform.description, found: "it returned .number(\"\(text)\"), which is not a JSON number"))
                return
            }
            text.withUTF8 { convert(column: column, node: nodeID, .number, $0.baseAddress ?? emptyBytes, $0.count, false) }
        case .object(json: var text), .array(json: var text):
            guard columnTypes[column].keepsJSONText else {
                let found = text.hasPrefix("[") ? ValueDescription.array : ValueDescription.object
                failures.append(Rejection.Failure(keyPath: plan.displayPaths[Int(nodeID)], kind: .typeMismatch, expected: columnTypes[column].description, found: found))
                return
            }
            text.withUTF8 { columns[column].writeText($0.baseAddress ?? emptyBytes, count: $0.count, row: row) }
        }
    }

    /// JSON null: null for an optional field; otherwise the default, or a rejection. An enum's default also
    /// covers null, optional or not.
    private mutating func writeNull(column: Int, node nodeID: Int32) {
        let storage = columns + column
        let isOptional = columnIsOptional[column]
        if columnHasDefault[column] && (!isOptional || columnTypes[column].holdsListedValues),
           let defaultValue = plan.conversion(column).pointee.defaultValue {
            storage.pointee.write(defaultValue, row: row)
            return
        }
        storage.pointee.setNull(row: row)
        if !isOptional {
            fail(node: nodeID, .null, expected: plan.fields[column].shownTypeName, .null, nil, 0, false)
        }
    }

    @inline(__always)
    private mutating func startContainer(isArray: Bool) -> Bool {
        let nodeID = nodeForValue(isArrayStart: isArray)
        if nodeID == Self.consumedByOuter { return true }
        if nodeID == Self.mustStop { return false }
        if frameCount + outerLevels + 1 > maximumDepth { return tooDeep() }
        if nodeID < 0 { return beginSkip(captureNode: -1) }
        let node = nodes[Int(nodeID)]
        if isArray && node.elementMachine >= 0 && Int(node.elementMachine) < elementMachines.count {
            return beginElements(node: nodeID, machine: Int(node.elementMachine))
        }
        // A row of a CSV-like input is read by its header's names, as if it were an object.
        let fitsShape = isArray ? node.expectsArray || (nodeID == 0 && knowsHeader) : node.expectsObject
        if !fitsShape || node.hasScalarTargets {
            reportContainerMismatches(node: nodeID, isArray: isArray, fitsShape: fitsShape)
        }
        if !fitsShape { return beginSkip(captureNode: node.capturesJSON ? nodeID : -1) }
        var frame = Frame(node: nodeID, isArray: isArray)
        if isArray && nodeID == 0 && knowsHeader { frame.readsByHeader = true }
        if isArray && startsLists[Int(nodeID)] { startLists(at: nodeID) }
        if node.capturesJSON {
            frame.captureStart = offsetAfterToken() - 1
            openCaptures += 1
        }
        frames[frameCount] = frame
        frameCount += 1
        return true
    }

    /// Fields that cannot take this container: scalar fields on the node, and fields beneath it when the
    /// container is of the other kind (an array where an object was expected).
    @inline(never)
    private mutating func reportContainerMismatches(node nodeID: Int32, isArray: Bool, fitsShape: Bool) {
        let node = nodes[Int(nodeID)]
        let found = isArray ? ValueDescription.array : ValueDescription.object
        for target in Int(node.targetStart)..<Int(node.targetStart + node.targetCount) {
            let column = Int(targets[target])
            stamps[Int(column)] = serial
            if !columnTypes[column].keepsJSONText && !columnIsTransformed[column] {
                failures.append(Rejection.Failure(keyPath: plan.displayPaths[Int(nodeID)], kind: .typeMismatch, expected: plan.fields[column].shownTypeName, found: found))
            }
        }
        if !fitsShape && node.hasChildren && !plan.feedsNoField[Int(nodeID)] {
            failures.append(Rejection.Failure(keyPath: plan.displayPaths[Int(nodeID)], kind: .typeMismatch, expected: "an object", found: found))
        }
    }

    private mutating func beginSkip(captureNode: Int32) -> Bool {
        skipDepth = 1
        skipCaptureNode = captureNode
        if captureNode >= 0 { skipCaptureStart = offsetAfterToken() - 1 }
        return true
    }

    private mutating func enterSkipped(isArray: Bool) -> Bool {
        skipDepth += 1
        if frameCount + skipDepth + outerLevels > maximumDepth { return tooDeep() }
        return !feedsElements || feedElements(isArray ? .startArray : .startMap)
    }

    @inline(__always)
    private mutating func endContainer() -> Bool {
        if skipDepth > 0 {
            skipDepth -= 1
            if elementsColumn >= 0 {
                if skipDepth > 0 { return !feedsElements || feedElements(.end) }
                finishElements()
            }
            if skipDepth > 0 { return true }
            if skipCaptureNode >= 0 {
                capture(node: skipCaptureNode, from: skipCaptureStart, to: offsetAfterToken())
                skipCaptureNode = -1
            }
            if frameCount == 0 { return endRecord(end: offsetAfterToken()) }
            return true
        }
        if frameCount == 0 {
            // The closing bracket of the top-level array.
            outerOpen = false
            outerClosed = true
            boundary = offsetAfterToken()
            return true
        }
        frameCount -= 1
        let frame = frames[frameCount]
        if frame.captureStart >= 0 {
            openCaptures -= 1
            capture(node: frame.node, from: frame.captureStart, to: offsetAfterToken())
        }
        if frameCount == 0 { return endRecord(end: min(offsetAfterToken(), scalarEndLimit)) }
        return true
    }

    /// A container the matched walk checked whole at a node json fields read (and walked, where fields beneath
    /// it read its values): as the event walk's container there, the mismatches it makes, then its text captured.
    mutating func captureMatched(node nodeID: Int32, from start: Int, to end: Int, isArray: Bool) {
        let node = nodes[Int(nodeID)]
        let fitsShape = isArray ? node.expectsArray : node.expectsObject
        if !fitsShape || node.hasScalarTargets { reportContainerMismatches(node: nodeID, isArray: isArray, fitsShape: fitsShape) }
        capture(node: nodeID, from: start, to: end)
    }

    /// Writes the input text of `[start, end)` into the node's json columns.
    private mutating func capture(node nodeID: Int32, from start: Int, to end: Int) {
        let node = nodes[Int(nodeID)]
        guard let buffer else { return }
        // Keys and strings inside a captured value are written as they stand: checked once, here.
        guard isWellFormed(node: nodeID, buffer + (start - bufferOffset), end - start) else {
            // Seen, so not also missing (a list opened, so that it closes whole).
            for target in Int(node.targetStart)..<Int(node.targetStart + node.targetCount) {
                let column = Int(targets[target])
                if columnIsList[column] { startList(column: column) } else { stamps[column] = serial }
            }
            return
        }
        for target in Int(node.targetStart)..<Int(node.targetStart + node.targetCount) {
            let column = Int(targets[target])
            if columnIsList[column] {
                if columnTypes[column].keepsJSONText { appendListText(column: column, UnsafeBufferPointer(start: buffer + (start - bufferOffset), count: end - start)) }
                continue
            }
            if columnIsTransformed[column] {
                if let value = JSONValue(jsonText: UnsafeBufferPointer(start: buffer + (start - bufferOffset), count: end - start)) {
                    writeTransformed(value, column: column, node: nodeID)
                }
                continue
            }
            guard columnTypes[column].keepsJSONText else { continue }
            stamps[column] = serial
            columns[column].writeText(buffer + (start - bufferOffset), count: end - start, row: row)
        }
    }

    // MARK: - Typed arrays, element by element

    /// An event inside an array mapped element by element, passed on to its element machine.
    private enum ElementEvent {
        case startMap, startArray, end, null
        case key(UnsafePointer<UInt8>, Int)
        case string(UnsafePointer<UInt8>, Int)
        case number(UnsafePointer<UInt8>, Int)
        case bool(Bool)
    }

    /// Starts mapping the array at `nodeID` element by element: the record's machine skips it, by depth, and
    /// passes every event inside it on to the element machine.
    @inline(never)
    private mutating func beginElements(node nodeID: Int32, machine: Int) -> Bool {
        let column = Int(targets[Int(nodes[Int(nodeID)].targetStart)])
        stamps[column] = serial
        elementsColumn = column
        elementsMachine = machine
        elementsIndex = 0
        elementsStart = elementMachines[machine].row
        elementsRejectionsBefore = elementMachines[machine].elementBatch?.rejections.count ?? 0
        feedsElements = true
        return beginSkip(captureNode: -1)
    }

    /// Passes one event inside the array on; `skipDepth` already counts a container it opens or closes. JSON
    /// nulls in the array are no elements and are dropped; the first element that fails ends the feeding. Out of
    /// line, as ``elementSkipsPendingValue()`` is.
    @inline(never)
    private mutating func feedElements(_ event: ElementEvent) -> Bool {
        let machine = elementsMachine
        // Directly in the array (depth 1, or 2 for a container that just opened) a value is an element.
        let endsElement: Bool
        switch event {
        case .startMap, .startArray:
            endsElement = false
            if skipDepth == 2 {
                elementMachines[machine].startElement(ordinal: elementsIndex)
                elementsIndex += 1
            }
        case .key:
            endsElement = false
        case .end:
            endsElement = skipDepth == 1
        case .null, .string, .number, .bool:
            endsElement = skipDepth == 1
            if endsElement {
                elementsIndex += 1
                if case .null = event { return true }
                elementMachines[machine].startElement(ordinal: elementsIndex - 1)
            }
        }
        elementMachines[machine].follow(buffer: buffer, bufferOffset: bufferOffset, bufferCount: bufferCount, handle: handle,
                                        sliceOffset: sliceOffset, scriptedOffset: scriptedOffset, isKnownUTF8: recordIsKnownUTF8)
        // An element machine never asks to stop: its records are collected, and depth is this machine's to check.
        switch event {
        case .startMap: _ = elementMachines[machine].startMap()
        case .startArray: _ = elementMachines[machine].startArray()
        case .end: _ = elementMachines[machine].endContainer()
        case .null: _ = elementMachines[machine].null()
        case .key(let bytes, let length): _ = elementMachines[machine].key(bytes, length)
        case .string(let bytes, let length): _ = elementMachines[machine].string(bytes, length)
        case .number(let bytes, let length): _ = elementMachines[machine].number(bytes, length)
        case .bool(let value): _ = elementMachines[machine].bool(value)
        }
        if endsElement, let batch = elementMachines[machine].elementBatch, batch.rejections.count > elementsRejectionsBefore {
            feedsElements = false
        }
        return true
    }

    /// The array closed: its row holds where its elements lie, or which of them failed.
    private mutating func finishElements() {
        if let batch = elementMachines[elementsMachine].elementBatch {
            let end = elementMachines[elementsMachine].row
            batch.count = end
            let failure = batch.rejections.count > elementsRejectionsBefore ? elementsRejectionsBefore : nil
            ElementRows.write(batch, rows: elementsStart..<end, failure: failure, into: columns + elementsColumn, row: row)
        }
        elementsColumn = -1
        feedsElements = false
    }

    /// The element machines write into the element batches of `batch` from now on: the batch in hand when a
    /// record starts after a batch was handed on (a new batch, a recycled one, or the same one when it was not).
    private mutating func bindElementBatches(of batch: ColumnarBatch) {
        for index in elementMachines.indices where index < batch.elementBatches.count {
            elementMachines[index].bind(to: batch.elementBatches[index])
        }
    }

    /// An element machine: writes its rows into `batch` after those its records' arrays hold (none once the
    /// batch was recycled, which empties it).
    private mutating func bind(to batch: ColumnarBatch) {
        elementBatch = batch
        columns = batch.columns
        row = batch.count
        if !elementMachines.isEmpty { bindElementBatches(of: batch) }
    }

    /// An element machine: the next value is the element at `ordinal` (0-based, nulls counted) of its array.
    private mutating func startElement(ordinal: Int) {
        self.ordinal = ordinal
    }

    /// An element machine: the token about to be delivered is where its record's machine is.
    private mutating func follow(
        buffer: UnsafePointer<UInt8>?, bufferOffset: Int, bufferCount: Int, handle: yajl_handle?, sliceOffset: Int, scriptedOffset: Int,
        isKnownUTF8: Bool
    ) {
        self.buffer = buffer
        self.bufferOffset = bufferOffset
        self.bufferCount = bufferCount
        self.handle = handle
        self.sliceOffset = sliceOffset
        self.scriptedOffset = scriptedOffset
        recordIsKnownUTF8 = isKnownUTF8
    }

    /// An element machine: keeps the element's row; its batch grows when full, since all of a batch's records'
    /// elements go into it. The rows of a record rejected or abandoned later are not taken back: no array's row
    /// names them, and the batch they fill is emptied with the record's batch, which rejections fill too.
    private mutating func commitElement(into batch: ColumnarBatch, _ location: RecordLocation) {
        batch.ordinals[row] = location.ordinal
        mappedCount += 1
        row += 1
        if row == batch.capacity { batch.grow(keeping: row) }
    }

    // MARK: - Records

    mutating func endRecord(end: Int) -> Bool {
        inRecord = false
        if defersFinish {
            hasDeferredRecord = true
            deferredEnd = end
            return true
        }
        return finishRecord(end: end)
    }

    /// Completes the record held back by ``defersFinish``, now that what follows it is known to be clean.
    mutating func finishDeferredRecord() -> Bool {
        guard hasDeferredRecord else { return true }
        hasDeferredRecord = false
        return finishRecord(end: deferredEnd)
    }

    private mutating func finishRecord(end: Int) -> Bool {
        if isPassingOver { return finishPassingOver(end: end) }
        if listScratch != nil { closeLists() }
        let location = locateRecord(end: end)
        if knownRecordStart == nil && end - location.byteOffset > maximumRecordSize {
            return rejectOversized(location: location)
        }
        if !withdrawnFailures.isEmpty { removeWithdrawnFailures() }
        for column in requiredColumns where stamps[column] != serial {
            failures.append(Rejection.Failure(keyPath: columnPaths[column], kind: .missing, expected: plan.fields[column].shownTypeName, found: missingValue(column: column)))
        }
        if !plan.validators.isEmpty { validateRecord() }
        if failures.isEmpty {
            commit(location, end: end)
            return true
        }
        return reject(location: location, end: end, failures: failures)
    }

    /// A record passed over (skipped, or the header): it gets no ordinal and is neither mapped nor rejected. A
    /// header that is not an array of strings ends the run: nothing after it could be read by name.
    @inline(never)
    private mutating func finishPassingOver(end: Int) -> Bool {
        isPassingOver = false
        clearFailures()
        let location = locateRecord(end: end)
        ordinal -= 1
        if recordsToSkip > 0 {
            recordsToSkip -= 1
            return true
        }
        let text = recordText(location: location, end: end)
        if let names = text.withUnsafeBufferPointer({ ColumnHeader.names(inRecordText: $0) }) {
            readsHeader = false
            columnHeader?.publish(names)
            useHeader(names)
            return true
        }
        return failHeader(location: location, text: text)
    }

    /// Ends the run at a header that is not an array of strings (or not even JSON): one message for every way it
    /// can fail, and no rejection counted, since the header is not a record.
    private mutating func failHeader(location: RecordLocation, text: [UInt8]) -> Bool {
        readsHeader = false
        columnHeader?.fail()
        let found = text.withUnsafeBufferPointer { ValueDescription.quoted(UnsafeBufferPointer(rebasing: $0.prefix(64))) }
        endingRejection = Rejection(
            location: location,
            failures: [Rejection.Failure(keyPath: "$", kind: .typeMismatch, expected: "a header record (an array of column names)", found: found)],
            rawText: text)
        return false
    }

    /// The bytes of the record at `location` up to `end`, when the buffer still holds them.
    private func recordText(location: RecordLocation, end: Int) -> [UInt8] {
        guard let buffer, end > location.byteOffset, location.byteOffset >= bufferOffset else { return [] }
        return Array(UnsafeBufferPointer(start: buffer + (location.byteOffset - bufferOffset), count: end - location.byteOffset))
    }

    /// Reads rows by these column names from now on.
    mutating func useHeader(_ names: [[UInt8]]) {
        headerNodes = names.map { name in
            name.withUnsafeBufferPointer { buffer in
                let entry = plan.lookupFull(node: nodes[0], key: buffer.baseAddress ?? emptyBytes, buffer.count)
                return entry >= 0 ? keyEntries[Int(entry)].node : Self.unmapped
            }
        }
        knowsHeader = true
    }

    /// The node of a row's value at `index`; a value past the header's columns is a failure of its record.
    @inline(__always)
    private mutating func headerNode(_ index: Int) -> Int32 {
        if index < headerNodes.count { return headerNodes[index] }
        if index == headerNodes.count {
            failures.append(Rejection.Failure(keyPath: "$", kind: .extraValue, expected: "at most \(headerNodes.count) values (one per header column)", found: "more"))
        }
        return Self.unmapped
    }

    /// Runs the plan's validators on the row; defaults count as values, so they are validated too.
    @inline(never)
    private mutating func validateRecord() {
        for index in 0..<plan.validators.count {
            let validator = plan.validatorTable + index
            let column = validator.pointee.column
            if stamps[column] != serial && columnHasDefault[column], let defaultValue = plan.conversion(column).pointee.defaultValue {
                columns[column].write(defaultValue, row: row)
                stamps[column] = serial
                defaultedStamps[column] = serial
            }
            let verdict = validator.pointee.verdict(columns[column], row: row)
            guard verdict != .passes else { continue }
            var found = ValueDescription.null
            if columns[column].isValid(row) {
                found = columns[column].type.holdsExactDecimals ? columns[column].describedValue(row) : Self.describe(columns[column].fieldValue(row))
            }
            if verdict == .gaveUp { found += " (the pattern gave up after \(PatternMatcher.stepLimit) matching steps)" }
            failures.append(Rejection.Failure(keyPath: columnPaths[column], kind: .validation, expected: validator.pointee.label, found: found))
        }
    }

    private static func describe(_ value: FieldValue) -> String {
        switch value {
        case .string(let text): return Array(text.utf8).withUnsafeBufferPointer { ValueDescription.string($0) }
        case .bytes(let bytes): return "bytes " + bytes.withUnsafeBufferPointer { Base64.encode(UnsafeBufferPointer(rebasing: $0.prefix(48))) }
        default: return value.description
        }
    }

    private mutating func commit(_ location: RecordLocation, end: Int) {
        for column in 0..<columnCount where stamps[column] != serial {
            if columnHasDefault[column], let defaultValue = plan.conversion(column).pointee.defaultValue {
                columns[column].write(defaultValue, row: row)
            } else {
                columns[column].setNull(row: row)
            }
        }
        if let elementBatch {
            commitElement(into: elementBatch, location)
            return
        }
        let batch = batches.current
        if let recordText = batch.recordText {
            recordText.pointee.beginText(row: row)
            if let buffer, end > location.byteOffset, location.byteOffset >= bufferOffset {
                recordText.pointee.appendText(buffer + (location.byteOffset - bufferOffset), count: end - location.byteOffset)
            }
            recordText.pointee.endText(row: row)
        }
        batch.ordinals[row] = location.ordinal
        batch.lines[row] = location.line
        batch.byteOffsets[row] = location.byteOffset
        mappedCount += 1
        row += 1
        if row == batch.capacity {
            batches.completeCurrent(count: row)
            batchNeedsCare = true
            row = 0
        }
    }

    private mutating func locateRecord(end: Int) -> RecordLocation {
        ordinal += 1
        if let start = knownRecordStart {
            return RecordLocation(ordinal: ordinal, line: knownRecordLine, byteOffset: start)
        }
        var start = boundary
        if let buffer {
            while start < end {
                let byte = buffer[start - bufferOffset]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == UInt8(ascii: ",") else { break }
                start += 1
            }
            if start > lineCountedTo {
                line += NewlineCounter.count(in: UnsafeBufferPointer(start: buffer + (lineCountedTo - bufferOffset), count: start - lineCountedTo))
                lineCountedTo = start
            }
        }
        boundary = end
        return RecordLocation(ordinal: ordinal, line: line, byteOffset: start)
    }

    @inline(never)
    private mutating func reject(location: RecordLocation, end: Int, failures recorded: [Rejection.Failure], truncatedText: Bool = false) -> Bool {
        takeBackValuesOfRecord()
        if let elementBatch {
            elementBatch.rejections.append(Rejection(location: location, failures: recorded, rawText: []))
            clearFailures()
            rejectedCount += 1
            return true
        }
        let rejection = Rejection(location: location, failures: recorded, rawText: recordText(location: location, end: end),
                                  isRawTextTruncated: truncatedText)
        clearFailures()
        rejectedCount += 1
        batches.current.rejections.append(rejection)
        if batches.current.rejections.count >= batches.current.capacity { batchNeedsCare = true }
        if stopsAtFirstRejection {
            stoppingRejection = rejection
            return false
        }
        return true
    }

    /// A record over the size limit in a stream: the same rejection whether the limit was noticed while reading
    /// (``rejectOversizedRecordInProgress(end:)``) or once the record was whole, so output does not depend on
    /// buffer sizes. Its other failures are dropped: the record was never meant to be read.
    @inline(never)
    private mutating func rejectOversized(location: RecordLocation) -> Bool {
        failures = [.recordTooLarge(limit: maximumRecordSize, found: "a longer record", at: location.byteOffset)]
        let shownEnd = location.byteOffset + Rejection.Failure.shownBytesOfOversizedRecord(limit: maximumRecordSize)
        _ = reject(location: location, end: shownEnd, failures: failures, truncatedText: true)
        endingRejection = batches.lastRejectionInCurrent
        stoppingRejection = nil
        return false
    }

    /// The stream's reader holds more than the size limit of the record in progress.
    mutating func rejectOversizedRecordInProgress(end: Int) {
        let location = locateRecord(end: end)
        _ = rejectOversized(location: location)
    }

    /// Counts the lines up to `offset` (at most the boundary), before the driver lets go of the bytes before it.
    mutating func countLines(upTo offset: Int) {
        guard let buffer, offset > lineCountedTo, lineCountedTo >= bufferOffset else { return }
        line += NewlineCounter.count(in: UnsafeBufferPointer(start: buffer + (lineCountedTo - bufferOffset), count: offset - lineCountedTo))
        lineCountedTo = offset
    }

    /// Line feeds counted so far (up to the last record's start, or where ``countLines(upTo:)`` was asked).
    var linesCounted: Int { line - 1 }

    /// Where the record in progress starts, as far as the bytes read tell (streams only).
    var recordInProgressStart: Int {
        var start = boundary
        guard let buffer else { return start }
        while start < bufferOffset + bufferCount {
            let byte = buffer[start - bufferOffset]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == UInt8(ascii: ",") else { break }
            start += 1
        }
        return start
    }

    // MARK: - Failures

    /// A value that did not convert into `column`: its failure, in the words of the column's field.
    @inline(never)
    private mutating func fail(node: Int32, _ failure: DecodeFailure, column: Int, _ found: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        fail(node: node, failure.kind, expected: failure.expected(for: plan.fields[column]), found, bytes, length, boolValue)
    }

    @inline(never)
    private mutating func fail(node: Int32, _ kind: Rejection.Kind, expected: String, _ found: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        let description: String
        switch found {
        case .string: description = ValueDescription.string(UnsafeBufferPointer(start: bytes, count: length))
        case .number: description = ValueDescription.number(UnsafeBufferPointer(start: bytes, count: length))
        case .bool: description = ValueDescription.bool(boolValue)
        case .null: description = ValueDescription.null
        }
        failures.append(Rejection.Failure(keyPath: plan.displayPaths[Int(node)], kind: kind, expected: expected, found: description))
    }

    /// Whether mapped text is well-formed UTF-8; if not, the record's failure, naming the node's key path.
    @inline(__always)
    private mutating func isWellFormed(node: Int32, _ bytes: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        if recordIsKnownUTF8 { return true }
        guard let offset = UTF8Validation.firstInvalidOffset(bytes, length) else { return true }
        failures.append(Rejection.Failure(keyPath: plan.displayPaths[Int(node)], kind: .invalidUTF8, expected: "well-formed UTF-8",
                                          found: UTF8Validation.describe(bytes, length, at: offset)))
        return false
    }

    @inline(never)
    private mutating func tooDeep() -> Bool {
        fatal(.nestingTooDeep, expected: "at most \(maximumDepth + hiddenOuterLevels) levels of nesting", found: "deeper nesting") >= 0
    }

    /// Notes a problem that the record cannot be read past, and asks the tokenizer to stop; the driver then
    /// rejects the record with ``rejectRecordInProgress(_:end:)``.
    @inline(never)
    private mutating func fatal(_ kind: Rejection.Kind, expected: String, found: String) -> Int32 {
        failures.append(Rejection.Failure(keyPath: "$", kind: kind, expected: expected, found: found, byteOffset: offsetAfterToken()))
        return Self.mustStop
    }

    /// Rejects the record in progress (or, between records, the bytes where one should have been) for a problem
    /// the tokenizer could not go on from, adding `failure` to what the record already collected. `end` is where
    /// the record's text ends. Returns `false` when the rejection policy says stop.
    mutating func rejectRecordInProgress(_ failure: Rejection.Failure?, end: Int, rawTextIsTruncated: Bool = false) -> Bool {
        if readsHeader && recordsToSkip == 0 && (isPassingOver || !inRecord) {
            // A header that is not even JSON (not even its first token) fails as any other header that names no
            // columns.
            let location = locateRecord(end: end)
            ordinal -= 1
            clearFailures()
            isPassingOver = false
            leaveRecord()
            return failHeader(location: location, text: recordText(location: location, end: end))
        }
        if let failure { failures.append(failure) }
        let location = locateRecord(end: end)
        let keepGoing = reject(location: location, end: end, failures: failures, truncatedText: rawTextIsTruncated)
        leaveRecord()
        return keepGoing
    }

    /// Nulls the values the record in progress wrote. Between records the stamps still name the last record's
    /// columns. While ``batchNeedsCare`` is set no record has started since it was set, so there is nothing to
    /// take back, and the columns in hand may be those of a batch already handed on, which must not be touched.
    private mutating func takeBackValuesOfRecord() {
        guard !batchNeedsCare else { return }
        for column in 0..<columnCount where stamps[column] == serial { columns[column].setNull(row: row) }
    }

    /// Leaves the record in progress: no container open or skipped, no record waiting, and a new serial so that no
    /// column counts as given by it.
    private mutating func leaveRecord(mayWriteBatch: Bool = true) {
        if elementsColumn >= 0 {
            // A batch handed on is the consumer's: its element rows are not touched.
            if mayWriteBatch && !batchNeedsCare {
                elementMachines[elementsMachine].abandonRecordInProgress()
            } else {
                elementMachines[elementsMachine].clearFailures()
                elementMachines[elementsMachine].leaveRecord(mayWriteBatch: false)
            }
            elementsColumn = -1
            feedsElements = false
        }
        frameCount = 0
        openCaptures = 0
        skipDepth = 0
        skipCaptureNode = -1
        inRecord = false
        hasDeferredRecord = false
        serial &+= 1
    }

    /// Forgets the record in progress (or finished and waiting) as if it had never begun, so that another
    /// tokenizer can read the same bytes again: its values are taken back, its `$key` is given back, it gets no
    /// ordinal and no rejection. Unmapped keys it showed stay counted, and transforms that ran stay run.
    mutating func abandonRecordInProgress() {
        guard inRecord || hasDeferredRecord else { return }
        if plan.keyNode >= 0 { abandonedRecordKey = recordKeyInProgress }
        takeBackValuesOfRecord()
        clearFailures()
        isPassingOver = false
        leaveRecord()
    }

    /// Whether a whole record (not one passed over) waits to be finished with no failure found so far.
    var holdsCleanRecord: Bool { hasDeferredRecord && failures.isEmpty && !isPassingOver }

    /// After a key: whether the value that follows is of no use, so that a tokenizer able to pass over values
    /// unread may do so. Values inside a container a json field captures are always read, so that they are checked.
    /// Inside an array mapped element by element, its element machine answers. Mutating only so that a caller
    /// holding a pointer to the machine asks it in place: a getter with a call in it made the caller copy the
    /// whole machine first, after every key.
    @inline(__always)
    mutating func skipsPendingValue() -> Bool {
        if feedsElements { return openCaptures == 0 && elementSkipsPendingValue() }
        guard skipDepth == 0 && openCaptures == 0 && frameCount > 0 else { return false }
        let child = frames[frameCount - 1].pendingChild
        return child == Self.unmapped || child == Self.ignored || passesOver(child)
    }

    /// Before an array's element: whether no field reads it, so that a tokenizer able to pass over values unread
    /// may do so; the element then counts as seen. Elements mapped element by element, or read by a header's names,
    /// are always read.
    @inline(__always)
    mutating func skipsNextElement() -> Bool {
        guard !feedsElements && skipDepth == 0 && openCaptures == 0 && frameCount > 0 else { return false }
        let frame = frames + (frameCount - 1)
        guard frame.pointee.isArray && !frame.pointee.readsByHeader else { return false }
        let child = plan.lookupIndex(node: nodes[Int(frame.pointee.node)], index: frame.pointee.nextIndex)
        guard child < 0 || passesOver(child) else { return false }
        frame.pointee.nextIndex += 1
        return true
    }

    /// Whether only an ignored path leads to `node`, with nothing beneath it: its value, whatever its shape, is of
    /// no use, like a key no field reads.
    @inline(__always)
    private func passesOver(_ node: Int32) -> Bool {
        node >= 0 && plan.feedsNoField[Int(node)] && !nodes[Int(node)].hasChildren
    }

    /// Out of line: the machines' calls into their element machines must not make the record's events recursive,
    /// which would keep them from inlining into the tokenizer's callbacks.
    @inline(never)
    private mutating func elementSkipsPendingValue() -> Bool {
        elementMachines[elementsMachine].skipsPendingValue()
    }

    /// The absolute offset just past the last token yajl delivered (for errors raised outside callbacks).
    var lastTokenEnd: Int { offsetAfterToken() }

    /// After 2^32 records in one machine (a long run's worker, an array field's kept engine) the serials start
    /// again from 1, and the stamps of earlier records are cleared so that none of them can match a new serial.
    private mutating func restartSerials() {
        let count = max(columnCount, 1)
        stamps.update(repeating: 0, count: count)
        defaultedStamps.update(repeating: 0, count: count)
        for column in fallbackValues.indices { fallbackValues[column] = FallbackValue() }
        serial = 1
    }

    /// Whether the last record finished gave `column` a value or a null (as opposed to missing it).
    func lastRecordHad(column: Int) -> Bool { stamps[column] == serial && defaultedStamps[column] != serial }

    /// Whether no record is in progress or waiting to be finished.
    var isBetweenRecords: Bool { !inRecord && !hasDeferredRecord }

    /// Forgets the input read so far, to read another one whose first byte sits at absolute `offset`: counters,
    /// lines and the position start over; the plan's caches and the unmapped-key counts are kept.
    mutating func restart(at offset: Int) {
        ordinal = 0
        mappedCount = 0
        rejectedCount = 0
        line = 1
        lineCountedTo = offset
        boundary = offset
        outerOpen = false
        outerClosed = false
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

    /// Whether the top-level array (for `outerLevels == 1`) is still open.
    var isOuterOpen: Bool { outerOpen }
    /// Whether the top-level array was opened and closed again.
    var isOuterClosed: Bool { outerClosed }
}

/// A key no field reads, in the object at a trie node.
struct UnmappedKey: Hashable {
    var node: Int32
    var key: [UInt8]

    /// The counts by key path, as reports show them: the node's path, then the key (escaped where it must be).
    static func named(_ counts: [UnmappedKey: Int], in plan: CompiledPlan) -> [String: Int] {  // lint: reporting, not the per-value path
        var result: [String: Int] = [:]  // lint: reporting, not the per-value path
        for (unmapped, count) in counts {
            let name = FieldPath.escaped(key: String(decoding: unmapped.key, as: UTF8.self))
            result[plan.displayPaths[Int(unmapped.node)] + "." + name, default: 0] += count
        }
        return result
    }
}
