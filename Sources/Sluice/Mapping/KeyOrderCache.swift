/// The keys each mapped object held last time, in order, with what each one matched.
///
/// Records of one dump nearly always repeat their key order, so the key at position *i* of an object is usually
/// the key that was at position *i* last time. Checking that costs one length comparison and a few word
/// comparisons, for mapped and unmapped keys alike; only a key that differs goes to the plan's hash table, and
/// then replaces the cached one. Keys longer than ``maximumKeyLength`` and positions past ``positionsPerNode``
/// always use the hash table.
struct KeyOrderCache {
    static let positionsPerNode = 64
    static let maximumKeyLength = 32
    private static let wordsPerKey = maximumKeyLength / 8

    /// Per trie node: its first slot, or -1 for nodes without key children.
    private let firstSlot: UnsafeMutablePointer<Int32>
    /// Per slot: the cached key's length (-1: empty), the child node it matched (-1: unmapped), its bytes.
    private let lengths: UnsafeMutablePointer<Int32>
    private let results: UnsafeMutablePointer<Int32>
    private let words: UnsafeMutablePointer<UInt64>
    /// Per slot holding an unmapped key: how often it was seen since it was cached.
    private let unmappedCounts: UnsafeMutablePointer<Int>
    private let slotCount: Int

    init(plan: CompiledPlan) {
        firstSlot = .allocate(capacity: max(plan.nodeCount, 1))
        var slots = 0
        for node in 0..<plan.nodeCount {
            if plan.nodes[node].keyEntryCount > 0 {
                firstSlot[node] = Int32(slots)
                slots += Self.positionsPerNode
            } else {
                firstSlot[node] = -1
            }
        }
        slotCount = max(slots, 1)
        lengths = .allocate(capacity: slotCount)
        lengths.initialize(repeating: -1, count: slotCount)
        results = .allocate(capacity: slotCount)
        results.initialize(repeating: -1, count: slotCount)
        words = .allocate(capacity: slotCount * Self.wordsPerKey)
        words.initialize(repeating: 0, count: slotCount * Self.wordsPerKey)
        unmappedCounts = .allocate(capacity: slotCount)
        unmappedCounts.initialize(repeating: 0, count: slotCount)
    }

    func deallocate() {
        firstSlot.deallocate()
        lengths.deallocate()
        results.deallocate()
        words.deallocate()
        unmappedCounts.deallocate()
    }

    /// Counts one more sighting of the unmapped key cached in `slot`.
    @inline(__always)
    func countUnmapped(slot: Int) {
        unmappedCounts[slot] &+= 1
    }

    /// The unmapped key in `slot` and its count, if it has sightings not yet handed on.
    func unmappedSightings(slot: Int) -> (key: [UInt8], count: Int)? {
        guard unmappedCounts[slot] > 0, lengths[slot] >= 0 else { return nil }
        let bytes = UnsafeRawPointer(words + slot * Self.wordsPerKey).assumingMemoryBound(to: UInt8.self)
        return (Array(UnsafeBufferPointer(start: bytes, count: Int(lengths[slot]))), unmappedCounts[slot])
    }

    /// Every slot's unmapped sightings, with the node each belongs to; with `clearing`, they are handed on: the
    /// slots keep their keys and count again from 0.
    func allUnmappedSightings(nodeCount: Int, clearing: Bool = false) -> [(node: Int32, key: [UInt8], count: Int)] {
        var result: [(node: Int32, key: [UInt8], count: Int)] = []
        for node in 0..<nodeCount where firstSlot[node] >= 0 {
            for position in 0..<Self.positionsPerNode {
                let slot = Int(firstSlot[node]) + position
                if let sighting = unmappedSightings(slot: slot) {
                    result.append((Int32(node), sighting.key, sighting.count))
                    if clearing { unmappedCounts[slot] = 0 }
                }
            }
        }
        return result
    }

    /// The slot for key number `position` of an object at `node`, or -1 when the position is not cached.
    @inline(__always)
    func slot(node: Int32, position: Int) -> Int {
        let first = firstSlot[Int(node)]
        guard first >= 0, position < Self.positionsPerNode else { return -1 }
        return Int(first) + position
    }

    /// The child node cached for `key` in `slot` (-1 when it was unmapped), or nil when the slot holds another key.
    @inline(__always)
    func cachedResult(slot: Int, key: UnsafePointer<UInt8>, _ length: Int) -> Int32? {
        guard Int(lengths[slot]) == length,
              ShortBytes.equal(words + slot &* Self.wordsPerKey, key, length) else { return nil }
        return results[slot]
    }

    /// Remembers that `key` at `slot` matched `result`, and whether this was a sighting of an unmapped key to count
    /// (not for keys an ignored path covers).
    @inline(__always)
    func store(slot: Int, key: UnsafePointer<UInt8>, _ length: Int, result: Int32, countsSighting: Bool) {
        guard length <= Self.maximumKeyLength else {
            lengths[slot] = -1
            unmappedCounts[slot] = 0
            return
        }
        let destination = UnsafeMutableRawPointer(words + slot * Self.wordsPerKey)
        destination.initializeMemory(as: UInt8.self, repeating: 0, count: Self.maximumKeyLength)
        destination.copyMemory(from: key, byteCount: length)
        lengths[slot] = Int32(length)
        results[slot] = result
        unmappedCounts[slot] = countsSighting ? 1 : 0
    }
}
