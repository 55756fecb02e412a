import CWalk

/// A compiled plan's trie as the flat tables the matched walks read in C++ (``sluice_plan_tables``): key paths through
/// objects, named array elements and `*`; fields read as scalars or lists, from one path or with fallbacks, cleaned
/// or transformed, or as json text (also from a node that other fields read beneath, and at `$`, the whole record);
/// scalar fields at `$`; ignored paths, also beneath keys the plan reads; `$key`; records passed over at the start;
/// rows read by a header's names; typed arrays of models, whose element plans' tries follow the record's in the same
/// tables. The tape's values go through the machine's writes, which apply fallbacks, cleanups and transforms alike
/// for both walks.
final class MatchTables: @unchecked Sendable {
    /// The tables as C reads them; they point into memory these tables own.
    let tables: UnsafeMutablePointer<sluice_plan_tables>
    private let storage: [UnsafeMutableRawPointer]

    /// - Parameters:
    ///   - plan: The record's plan.
    ///   - mapsElements: Whether the record's typed arrays of models are mapped element by element (its batches hold
    ///     element rows); if not, they are json text, as any json field. Element plans' own arrays always are.
    init(plan: CompiledPlan, mapsElements: Bool) {
        // The record's plan, then each element plan, one after the other: a plan's node `n` is node `base + n`.
        var plans: [(plan: CompiledPlan, base: Int32, mapsElements: Bool)] = [(plan, 0, mapsElements)]
        var nodeTotal = Int32(plan.nodeCount)
        var elementRoot: [Int32] = []
        var next = 0
        while next < plans.count {
            let (plan, _, mapsElements) = plans[next]
            next += 1
            // Only element plans a node maps by are walked: an element column whose array is also read otherwise (as
            // json text, by a list, under validators) has no element machine, and its plan no place in the tables.
            var roots = [Int32](repeating: -1, count: plan.elementColumns.count)
            for (machine, column) in plan.elementColumns.enumerated() where mapsElements && plan.mapsElements(by: machine) {
                guard let elementPlan = plan.fields[column].elementPlan as? CompiledPlan else { continue }
                roots[machine] = nodeTotal
                plans.append((elementPlan, nodeTotal, true))
                nodeTotal += Int32(elementPlan.nodeCount)
            }
            elementRoot += UnsafeBufferPointer(start: plan.nodes, count: plan.nodeCount).map { node in
                mapsElements && node.elementMachine >= 0 ? roots[Int(node.elementMachine)] : -1
            }
        }
        var firstKey: [Int32] = [], keyCount: [Int32] = [], flags: [UInt8] = [], firstGuess: [Int32] = []
        var keyStart: [Int32] = [], keyLength: [Int32] = [], keyChild: [Int32] = [], keyBytes: [UInt8] = []
        var firstIndex: [Int32] = [], indexCount: [Int32] = [], indexValue: [Int64] = [], indexChild: [Int32] = []
        var guessedNodes: Int32 = 0
        for (number, (plan, base, _)) in plans.enumerated() {
            for (index, node) in UnsafeBufferPointer(start: plan.nodes, count: plan.nodeCount).enumerated() {
                firstKey.append(Int32(keyStart.count))
                keyCount.append(node.keyEntryCount)
                for entry in UnsafeBufferPointer(start: plan.keyEntries + Int(node.keyEntryStart), count: Int(node.keyEntryCount)) {
                    keyStart.append(Int32(keyBytes.count))
                    keyLength.append(entry.keyLength)
                    keyChild.append(base + entry.node)
                    keyBytes += UnsafeBufferPointer(start: plan.keyBytes + Int(entry.keyStart), count: Int(entry.keyLength))
                }
                firstIndex.append(Int32(indexValue.count))
                indexCount.append(node.indexEntryCount)
                for entry in UnsafeBufferPointer(start: plan.indexEntries + Int(node.indexEntryStart), count: Int(node.indexEntryCount)) {
                    indexValue.append(Int64(entry.index))
                    indexChild.append(base + entry.node)
                }
                // A node whose keys are matched remembers the key last seen at each of its first 64 positions.
                firstGuess.append(node.keyEntryCount > 0 ? guessedNodes * 64 : -1)
                if node.keyEntryCount > 0 { guessedNodes += 1 }
                let global = Int(base) + index
                flags.append(Self.flags(of: node, at: index, in: plan, isElementPlan: number > 0, mapsElements: elementRoot[global] >= 0))
            }
        }
        var storage: [UnsafeMutableRawPointer] = []
        func copy<Element>(_ elements: [Element]) -> UnsafeMutablePointer<Element> {
            let pointer = UnsafeMutablePointer<Element>.allocateCopy(of: elements)
            storage.append(UnsafeMutableRawPointer(pointer))
            return pointer
        }
        tables = .allocate(capacity: 1)
        tables.initialize(to: sluice_plan_tables(
            guessed_nodes: guessedNodes, first_guess: copy(firstGuess), first_key: copy(firstKey), key_count: copy(keyCount),
            flags: copy(flags), key_start: copy(keyStart), key_length: copy(keyLength), key_child: copy(keyChild),
            key_bytes: copy(keyBytes), first_index: copy(firstIndex), index_count: copy(indexCount),
            index_value: copy(indexValue), index_child: copy(indexChild), element_root: copy(elementRoot)))
        self.storage = storage
    }

    deinit {
        for pointer in storage { pointer.deallocate() }
        tables.deallocate()
    }

    /// The node's SLUICE_NODE_* flags. Keys no field reads inside a typed array's elements are not counted (an
    /// element plan's machine keeps no report of them), unless they fail their element.
    private static func flags(of node: PlanNode, at index: Int, in plan: CompiledPlan, isElementPlan: Bool, mapsElements: Bool) -> UInt8 {
        var flags = 0
        if node.targetCount > 0 { flags |= SLUICE_NODE_SCALAR }
        if plan.ignoresUnreadKeys[index] || (isElementPlan && !plan.rejectsUnmappedKeys) { flags |= SLUICE_NODE_IGNORES_UNREAD_KEYS }
        if plan.feedsNoField[index] && !node.hasChildren { flags |= SLUICE_NODE_PASSED_OVER }
        if node.capturesJSON { flags |= SLUICE_NODE_CAPTURES }
        if plan.startsLists[index] { flags |= SLUICE_NODE_STARTS_LISTS }
        if plan.rejectsUnmappedKeys { flags |= SLUICE_NODE_REJECTS_UNREAD_KEYS }
        if mapsElements { flags |= SLUICE_NODE_MAPS_ELEMENTS }
        return UInt8(flags)
    }
}

extension CompiledPlan {
    /// Whether some node's arrays are mapped by element machine `machine` (an index into ``elementColumns``).
    func mapsElements(by machine: Int) -> Bool {
        UnsafeBufferPointer(start: nodes, count: nodeCount).contains { $0.elementMachine == Int32(machine) }
    }
}
