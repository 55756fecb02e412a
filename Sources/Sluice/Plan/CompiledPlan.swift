#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mapping compiled into a key-path trie, ready for the state machine.
///
/// Every table lives in one manually allocated block so that the hot path reads plain memory: no array bounds
/// checks, no reference counting, no exclusivity checks. The plan is immutable after ``PlanCompiler`` builds it,
/// which is what makes sharing it between threads safe.
final class CompiledPlan: ElementPlanning, @unchecked Sendable {
    /// The fields, in column order.
    let fields: [FieldSpec]
    /// One per trie node; node 0 is the record's root.
    let nodes: UnsafeMutablePointer<PlanNode>
    /// Children reached through an object key.
    let keyEntries: UnsafeMutablePointer<KeyEntry>
    /// Per-node open-addressing hash tables of indexes into `keyEntries`, -1 for an empty slot.
    let keySlots: UnsafeMutablePointer<Int32>
    /// The key bytes of all `keyEntries`, back to back.
    let keyBytes: UnsafeMutablePointer<UInt8>
    /// Children reached through an array index.
    let indexEntries: UnsafeMutablePointer<IndexEntry>
    /// Columns written by each node, back to back (`PlanNode.targetStart`).
    let targets: UnsafeMutablePointer<Int32>
    /// Per column: its type, whether it is optional.
    let columnTypes: UnsafeMutablePointer<FieldType>
    let columnIsOptional: UnsafeMutablePointer<Bool>
    /// Per column: whether its values go through a ``ValueTransform`` (it then takes any value, as json does).
    let columnIsTransformed: UnsafeMutablePointer<Bool>
    /// Per column: whether its values go through null spellings or cleanups first.
    let columnIsCleaned: UnsafeMutablePointer<Bool>
    /// Per column: whether it reads a list (its path goes through `*`); and the list columns, in order.
    let columnIsList: UnsafeMutablePointer<Bool>
    let listColumns: [Int]
    /// The columns of typed arrays whose elements have a plan of their own (``FieldSpec/elementPlan``), in order:
    /// each has an element machine and, in each batch, a batch of element rows.
    let elementColumns: [Int]
    /// The columns of child tables (``FieldSpec/childTable``), all among ``elementColumns`` and after every other.
    let childTableColumns: [Int]
    /// Per list column (in `listColumns` order): the node of the array whose elements it reads.
    var listArrayNodes: [Int32] = []
    /// Per column: whether it is a unique list (plain memory: the per-element path must not copy field specs).
    let columnIsUniqueList: UnsafeMutablePointer<Bool>
    /// Per node: whether lists start at the array there (a `*` below it).
    var startsLists: UnsafeMutablePointer<Bool> = .allocate(capacity: 1)
    /// Per node: whether an ignored path covers the keys there that no field reads (they are then neither
    /// counted as unmapped nor rejected in strict mode). Read only when a key misses the trie.
    var ignoresUnreadKeys: UnsafeMutablePointer<Bool> = .allocate(capacity: 1)
    /// Per entry of `targets`: which of the column's paths ends at the node (0: its path, 1 on: its fallbacks).
    var targetRanks: [Int32] = []
    /// Per column: whether it has fallback paths, so that the first of its paths with a value wins.
    let columnHasFallbacks: [Bool]
    /// Per node: whether no field reads it or anything beneath it (it is there for an ignored path only), so
    /// that a value of any shape is fine there. Read only when a shape does not fit.
    var feedsNoField: UnsafeMutablePointer<Bool> = .allocate(capacity: 1)
    /// How values convert beyond the type (dates, enums, truncation, defaults): one entry for each column that
    /// has such a conversion, and entry 0, the plain conversion, shared by every column that has none (see
    /// ``conversion(_:)``). Plain memory, so that reading a column's parser or table in place costs no reference
    /// counting.
    private let conversions: UnsafeMutablePointer<ColumnConversion>
    private let conversionCount: Int
    /// Per column: its entry in `conversions`.
    private let conversionSlots: UnsafeMutablePointer<Int32>
    /// Per column: whether it has a default, checked for every missing value without touching `conversions`.
    let columnHasDefault: UnsafeMutablePointer<Bool>
    /// Validators to run on every record before it is committed.
    let validators: [CompiledValidator]
    /// The same validators in plain memory, for the per-record loop (no copies, no reference counting).
    let validatorTable: UnsafeMutablePointer<CompiledValidator>
    /// Whether a key no field reads rejects its record.
    let rejectsUnmappedKeys: Bool
    /// Where the records sit inside a wrapper document, if they do (set once, by the compiler).
    var recordsPath: FieldPath?
    /// Records at the start of the input that are passed over, and whether the next one is a header naming the
    /// columns of array records (set once, by the compiler).
    var skippedRecords = 0
    var columnsFromHeader = false
    /// The node of the `$key` fields (the member key of each record of an object at the records path), or -1.
    var keyNode: Int32 = -1
    /// Per node: the key path as rejections print it. Read only when a record fails.
    let displayPaths: [String]
    let nodeCount: Int
    let keyEntryCount: Int

    init(
        fields: [FieldSpec], conversions: ColumnConversionTable, validators: [CompiledValidator], rejectsUnmappedKeys: Bool, nodes: [PlanNode], keyEntries: [KeyEntry], keySlots: [Int32],
        keyBytes: [UInt8], indexEntries: [IndexEntry], targets: [Int32], displayPaths: [String]
    ) {
        self.fields = fields
        columnPaths = fields.map { field in
            let path = field.resolvedPath(naming: nil)
            return (try? FieldPath(parsing: path))?.description ?? path
        }
        self.conversions = .allocateCopy(of: conversions.entries)
        conversionCount = conversions.entries.count
        conversionSlots = .allocateCopy(of: conversions.slots)
        self.validators = validators
        validatorTable = .allocate(capacity: max(validators.count, 1))
        validatorTable.initialize(from: validators, count: validators.count)
        self.rejectsUnmappedKeys = rejectsUnmappedKeys
        columnHasDefault = .allocateCopy(of: conversions.slots.map { conversions.entries[Int($0)].defaultValue != nil })
        self.nodeCount = nodes.count
        self.keyEntryCount = keyEntries.count
        self.nodes = .allocateCopy(of: nodes)
        self.keyEntries = .allocateCopy(of: keyEntries)
        self.keySlots = .allocateCopy(of: keySlots)
        self.keyBytes = .allocateCopy(of: keyBytes)
        self.indexEntries = .allocateCopy(of: indexEntries)
        self.targets = .allocateCopy(of: targets)
        self.columnTypes = .allocateCopy(of: fields.map(\.type))
        self.columnIsOptional = .allocateCopy(of: fields.map(\.isOptional))
        columnIsTransformed = .allocateCopy(of: fields.map { $0.transform != nil })
        columnIsCleaned = .allocateCopy(of: conversions.slots.map { conversions.entries[Int($0)].cleaning != nil })
        columnHasFallbacks = fields.map { !$0.fallbackPaths.isEmpty }
        columnIsList = .allocateCopy(of: fields.map(\.isList))
        columnIsUniqueList = .allocateCopy(of: fields.map { $0.isList && $0.isUnique })
        listColumns = fields.indices.filter { fields[$0].isList }
        elementColumns = fields.indices.filter { fields[$0].elementPlan != nil }
        childTableColumns = fields.indices.filter { fields[$0].childTable != nil }
        self.displayPaths = displayPaths
    }

    deinit {
        nodes.deallocate()
        keyEntries.deallocate()
        keySlots.deallocate()
        keyBytes.deallocate()
        indexEntries.deallocate()
        targets.deallocate()
        columnTypes.deallocate()
        columnIsOptional.deallocate()
        columnIsTransformed.deallocate()
        columnIsCleaned.deallocate()
        columnIsList.deallocate()
        columnIsUniqueList.deallocate()
        startsLists.deallocate()
        ignoresUnreadKeys.deallocate()
        feedsNoField.deallocate()
        columnHasDefault.deallocate()
        conversions.deinitialize(count: conversionCount)
        validatorTable.deinitialize(count: validators.count)
        validatorTable.deallocate()
        conversions.deallocate()
        conversionSlots.deallocate()
    }

    /// How `column`'s values convert beyond its type.
    @inline(__always)
    func conversion(_ column: Int) -> UnsafeMutablePointer<ColumnConversion> {
        conversions + Int(conversionSlots[column])
    }

    /// Per column: its key path as rejections print it (`$.user.name`), rendered once.
    let columnPaths: [String]

    /// A column's key path as rejections print it.
    func columnPath(_ column: Int) -> String { columnPaths[column] }

    /// The hash both the compiler and the lookup use: length and three sampled bytes, so that hashing costs the
    /// same for any key length.
    @inline(__always)
    static func keyHash(_ key: UnsafePointer<UInt8>?, _ length: Int) -> UInt64 {
        var hash = UInt64(truncatingIfNeeded: length) &* 0x9E37_79B9_7F4A_7C15
        if let key, length > 0 {
            hash ^= UInt64(key[0]) &* 0xC2B2_AE3D_27D4_EB4F
            hash ^= UInt64(key[length - 1]) &* 0x1656_67B1_9E37_79F9
            hash ^= UInt64(key[length >> 1]) &* 0x85EB_CA77_C2B2_AE63
        }
        return hash ^ (hash >> 29)
    }

    /// A hash of every byte of the key, for nodes with many children: thousands of keys that differ only where
    /// ``keyHash(_:_:)`` does not look (`k10000` … `k99999`) would fall into a few long runs of its table.
    @inline(__always)
    static func wholeKeyHash(_ key: UnsafePointer<UInt8>?, _ length: Int) -> UInt64 {
        var hash = UInt64(truncatingIfNeeded: length) &* 0x9E37_79B9_7F4A_7C15
        guard let key else { return hash }
        var offset = 0
        while offset + 8 <= length {
            hash = (hash ^ UnsafeRawPointer(key + offset).loadUnaligned(as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            hash ^= hash >> 31
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < length {
            tail |= UInt64(key[offset]) << shift
            shift += 8
            offset += 1
        }
        hash = (hash ^ tail) &* 0x94D0_49BB_1331_11EB
        return hash ^ (hash >> 29)
    }

    /// Nodes with more key children than this hash whole keys (``PlanNode/hashesWholeKeys``).
    static let sampledHashChildLimit = 64

    /// The hash of a key at `node`: the sampled one, or the whole key's at a node of many children.
    @inline(__always)
    static func keyHash(_ key: UnsafePointer<UInt8>?, _ length: Int, at node: PlanNode) -> UInt64 {
        node.hashesWholeKeys ? wholeKeyHash(key, length) : keyHash(key, length)
    }

    /// Whether the key bytes equal those of `entry`.
    @inline(__always)
    func entry(_ entry: Int32, matches key: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        let candidate = keyEntries[Int(entry)]
        guard Int(candidate.keyLength) == length else { return false }
        return ShortBytes.equal(keyBytes + Int(candidate.keyStart), key, length)
    }

    /// The key child of `node` named by the key bytes, through the node's hash table; -1 if none.
    @inline(__always)
    func lookupFull(node: PlanNode, key: UnsafePointer<UInt8>, _ length: Int) -> Int32 {
        if node.keyEntryCount == 0 { return -1 }
        let mask = Int(node.slotMask)
        var slot = Int(truncatingIfNeeded: CompiledPlan.keyHash(key, length, at: node)) & mask
        while true {
            let entry = keySlots[Int(node.slotStart) + slot]
            if entry < 0 { return -1 }
            if self.entry(entry, matches: key, length) { return entry }
            slot = (slot + 1) & mask
        }
    }
}

/// How one column converts values beyond its type.
struct ColumnConversion: Sendable {
    var truncatesFractions = false
    var requiresFoundationURL = false
    /// Values only from their type's own JSON kind (``FieldSpec/takesOnlyItsKind``).
    var takesOnlyItsKind = false
    /// `null` kept as its text in a json column (``FieldSpec/keepsNullText``).
    var keepsNullText = false
    var dateParser: DateParser?
    var enumTable: EnumTable?
    var decimalFormat: DecimalFormat?
    var defaultValue: FieldValue?
    var transform: ValueTransform?
    /// Null spellings and cleanups, for a field that has any.
    var cleaning: CompiledCleanups?

    /// Whether values convert by their type alone.
    var isPlain: Bool {
        !truncatesFractions && !requiresFoundationURL && !takesOnlyItsKind && !keepsNullText && dateParser == nil && enumTable == nil && decimalFormat == nil && defaultValue == nil && transform == nil && cleaning == nil
    }
}

/// The columns' conversions, stored once for each column that has one of its own: the columns that convert by
/// their type alone share entry 0, so a mapping of 100,000 plain text fields holds one.
struct ColumnConversionTable {
    private(set) var entries = [ColumnConversion()]
    /// Per column: its entry.
    private(set) var slots: [Int32] = []

    mutating func append(_ conversion: ColumnConversion) {
        if conversion.isPlain {
            slots.append(0)
        } else {
            slots.append(Int32(entries.count))
            entries.append(conversion)
        }
    }

    subscript(column: Int) -> ColumnConversion { entries[Int(slots[column])] }
}

/// One trie node: a place in the record that some field reads, or that lies on the way to one.
struct PlanNode {
    var keyEntryStart: Int32 = 0
    var keyEntryCount: Int32 = 0
    var slotStart: Int32 = 0
    var slotMask: Int32 = 0
    var indexEntryStart: Int32 = 0
    var indexEntryCount: Int32 = 0
    var targetStart: Int32 = 0
    var targetCount: Int32 = 0
    /// Whether a `json` or transformed column reads this node: its value's text must be captured, even while
    /// skipping it.
    var capturesJSON = false
    /// Whether a column other than json reads this node without a transform (it then takes scalars only).
    var hasScalarTargets = false
    /// Whether a column with a transform, null spellings or cleanups, or a list column, reads this node:
    /// scalars here go through the slower path that knows them.
    var hasSpecialTargets = false
    /// Whether a scalar here needs more than the plain conversion: fields read inside the node (a scalar is then
    /// a mismatch for them), or a transform. One test on the hot path instead of two.
    var scalarNeedsCare = false
    /// The element machine (an index into ``CompiledPlan/elementColumns``) that maps an array here element by
    /// element, or -1: set where a typed array of nested models or values is the node's only reader.
    var elementMachine: Int32 = -1
    /// Whether the node's key table is hashed on whole keys (a node of many key children) rather than sampled.
    var hashesWholeKeys = false

    var expectsObject: Bool { keyEntryCount > 0 }
    var expectsArray: Bool { indexEntryCount > 0 }
    var hasChildren: Bool { keyEntryCount > 0 || indexEntryCount > 0 }
}

struct KeyEntry {
    var keyStart: Int32
    var keyLength: Int32
    var node: Int32
}

struct IndexEntry {
    var index: Int
    var node: Int32
}

extension UnsafeMutablePointer {
    /// A new allocation holding a copy of `elements` (at least one element's room, so it is never empty).
    static func allocateCopy(of elements: [Pointee]) -> UnsafeMutablePointer<Pointee> {
        let pointer = UnsafeMutablePointer<Pointee>.allocate(capacity: Swift.max(elements.count, 1))
        elements.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { pointer.initialize(from: base, count: source.count) }
        }
        return pointer
    }
}

extension CompiledPlan {
    /// Refuses fields whose key paths reach deeper than the reader may nest (`maximumDepth` containers below the
    /// record): such a field could never be read, and every record would be rejected or left without it.
    func checkDepth(within maximumDepth: Int) throws(SluiceError) {
        let problems = fields.compactMap { field -> MappingProblem? in
            guard let path = field.path, let segments = try? FieldPath(parsing: path).segments.count, segments > maximumDepth else { return nil }
            return MappingProblem(field: field.name, message: "reads \(segments) levels deep, past the reader's depth limit of \(maximumDepth) (maximumDepth); it could never match")
        }
        if !problems.isEmpty { throw .invalidMapping(problems) }
    }
}
