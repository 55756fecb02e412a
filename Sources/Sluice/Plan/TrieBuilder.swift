/// The trie while it is being built: nodes in one table, numbered in the order they are made, so that a parent
/// always comes before its children and the numbers can be the plan's node numbers as they are.
///
/// No node is an object and no key is an array of its own: key bytes lie back to back in one buffer (the plan
/// keeps it), a node's key children are found through one hash table for the whole trie, and a node's targets
/// are a chain through one list. A mapping of 100,000 fields builds its trie in a few MB.
struct TrieBuilder {
    /// What an ignored path covers at its node: keys no field reads directly in it (`user.*`), or anywhere
    /// beneath it (`user`, `user.**`).
    enum IgnoredScope: Int {
        case none, keysDirectlyIn, everythingBeneath
    }

    /// How a node is reached from its parent.
    enum Step: Equatable {
        case root
        /// A key, at `keyBytes[start ..< start + length]`.
        case key(start: Int32, length: Int32)
        case index(Int)
        /// `*`: every element of the array at the parent.
        case everyElement
        /// At the root, `$key`: fed with each record's member key, not a key inside the record, so a record may
        /// be a scalar (`$` beside `$key` in a map of id to name).
        case recordKey
    }

    struct Node {
        var parent: Int32
        var step: Step
        /// The length of the node's key path as rejections print it, which the budget bounds.
        var displayLength: Int32
        /// The node's key children and index children, each a chain through the children's `nextSibling` in the
        /// order they were made (no list a node: a hostile mapping's trie is bounded by its number of nodes).
        var firstKeyChild: Int32 = -1
        var lastKeyChild: Int32 = -1
        var firstIndexChild: Int32 = -1
        var lastIndexChild: Int32 = -1
        var nextSibling: Int32 = -1
        var everyElementChild: Int32 = -1
        var recordKeyChild: Int32 = -1
        var ignoredScope = IgnoredScope.none
        /// The first and last of the node's entries in `targets`, -1 for none.
        var firstTarget: Int32 = -1
        var lastTarget: Int32 = -1

        var hasChildren: Bool { firstKeyChild >= 0 || firstIndexChild >= 0 || everyElementChild >= 0 }
    }

    /// A column read at a node, and which of the column's paths ends there (0 for its path, 1 for its first
    /// fallback, …); `next` chains the node's targets in the order they were added.
    struct Target {
        var column: Int32
        var rank: Int32
        var next: Int32 = -1
    }

    private(set) var nodes: [Node] = [Node(parent: -1, step: .root, displayLength: 1)]
    private(set) var keyBytes: [UInt8] = []
    private(set) var targets: [Target] = []
    /// Open addressing over (parent, key) for every key child in the trie; -1 is an empty slot.
    private var keyChildSlots = [Int32](repeating: -1, count: 16)
    private var keyChildCount = 0
    private var indexChildPositions: [IndexChild: Int32] = [:]
    private var steps = 0
    private var pathBytes = 0

    /// A builder with room for a trie of `expectedFields` fields one level deep, so that a wide mapping's
    /// tables are not grown by doubling past what it needs.
    init(expectedFields: Int = 0) {
        nodes.reserveCapacity(expectedFields + 1)
        targets.reserveCapacity(expectedFields)
    }

    private struct IndexChild: Hashable {
        var parent: Int32
        var index: Int
    }

    /// Far more than any real mapping takes (a node and a few steps per field), and a bound on what a hostile one
    /// can cost: nodes (about 64 bytes each while building, so that refusing a trie stays within a small memory
    /// budget), steps (nodes made and visited while building), and the bytes of the nodes' key paths (made for
    /// messages), which grow with depth. Each numeric segment of a key path goes down two branches, so a path of
    /// many of them would otherwise make exponentially many nodes, and each further field on such a path would
    /// visit them all again.
    static let maximumNodes = 1 << 18
    static let maximumSteps = 1 << 20
    static let maximumPathBytes = 64 << 20

    var isExhausted: Bool { nodes.count > Self.maximumNodes || steps > Self.maximumSteps || pathBytes > Self.maximumPathBytes }

    // MARK: - Building

    /// Adds `column` at the end of `segments` below `node`, or an ignored path's scope. A numeric segment goes
    /// down both branches: the input decides at run time whether the value there is an array or an object.
    mutating func insert(_ segments: ArraySlice<FieldPath.Segment>, at node: Int32 = 0, column: Int?, rank: Int32 = 0, ignoring scope: IgnoredScope = .none) {
        steps += 1
        guard !isExhausted else { return }
        guard let segment = segments.first else {
            if let column { addTarget(column: Int32(column), rank: rank, to: node) }
            widenIgnoredScope(of: node, to: scope)
            return
        }
        let rest = segments.dropFirst()
        if segment.isEveryElement {
            insert(rest, at: everyElementChild(of: node), column: column, rank: rank, ignoring: scope)
            return
        }
        if node == 0 && segment.key == RecordKeyField.segment.key {
            insert(rest, at: recordKeyChild(of: node), column: column, rank: rank, ignoring: scope)
            return
        }
        insert(rest, at: keyChild(of: node, key: segment.key), column: column, rank: rank, ignoring: scope)
        if let index = segment.index { insert(rest, at: indexChild(of: node, index: index), column: column, rank: rank, ignoring: scope) }
    }

    private mutating func addTarget(column: Int32, rank: Int32, to node: Int32) {
        let position = Int32(targets.count)
        targets.append(Target(column: column, rank: rank))
        if nodes[Int(node)].lastTarget >= 0 {
            targets[Int(nodes[Int(node)].lastTarget)].next = position
        } else {
            nodes[Int(node)].firstTarget = position
        }
        nodes[Int(node)].lastTarget = position
    }

    /// The columns read at `node`, in the order they were added.
    func targetColumns(of node: Int32) -> [Int32] {
        var columns: [Int32] = []
        var position = nodes[Int(node)].firstTarget
        while position >= 0 {
            columns.append(targets[Int(position)].column)
            position = targets[Int(position)].next
        }
        return columns
    }

    /// Two ignored paths on one node cover what either covers.
    private mutating func widenIgnoredScope(of node: Int32, to scope: IgnoredScope) {
        if scope.rawValue > nodes[Int(node)].ignoredScope.rawValue { nodes[Int(node)].ignoredScope = scope }
    }

    private mutating func makeNode(parent: Int32, step: Step, displayLength: Int) -> Int32 {
        steps += 1
        pathBytes += displayLength
        let id = Int32(nodes.count)
        nodes.append(Node(parent: parent, step: step, displayLength: Int32(clamping: displayLength)))
        return id
    }

    private mutating func appendChild(_ child: Int32, to node: Int32, isIndex: Bool) {
        let last = isIndex ? nodes[Int(node)].lastIndexChild : nodes[Int(node)].lastKeyChild
        if last >= 0 {
            nodes[Int(last)].nextSibling = child
        } else if isIndex {
            nodes[Int(node)].firstIndexChild = child
        } else {
            nodes[Int(node)].firstKeyChild = child
        }
        if isIndex { nodes[Int(node)].lastIndexChild = child } else { nodes[Int(node)].lastKeyChild = child }
    }

    /// The key children of `node`, in the order they were made.
    func keyChildren(of node: Int32) -> [Int32] { chain(from: nodes[Int(node)].firstKeyChild) }

    /// The index children of `node`, in the order they were made.
    func indexChildren(of node: Int32) -> [Int32] { chain(from: nodes[Int(node)].firstIndexChild) }

    private func chain(from first: Int32) -> [Int32] {
        var children: [Int32] = []
        var child = first
        while child >= 0 {
            children.append(child)
            child = nodes[Int(child)].nextSibling
        }
        return children
    }

    private mutating func everyElementChild(of node: Int32) -> Int32 {
        if nodes[Int(node)].everyElementChild >= 0 { return nodes[Int(node)].everyElementChild }
        let child = makeNode(parent: node, step: .everyElement, displayLength: Int(nodes[Int(node)].displayLength) + 2)
        nodes[Int(node)].everyElementChild = child
        return child
    }

    private mutating func recordKeyChild(of node: Int32) -> Int32 {
        if nodes[Int(node)].recordKeyChild >= 0 { return nodes[Int(node)].recordKeyChild }
        let child = makeNode(parent: node, step: .recordKey, displayLength: RecordKeyField.path.utf8.count)
        nodes[Int(node)].recordKeyChild = child
        return child
    }

    private mutating func indexChild(of node: Int32, index: Int) -> Int32 {
        let place = IndexChild(parent: node, index: index)
        if let child = indexChildPositions[place] { return child }
        let child = makeNode(parent: node, step: .index(index), displayLength: Int(nodes[Int(node)].displayLength) + 2 + String(index).utf8.count)
        indexChildPositions[place] = child
        appendChild(child, to: node, isIndex: true)
        return child
    }

    /// The key child of `node` named `key`, made if there is none.
    private mutating func keyChild(of node: Int32, key: [UInt8]) -> Int32 {
        key.withUnsafeBufferPointer { keyChild(of: node, key: $0, storedAt: nil) }
    }

    /// The key child of `node` named by `key`; a new child takes its bytes from `storedAt` when the key already
    /// lies in `keyBytes` there (a copied subtree), else appends them.
    private mutating func keyChild(of node: Int32, key: UnsafeBufferPointer<UInt8>, storedAt: Int32?) -> Int32 {
        let mask = keyChildSlots.count - 1
        var slot = Int(truncatingIfNeeded: Self.hash(parent: node, key)) & mask
        while keyChildSlots[slot] >= 0 {
            let candidate = keyChildSlots[slot]
            if nodes[Int(candidate)].parent == node, case .key(let start, let length) = nodes[Int(candidate)].step, Int(length) == key.count,
               keyBytes[Int(start) ..< Int(start) + Int(length)].elementsEqual(key) {
                return candidate
            }
            slot = (slot + 1) & mask
        }
        let start = storedAt ?? Int32(keyBytes.count)
        if storedAt == nil { keyBytes.append(contentsOf: key) }
        let escapedLength = FieldPath.escaped(key: String(decoding: key, as: UTF8.self)).utf8.count
        let child = makeNode(parent: node, step: .key(start: start, length: Int32(key.count)), displayLength: Int(nodes[Int(node)].displayLength) + 1 + escapedLength)
        appendChild(child, to: node, isIndex: false)
        keyChildSlots[slot] = child
        keyChildCount += 1
        if keyChildCount * 2 > keyChildSlots.count { growKeyChildSlots() }
        return child
    }

    private mutating func growKeyChildSlots() {
        var slots = [Int32](repeating: -1, count: keyChildSlots.count * 2)
        let mask = slots.count - 1
        for child in keyChildSlots where child >= 0 {
            guard case .key(let start, let length) = nodes[Int(child)].step else { continue }
            let hash = keyBytes.withUnsafeBufferPointer { bytes in
                Self.hash(parent: nodes[Int(child)].parent, UnsafeBufferPointer(rebasing: bytes[Int(start) ..< Int(start) + Int(length)]))
            }
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = child
        }
        keyChildSlots = slots
    }

    /// The plan's whole-key hash, told apart by parent: every byte counts, as thousands of keys of one length
    /// that differ in a middle byte must spread.
    private static func hash(parent: Int32, _ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        CompiledPlan.wholeKeyHash(key.baseAddress, key.count) ^ (UInt64(UInt32(bitPattern: parent)) &* 0x9E37_79B9_7F4A_7C15)
    }

    // MARK: - Completing

    /// An ignored path that covers everything beneath its node covers every node the fields make beneath it.
    mutating func spreadIgnoredScope() {
        // A parent comes before its children, so one pass in order settles every node.
        for node in nodes.indices.dropFirst() where nodes[node].step != .recordKey && nodes[Int(nodes[node].parent)].ignoredScope == .everythingBeneath {
            nodes[node].ignoredScope = .everythingBeneath
        }
    }

    /// An element that an index names (`tags.0`) is also one of every element (`tags.*`), but a value reaches one
    /// node: the `*` subtree is copied into each index child, so element 0 feeds both.
    mutating func spreadEveryElement(from node: Int32 = 0) {
        let every = nodes[Int(node)].everyElementChild
        if every >= 0 {
            for child in indexChildren(of: node) { absorb(every, into: child) }
        }
        for child in keyChildren(of: node) { spreadEveryElement(from: child) }
        for child in indexChildren(of: node) { spreadEveryElement(from: child) }
        if every >= 0 { spreadEveryElement(from: every) }
    }

    /// Adds `source`'s targets and children to `node`'s.
    private mutating func absorb(_ source: Int32, into node: Int32) {
        steps += 1
        guard !isExhausted else { return }
        widenIgnoredScope(of: node, to: nodes[Int(source)].ignoredScope)
        let present = targetColumns(of: node)
        var position = nodes[Int(source)].firstTarget
        while position >= 0 {
            let target = targets[Int(position)]
            if !present.contains(target.column) { addTarget(column: target.column, rank: 0, to: node) }
            position = target.next
        }
        for child in keyChildren(of: source) {
            guard case .key(let start, let length) = nodes[Int(child)].step else { continue }
            // The bytes are copied out first: making a child may grow `keyBytes` while they are read.
            let key = Array(keyBytes[Int(start) ..< Int(start) + Int(length)])
            let target = key.withUnsafeBufferPointer { keyChild(of: node, key: $0, storedAt: start) }
            absorb(child, into: target)
        }
        for child in indexChildren(of: source) {
            guard case .index(let index) = nodes[Int(child)].step else { continue }
            absorb(child, into: indexChild(of: node, index: index))
        }
        let every = nodes[Int(source)].everyElementChild
        if every >= 0 { absorb(every, into: everyElementChild(of: node)) }
    }

    /// The columns read beneath `node`, not at it.
    func descendantColumns(of node: Int32) -> [Int32] {
        var columns: [Int32] = []
        var pending = children(of: node)
        while let next = pending.popLast() {
            columns += targetColumns(of: next)
            pending += children(of: next)
        }
        return columns
    }

    /// The children of `node` a value can reach inside the record (the `$key` node is beside the record).
    func children(of node: Int32) -> [Int32] {
        let every = nodes[Int(node)].everyElementChild
        return keyChildren(of: node) + indexChildren(of: node) + (every >= 0 ? [every] : [])
    }

    /// The key path of each node as rejections print it (`$.user.name`, `$.media[0]`, `$.media.*`).
    func displayPaths() -> [String] {
        var paths: [String] = []
        paths.reserveCapacity(nodes.count)
        for node in nodes {
            paths.append(node.step == .root || node.step == .recordKey ? stepText(node) : paths[Int(node.parent)] + stepText(node))
        }
        return paths
    }

    /// The key path of `node` as rejections print it.
    func displayPath(of node: Int32) -> String {
        var pieces: [String] = []
        var current = node
        while current >= 0 {
            pieces.append(stepText(nodes[Int(current)]))
            if nodes[Int(current)].step == .recordKey { break }
            current = nodes[Int(current)].parent
        }
        return pieces.reversed().joined()
    }

    private func stepText(_ node: Node) -> String {
        switch node.step {
        case .root: "$"
        case .recordKey: RecordKeyField.path
        case .everyElement: ".*"
        case .index(let index): "[\(index)]"
        case .key(let start, let length): "." + FieldPath.escaped(key: String(decoding: keyBytes[Int(start) ..< Int(start) + Int(length)], as: UTF8.self))
        }
    }


    // MARK: - Flattening

    /// The plan of the finished trie: its nodes keep their numbers, the root is node 0. The builder is left with its
    /// key bytes only.
    mutating func plan(fields: [FieldSpec], conversions: ColumnConversionTable, validators: [CompiledValidator], rejectsUnmappedKeys: Bool) -> CompiledPlan {
        var planNodes: [PlanNode] = []
        planNodes.reserveCapacity(nodes.count)
        var keyEntries: [KeyEntry] = []
        keyEntries.reserveCapacity(keyChildCount)
        var keySlots: [Int32] = []
        var indexEntries: [IndexEntry] = []
        var planTargets: [Int32] = []
        planTargets.reserveCapacity(targets.count)
        var targetRanks: [Int32] = []
        targetRanks.reserveCapacity(targets.count)
        for (id, builder) in nodes.enumerated() {
            var node = PlanNode()
            let keyChildren = keyChildren(of: Int32(id))
            let indexChildren = indexChildren(of: Int32(id))
            node.keyEntryStart = Int32(keyEntries.count)
            node.keyEntryCount = Int32(keyChildren.count)
            for child in keyChildren {
                guard case .key(let start, let length) = nodes[Int(child)].step else { continue }
                keyEntries.append(KeyEntry(keyStart: start, keyLength: length, node: child))
            }
            if !keyChildren.isEmpty {
                var size = 4
                while size < keyChildren.count * 2 { size *= 2 }
                node.slotStart = Int32(keySlots.count)
                node.slotMask = Int32(size - 1)
                node.hashesWholeKeys = keyChildren.count > CompiledPlan.sampledHashChildLimit
                keySlots.append(contentsOf: repeatElement(-1, count: size))
                keyBytes.withUnsafeBufferPointer { bytes in
                    for offset in 0..<keyChildren.count {
                        let entry = keyEntries[Int(node.keyEntryStart) + offset]
                        let hash = CompiledPlan.keyHash(bytes.baseAddress.map { $0 + Int(entry.keyStart) }, Int(entry.keyLength), at: node)
                        var slot = Int(truncatingIfNeeded: hash) & (size - 1)
                        while keySlots[Int(node.slotStart) + slot] >= 0 { slot = (slot + 1) & (size - 1) }
                        keySlots[Int(node.slotStart) + slot] = node.keyEntryStart + Int32(offset)
                    }
                }
            }
            node.indexEntryStart = Int32(indexEntries.count)
            node.indexEntryCount = Int32(indexChildren.count)
            for child in indexChildren {
                guard case .index(let index) = nodes[Int(child)].step else { continue }
                indexEntries.append(IndexEntry(index: index, node: child))
            }
            indexEntries[Int(node.indexEntryStart)...].sort { $0.index < $1.index }
            if builder.everyElementChild >= 0 {
                indexEntries.append(IndexEntry(index: -1, node: builder.everyElementChild))
                node.indexEntryCount += 1
            }
            node.targetStart = Int32(planTargets.count)
            var position = builder.firstTarget
            while position >= 0 {
                let target = targets[Int(position)]
                let field = fields[Int(target.column)]
                planTargets.append(target.column)
                targetRanks.append(target.rank)
                if field.takesAnyValue { node.capturesJSON = true } else { node.hasScalarTargets = true }
                if field.transform != nil || field.isList || conversions[Int(target.column)].cleaning != nil || !field.fallbackPaths.isEmpty {
                    node.hasSpecialTargets = true
                }
                position = target.next
            }
            node.targetCount = Int32(planTargets.count) - node.targetStart
            // An array that other fields also read inside, or that a second field reads whole, is captured as text
            // and its elements mapped from it when the model is made; so is one whose field checks its text
            // (validators), reads it as a list, or cleans it.
            if node.targetCount == 1 && !builder.hasChildren && !node.hasSpecialTargets, let column = planTargets.last,
               fields[Int(column)].elementPlan != nil && fields[Int(column)].validators.isEmpty && !fields[Int(column)].isList {
                node.elementMachine = Int32(fields[..<Int(column)].count { $0.elementPlan != nil })
            }
            node.scalarNeedsCare = node.hasSpecialTargets || builder.hasChildren
            planNodes.append(node)
        }
        // Everything else read from the builder's nodes is taken out before they are let go, so that the nodes and
        // the plan's copies of its tables are never held at once.
        let displayPaths = displayPaths()
        // Each list starts (as `[]`) where its array does, so that an empty array gives an empty list: the node of
        // the innermost array whose `*` the list's node lies beneath.
        var listArray = [Int32](repeating: -1, count: nodes.count)
        for (id, node) in nodes.enumerated().dropFirst() {
            listArray[id] = node.step == .everyElement ? node.parent : listArray[Int(node.parent)]
        }
        var arrayNodes = [Int32](repeating: -1, count: fields.count)
        for (id, node) in nodes.enumerated() where listArray[id] >= 0 {
            var position = node.firstTarget
            while position >= 0 {
                arrayNodes[Int(targets[Int(position)].column)] = listArray[id]
                position = targets[Int(position)].next
            }
        }
        let startsLists = nodes.map { $0.everyElementChild >= 0 }
        // A json field reads everything inside its value: no key there is unread, also where other fields read
        // beneath it (children come after their parent, so one pass settles each node).
        var insideCapture = planNodes.map(\.capturesJSON)
        for (id, node) in nodes.enumerated().dropFirst() where node.step != .recordKey && insideCapture[Int(node.parent)] { insideCapture[id] = true }
        let ignoresUnreadKeys = nodes.indices.map { nodes[$0].ignoredScope != .none || insideCapture[$0] }
        // A node feeds a field when one reads it or anything beneath it; children come after their parent, so one
        // pass from the end settles each node after its children. The `$key` node is beside the record.
        var feeds = nodes.map { $0.firstTarget >= 0 }
        for (id, node) in nodes.enumerated().dropFirst().reversed() where feeds[id] && node.step != .recordKey {
            feeds[Int(node.parent)] = true
        }
        let keyNode = nodes[0].recordKeyChild
        nodes = []
        targets = []
        keyChildSlots = []
        indexChildPositions = [:]

        let plan = CompiledPlan(
            fields: fields, conversions: conversions, validators: validators, rejectsUnmappedKeys: rejectsUnmappedKeys, nodes: planNodes,
            keyEntries: keyEntries, keySlots: keySlots, keyBytes: keyBytes, indexEntries: indexEntries, targets: planTargets,
            displayPaths: displayPaths
        )
        plan.listArrayNodes = plan.listColumns.map { arrayNodes[$0] }
        plan.targetRanks = targetRanks
        plan.startsLists.deallocate()
        plan.startsLists = .allocateCopy(of: startsLists)
        plan.ignoresUnreadKeys.deallocate()
        plan.ignoresUnreadKeys = .allocateCopy(of: ignoresUnreadKeys)
        plan.feedsNoField.deallocate()
        plan.feedsNoField = .allocateCopy(of: feeds.map { !$0 })
        if keyNode >= 0 { plan.keyNode = keyNode }
        return plan
    }
}
