import CSimdjson

/// A compiled plan's trie as the flat tables the matched walk reads in C++ (``sluice_plan_tables``), for plans whose
/// records that walk can read alone: key paths through objects, named array elements and `*`; fields read as
/// scalars or lists, from one path or with fallbacks, cleaned or transformed, or as json text (also from a node
/// that other fields read beneath); `$key`; records passed over at the start; rows read by a header's names. The
/// tape's values go through the event walk's own writes, which apply fallbacks, cleanups and transforms alike for
/// both walks.
///
/// Typed arrays of models, a field at `$`, a record with no key the plan reads, a node with more than
/// ``maximumKeyChildren`` keys or named elements, and ignored paths below read keys keep the event walk; a plan that
/// has any of them gets no tables.
final class MatchTables: @unchecked Sendable {
    /// Nodes with more key children than this are matched by hash, which the event walk does.
    static let maximumKeyChildren = 32

    private let firstKey: UnsafeMutablePointer<Int32>
    private let keyCount: UnsafeMutablePointer<Int32>
    private let flags: UnsafeMutablePointer<UInt8>
    private let keyStart: UnsafeMutablePointer<Int32>
    private let keyLength: UnsafeMutablePointer<Int32>
    private let keyChild: UnsafeMutablePointer<Int32>
    private let firstGuess: UnsafeMutablePointer<Int32>
    private let firstIndex: UnsafeMutablePointer<Int32>
    private let indexCount: UnsafeMutablePointer<Int32>
    private let indexValue: UnsafeMutablePointer<Int64>
    private let indexChild: UnsafeMutablePointer<Int32>
    /// The tables as C reads them; they point into the plan's key bytes, which outlive these tables.
    let tables: UnsafeMutablePointer<sluice_plan_tables>

    init?(plan: CompiledPlan) {
        let nodes = UnsafeBufferPointer(start: plan.nodes, count: plan.nodeCount)
        guard plan.elementColumns.isEmpty, let root = nodes.first, root.keyEntryCount > 0, root.targetCount == 0
        else { return nil }
        for (index, node) in nodes.enumerated() {
            // A node only an ignored path leads to is passed over when nothing lies beneath it. A container where
            // a json field or a transform reads is captured (and walked on the way where fields read beneath it),
            // and the scalar fields there fail on it, as in the event walk.
            guard node.elementMachine < 0, !plan.feedsNoField[index] || !node.hasChildren,
                  node.keyEntryCount <= Self.maximumKeyChildren, node.indexEntryCount <= Self.maximumKeyChildren,
                  node.keyEntryCount > 0 || node.indexEntryCount > 0 || node.targetCount > 0 || plan.feedsNoField[index]
            else { return nil }
        }
        var indexEntries: [IndexEntry] = []
        firstIndex = .allocate(capacity: nodes.count)
        indexCount = .allocate(capacity: nodes.count)
        for (index, node) in nodes.enumerated() {
            firstIndex[index] = Int32(indexEntries.count)
            indexCount[index] = node.indexEntryCount
            indexEntries += UnsafeBufferPointer(start: plan.indexEntries + Int(node.indexEntryStart), count: Int(node.indexEntryCount))
        }
        indexValue = .allocateCopy(of: indexEntries.map { Int64($0.index) })
        indexChild = .allocateCopy(of: indexEntries.map(\.node))
        // Key guesses only where keys are matched: 64 positions a node with key children.
        var guessedNodes: Int32 = 0
        firstGuess = .allocateCopy(of: nodes.map { node in
            guard node.keyEntryCount > 0 else { return -1 }
            defer { guessedNodes += 1 }
            return guessedNodes * 64
        })
        firstKey = .allocate(capacity: nodes.count)
        keyCount = .allocate(capacity: nodes.count)
        flags = .allocate(capacity: nodes.count)
        for (index, node) in nodes.enumerated() {
            firstKey[index] = node.keyEntryStart
            keyCount[index] = node.keyEntryCount
            flags[index] = (node.targetCount > 0 ? UInt8(SLUICE_NODE_SCALAR) : 0) | (plan.ignoresUnreadKeys[index] ? UInt8(SLUICE_NODE_IGNORES_UNREAD_KEYS) : 0)
                | (plan.feedsNoField[index] ? UInt8(SLUICE_NODE_PASSED_OVER) : 0) | (node.capturesJSON ? UInt8(SLUICE_NODE_CAPTURES) : 0)
                | (plan.startsLists[index] ? UInt8(SLUICE_NODE_STARTS_LISTS) : 0)
        }
        let entries = UnsafeBufferPointer(start: plan.keyEntries, count: max(plan.keyEntryCount, 1))
        keyStart = .allocate(capacity: entries.count)
        keyLength = .allocate(capacity: entries.count)
        keyChild = .allocate(capacity: entries.count)
        for (index, entry) in entries.enumerated().prefix(plan.keyEntryCount) {
            keyStart[index] = entry.keyStart
            keyLength[index] = entry.keyLength
            keyChild[index] = entry.node
        }
        tables = .allocate(capacity: 1)
        tables.initialize(to: sluice_plan_tables(guessed_nodes: guessedNodes, first_guess: firstGuess, first_key: firstKey, key_count: keyCount, flags: flags, key_start: keyStart,
                                                 key_length: keyLength, key_child: keyChild, key_bytes: plan.keyBytes,
                                                 first_index: firstIndex, index_count: indexCount, index_value: indexValue, index_child: indexChild,
                                                 counts_unmapped: plan.rejectsUnmappedKeys ? 0 : 1))
    }

    deinit {
        firstGuess.deallocate()
        firstKey.deallocate()
        keyCount.deallocate()
        flags.deallocate()
        keyStart.deallocate()
        keyLength.deallocate()
        keyChild.deallocate()
        firstIndex.deallocate()
        indexCount.deallocate()
        indexValue.deallocate()
        indexChild.deallocate()
        tables.deallocate()
    }
}
