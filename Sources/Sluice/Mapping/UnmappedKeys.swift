import CWalk

/// Keys matched against the plan, and those no field reads: counted by node and key, or a failure in strict mode.
extension RecordStateMachine {
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

    /// The unmapped keys seen since the last call (or since the machine was made), by trie node; the machine then
    /// counts from 0. A reader that hands records out a chunk at a time takes each chunk's keys with its records,
    /// so that keys of records never handed out are never counted.
    mutating func takeUnmappedKeyCounts() -> [UnmappedKey: Int] {  // lint: reporting, once per chunk
        let counts = countedUnmappedKeys(handingOn: true)
        unmappedKeyCounts = [:]
        return counts
    }

    /// The counts so far: those handed on from the key-order cache, and the sightings it still holds.
    func countedUnmappedKeys(handingOn: Bool) -> [UnmappedKey: Int] {  // lint: reporting, not the per-value path
        var counts = unmappedKeyCounts
        for sighting in keyOrder.allUnmappedSightings(nodeCount: plan.nodeCount, clearing: handingOn) {
            counts[UnmappedKey(node: sighting.node, key: sighting.key), default: 0] += sighting.count
        }
        return counts
    }
}

/// A key no field reads, in the object at a trie node.
struct UnmappedKey: Hashable {
    var node: Int32
    var key: [UInt8]

    /// Adds the keys a matched walk counted itself to `counts`.
    static func count(_ sightings: UnsafeBufferPointer<sluice_unmapped_sighting>, into counts: inout [UnmappedKey: Int]) {  // lint: reporting, once per chunk
        for sighting in sightings {
            let key = withUnsafeBytes(of: sighting.words) { words in
                // The words hold the key's bytes in memory order, whatever the byte order of the machine.
                Array(words.prefix(Int(sighting.length)))
            }
            counts[UnmappedKey(node: sighting.node, key: key), default: 0] += Int(sighting.count)
        }
    }

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
