import CWalk
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Walks one record at a time with simdjson On-Demand, matching its keys against the plan's tables in C++ (the
/// matched walk): one tape a record reaches the ``RecordStateMachine``, and values no field reads are passed over by
/// simdjson unread.
///
/// simdjson checks a record's structure, its strings and its UTF-8 as a whole, but the values it passes over only
/// for structure. Whatever the walk cannot read, it hands back untouched (``WalkStatus/handedBack``): the driver then
/// lets yajl read the record, so malformed records get yajl's verdict and wording whichever tokenizer runs.
final class SimdjsonTokenizer {
    /// Bytes simdjson may read past a record; allocations that hand records to it leave this much room.
    static let padding = Int(sluice_simdjson_padding())

    /// Whether simdjson runs a SIMD kernel on this CPU (its portable one is no faster than yajl).
    static let hasSIMDKernel = String(cString: sluice_simdjson_kernel()) != "fallback"

    /// Containers nested deeper than this in the values the plan reads are read by yajl: the walk recurses per
    /// level, and a worker thread's stack may be small (512 KiB on macOS).
    private static let walkDepthLimit = 256

    /// Records larger than this are read by yajl: simdjson's parsers keep memory for the largest record they have
    /// read (about six bytes per byte for On-Demand's, four more for the walk over the indexes' positions and one
    /// for its unescaped text) until the run ends, outside the memory budget.
    static let maximumRecordSize = 1 << 20

    private let machine: UnsafeMutablePointer<RecordStateMachine>
    private let parser: OpaquePointer?
    /// Records with more opening brackets than this may nest deeper than the machine allows, which only a tokenizer
    /// that reports every level can tell: they go to yajl.
    private let openingLimit: Int
    /// Where a record with too little readable room after it is copied, with padding.
    private var scratch: UnsafeMutablePointer<UInt8>?
    private var scratchCapacity = 0

    /// The plan's trie as the walk reads it.
    private let matchTables: MatchTables
    /// - Parameters:
    ///   - machine: The state machine that takes the tapes; it must outlive the tokenizer.
    ///   - matchTables: The plan's tables.
    init(machine: UnsafeMutablePointer<RecordStateMachine>, matchTables: MatchTables) {
        self.machine = machine
        openingLimit = max(machine.pointee.maximumDepth, 0)
        parser = sluice_simdjson_parser_create(Self.walkDepthLimit, machine.pointee.valueLimit.entries)
        self.matchTables = matchTables
    }

    deinit {
        if let parser { sluice_simdjson_parser_free(parser) }
        scratch?.deallocate()
    }

    /// Walks the one value in `count` bytes whose first byte sits at absolute `offset`; `readable` bytes from
    /// `bytes` may be read.
    func walk(_ bytes: UnsafePointer<UInt8>, count: Int, readable: Int, at offset: Int) -> WalkStatus {
        guard let parser, count <= Self.maximumRecordSize, machine.pointee.takesMatchedRecords else { return .handedBack }
        // Each level takes two bytes at least: only a long record needs its brackets counted.
        guard count / 2 <= openingLimit || sluice_count_openings(bytes, count) <= openingLimit else { return .handedBack }
        var start = bytes
        var capacity = readable
        if readable < count + Self.padding {
            start = UnsafePointer(copyToScratch(bytes, count: count))
            capacity = scratchCapacity
        }
        var tape: UnsafePointer<sluice_tape_entry>?
        var entries = 0
        var end = 0
        let status = machine.pointee.withHeaderNodes { header, columns in
            sluice_simdjson_match(parser, start, count, capacity, matchTables.tables, header, columns, &tape, &entries, &end)
        }
        switch status {
        case SLUICE_MATCH_OK:
            let walked = UnsafeBufferPointer(start: tape, count: entries)
            return machine.pointee.takeWalkedRecord(walked, end: end, at: offset, isKnownUTF8: true) ? .read : .cancelled
        case SLUICE_MATCH_INVALID_UTF8:
            return .notUTF8
        case SLUICE_MATCH_TOO_LARGE:
            return .tooLarge
        default:
            return .handedBack
        }
    }

    /// Adds the keys no field reads that the matched walk counted itself (records it walked whole, since the last
    /// call) to `counts`, and forgets them; the machine counts the rest.
    func takeUnmappedKeyCounts(into counts: inout [UnmappedKey: Int]) {  // lint: reporting, once per chunk
        guard let parser else { return }
        var sightings: UnsafePointer<sluice_unmapped_sighting>?
        let count = sluice_simdjson_take_unmapped(parser, &sightings)
        UnmappedKey.count(UnsafeBufferPointer(start: sightings, count: count), into: &counts)
    }

    private func copyToScratch(_ bytes: UnsafePointer<UInt8>, count: Int) -> UnsafeMutablePointer<UInt8> {
        if scratchCapacity < count + Self.padding {
            scratch?.deallocate()
            scratchCapacity = max(count + Self.padding, 2 * scratchCapacity)
            scratch = .allocate(capacity: scratchCapacity)
        }
        // `scratch` was just made large enough; the optional only spares a force unwrap.
        guard let scratch else { return UnsafeMutablePointer(mutating: bytes) }
        scratch.update(from: bytes, count: count)
        return scratch
    }
}
