import CWalk

/// yajl, as the engine uses it: its matched walk reads a record whose bytes are all at hand (keys matched in C++ over
/// yajl's callbacks, one tape a record), and its verdict judges what the walks hand back, so that damaged records get
/// yajl's wording whichever tokenizer runs.
final class YajlTokenizer {
    private let machine: UnsafeMutablePointer<RecordStateMachine>
    /// The plan's tables, and yajl's matched walk over them (`nil` when memory was short).
    private let matchTables: MatchTables
    private let matcher: OpaquePointer?
    /// How deep containers may open within a record, past the levels around it.
    private let machineDepth: Int
    /// Records the matched walk read whole.
    private(set) var matchedRecords = 0

    /// - Parameters:
    ///   - machine: The state machine that takes the tapes; it must outlive the tokenizer.
    ///   - matchTables: The plan's tables.
    init(machine: UnsafeMutablePointer<RecordStateMachine>, matchTables: MatchTables) {
        self.machine = machine
        self.matchTables = matchTables
        machineDepth = max(machine.pointee.maximumDepth, 0)
        matcher = sluice_yajl_matcher_create(machineDepth, machine.pointee.valueLimit.entries)
    }

    deinit {
        sluice_yajl_matcher_free(matcher)
    }

    /// Reads the one record in `count` bytes (its first byte, at absolute `offset`, is the record's) with the matched
    /// walk and hands its tape to the machine. A record handed back (not well-formed, too deep) is for the caller to
    /// judge (``judge(_:count:at:ending:isDocument:)``).
    func matchRecord(_ bytes: UnsafePointer<UInt8>, count: Int, at offset: Int) -> WalkStatus {
        guard let matcher else { return .noMemory }
        guard machine.pointee.takesMatchedRecords else { return .handedBack }
        var tape: UnsafePointer<sluice_tape_entry>?
        var entries = 0
        var end = 0
        var isKnownUTF8 = false
        let status = machine.pointee.withHeaderNodes { header, columns in
            sluice_yajl_match(matcher, bytes, count, matchTables.tables, header, columns, &tape, &entries, &end, &isKnownUTF8)
        }
        switch status {
        case SLUICE_MATCH_OK: break
        case SLUICE_MATCH_NO_MEMORY: return .noMemory
        case SLUICE_MATCH_TOO_LARGE: return .tooLarge
        default: return .handedBack
        }
        matchedRecords += 1
        // yajl checks strings' UTF-8 less strictly than the machine does: in a record that is not well-formed UTF-8,
        // mapped text is checked again.
        let walked = UnsafeBufferPointer(start: tape, count: entries)
        return machine.pointee.takeWalkedRecord(walked, end: end, at: offset, isKnownUTF8: isKnownUTF8) ? .read : .cancelled
    }

    /// yajl's verdict on a record that the matched walks handed back, as its callback parser finds it.
    enum Verdict: Equatable {
        /// No damage: one well-formed value within the depth allowed (a record passed over, which no walk reads), or,
        /// judging what was read so far, no damage yet.
        case wellFormed
        /// yajl refused the byte just before absolute `offset`, inside a record (a container is open, or a document's
        /// value whole) or not.
        case malformed(message: String, offset: Int, insideRecord: Bool)
        /// The bytes end inside a container, or, at the input's end, inside a value.
        case truncated
        /// A second value's first token ends at absolute `offset`.
        case extraValue(offset: Int)
        /// A container deeper than allowed opens just before absolute `offset`.
        case tooDeep(offset: Int)
        /// yajl's parser could not be allocated: nothing was judged, and nothing can be read.
        case noMemory
    }

    /// How the bytes judged end.
    enum JudgedEnd {
        /// With a line feed of their own (a line).
        case lineFeed
        /// Where a record does, which a line feed after them ends as it ends a line without one (the input's last
        /// line, an element).
        case recordEnd
        /// Where the input does: a value left open there is cut short.
        case inputEnd
        /// Where the bytes read so far do, the input going on: a value left open there is neither ended nor cut
        /// short (`.truncated` says a container is open).
        case readSoFar
    }

    /// Judges the `count` bytes at absolute `offset` as yajl reads them, without the machine: a record is damaged or
    /// not whatever its fields make of it. `isDocument`: they are a document, one value, which anything
    /// after it but whitespace damages, as yajl reads one.
    func judge(_ bytes: UnsafePointer<UInt8>, count: Int, at offset: Int, ending: JudgedEnd, isDocument: Bool = false) -> Verdict {
        let verdict = sluice_yajl_judge(bytes, count, machineDepth, isDocument, ending == .recordEnd, ending == .inputEnd)
        switch verdict.kind {
        case SLUICE_VERDICT_MALFORMED:
            let message = withUnsafeBytes(of: verdict.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return .malformed(message: message.trimmingWhitespace(), offset: offset + verdict.offset, insideRecord: verdict.inside_record)
        case SLUICE_VERDICT_TRUNCATED: return .truncated
        case SLUICE_VERDICT_EXTRA_VALUE: return .extraValue(offset: offset + verdict.offset)
        case SLUICE_VERDICT_TOO_DEEP: return .tooDeep(offset: offset + verdict.offset)
        case SLUICE_VERDICT_NO_MEMORY: return .noMemory
        default: return .wellFormed
        }
    }

    /// Adds the keys no field reads that the matched walk counted itself (records it read whole, since the last call)
    /// to `counts`, and forgets them.
    func takeUnmappedKeyCounts(into counts: inout [UnmappedKey: Int]) {  // lint: reporting, once per chunk
        guard let matcher else { return }
        var sightings: UnsafePointer<sluice_unmapped_sighting>?
        let count = sluice_yajl_take_unmapped(matcher, &sightings)
        UnmappedKey.count(UnsafeBufferPointer(start: sightings, count: count), into: &counts)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
