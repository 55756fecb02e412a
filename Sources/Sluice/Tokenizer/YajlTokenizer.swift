import CWalk
import CYajl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Drives libyajl's callback parser over slices of input and forwards its events to a ``RecordStateMachine``; or,
/// for a record whose bytes are all at hand, reads it with yajl's matched walk (keys matched in C++, one tape a
/// record), which hands back to the events whatever it cannot read as simply.
///
/// yajl's pointers (keys, strings, number text) are valid only during a callback; the machine copies what it
/// keeps. Errors are sticky in yajl and a cancelled handle cannot go on, so the driver asks for a fresh handle
/// (``reset()``) whenever it resynchronises.
final class YajlTokenizer {
    enum Status: Equatable {
        case ok
        /// A callback asked to stop; the machine knows why.
        case cancelled
        /// The input is not well-formed JSON: yajl's message, and the absolute offset where it stopped.
        case malformed(message: String, offset: Int)
        /// The input ended inside a value, at this absolute offset.
        case truncated(offset: Int)
    }

    private let machine: UnsafeMutablePointer<RecordStateMachine>
    private let callbacks: UnsafeMutablePointer<yajl_callbacks>
    private let allowsMultipleValues: Bool
    private var handle: yajl_handle?
    private var sliceOffset = 0
    /// The absolute offset just past the last byte fed.
    private var fedEnd = 0
    /// The plan's tables and yajl's matched walk, when records it can read go to it.
    private let matchTables: MatchTables?
    private let matcher: OpaquePointer?
    /// How deep containers may open within a record, past the levels around it.
    private let machineDepth: Int
    /// Records the matched walk read whole.
    private(set) var matchedRecords = 0
    /// Whether records whose bytes are all at hand may go to the matched walk.
    var matchesRecords: Bool { matcher != nil }

    /// - Parameters:
    ///   - machine: The state machine that receives the events; it must outlive the tokenizer.
    ///   - allowsMultipleValues: Whether the input is a stream of top-level values (NDJSON, concatenated) rather
    ///     than one value (a top-level array, a document).
    ///   - matchTables: The plan's tables, when records whose bytes are all at hand go to the matched walk.
    init(machine: UnsafeMutablePointer<RecordStateMachine>, allowsMultipleValues: Bool, matchTables: MatchTables? = nil) {
        self.machine = machine
        self.allowsMultipleValues = allowsMultipleValues
        self.matchTables = matchTables
        machineDepth = max(machine.pointee.maximumDepth - machine.pointee.outerLevels, 0)
        matcher = matchTables != nil ? sluice_yajl_matcher_create(machineDepth) : nil
        callbacks = .allocate(capacity: 1)
        callbacks.initialize(to: YajlTokenizer.makeCallbacks())
        reset()
    }

    deinit {
        if let handle { yajl_free(handle) }
        sluice_yajl_matcher_free(matcher)
        callbacks.deallocate()
    }

    /// Reads the one record in `count` bytes (its first byte, at absolute `offset`, is the record's) with the matched
    /// walk and hands its tape to the machine: `.ok`, or `.cancelled` where the machine asks to stop. `nil` when the
    /// walk hands the record back untouched (not well-formed, too deep), or the machine is not between records: the
    /// caller then judges it (``judge(_:count:at:ending:isDocument:)``) or has the events read it, from its start.
    func matchRecord(_ bytes: UnsafePointer<UInt8>, count: Int, at offset: Int) -> Status? {
        guard let matcher, let matchTables, machine.pointee.takesMatchedRecords else { return nil }
        var tape: UnsafePointer<sluice_tape_entry>?
        var entries = 0
        var end = 0
        var isKnownUTF8 = false
        let status = machine.pointee.withHeaderNodes { header, columns in
            sluice_yajl_match(matcher, bytes, count, matchTables.tables, header, columns, &tape, &entries, &end, &isKnownUTF8)
        }
        guard status == SLUICE_MATCH_OK else { return nil }
        matchedRecords += 1
        // yajl checks strings' UTF-8 less strictly than the machine does: in a record that is not well-formed UTF-8,
        // mapped text is checked again.
        let walked = UnsafeBufferPointer(start: tape, count: entries)
        return machine.pointee.takeWalkedRecord(walked, end: end, at: offset, isKnownUTF8: isKnownUTF8) ? .ok : .cancelled
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

    /// Judges the `count` bytes at absolute `offset` as the events would read them, without the machine: a record
    /// is damaged or not whatever its fields make of it. `isDocument`: they are a document, one value, which anything
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
        default: return .wellFormed
        }
    }

    /// Adds the keys no field reads that the matched walk counted itself (records it read whole, since the last call)
    /// to `counts`, and forgets them; the machine counts the rest.
    func takeUnmappedKeyCounts(into counts: inout [UnmappedKey: Int]) {  // lint: reporting, once per chunk
        guard let matcher else { return }
        var sightings: UnsafePointer<sluice_unmapped_sighting>?
        let count = sluice_yajl_take_unmapped(matcher, &sightings)
        UnmappedKey.count(UnsafeBufferPointer(start: sightings, count: count), into: &counts)
    }

    /// Replaces the handle with a fresh one, forgetting any partial token or nesting.
    func reset() {
        if let handle { yajl_free(handle) }
        let fresh = yajl_alloc(callbacks, nil, UnsafeMutableRawPointer(machine))
        if let fresh, allowsMultipleValues {
            _ = cyajl_config_flag(fresh, yajl_allow_multiple_values, 1)
        }
        handle = fresh
        machine.pointee.handle = fresh
    }

    /// Feeds one slice whose first byte sits at absolute offset `offset`.
    func parse(_ bytes: UnsafePointer<UInt8>, count: Int, at offset: Int) -> Status {
        guard let handle else { return .malformed(message: "the JSON parser could not be allocated", offset: offset) }
        sliceOffset = offset
        fedEnd = offset + count
        machine.pointee.sliceOffset = offset
        // yajl takes form feed and vertical tab for whitespace; JSON does not. Inside a string yajl rejects
        // them anyway, so the first one in a slice ends the input wherever it is.
        let stop = min(Self.firstIndex(of: 0x0C, in: bytes, count), Self.firstIndex(of: 0x0B, in: bytes, count))
        if stop < count {
            let before = stop > 0 ? status(yajl_parse(handle, bytes, stop)) : .ok
            guard before == .ok else { return before }
            let name = bytes[stop] == 0x0C ? "form feed" : "vertical tab"
            return .malformed(message: "lexical error: \(name) (a control character that is not JSON whitespace)", offset: offset + stop + 1)
        }
        return status(yajl_parse(handle, bytes, count))
    }

    private static func firstIndex(of byte: UInt8, in bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
        guard let found = memchr(bytes, Int32(byte), count) else { return count }
        return UnsafeRawPointer(found) - UnsafeRawPointer(bytes)
    }

    /// Tells yajl the input has ended, so that a final number is delivered and a truncated value reported.
    func finish() -> Status {
        guard let handle else { return .ok }
        // A number at the very end is delivered now; its record ends where the input does.
        sliceOffset = fedEnd
        machine.pointee.sliceOffset = fedEnd
        machine.pointee.scalarEndLimit = fedEnd
        defer { machine.pointee.scalarEndLimit = .max }
        switch status(yajl_complete_parse(handle)) {
        case .malformed(let message, _):
            // yajl's byte count refers to the last slice; the problem is the end of the input.
            return .malformed(message: message, offset: fedEnd)
        case .truncated:
            return .truncated(offset: fedEnd)
        case let other:
            return other
        }
    }

    private func status(_ status: yajl_status) -> Status {
        switch status {
        case yajl_status_ok: return .ok
        case yajl_status_client_canceled: return .cancelled
        default:
            guard let handle else { return .ok }
            let consumed = Int(yajl_get_bytes_consumed(handle))
            var message = "malformed JSON"
            if let text = yajl_get_error(handle, 0, nil, 0) {
                message = String(cString: text).trimmingWhitespace()
                yajl_free_error(handle, text)
            }
            // yajl says so only in its message.
            if message.contains("premature EOF") { return .truncated(offset: sliceOffset + consumed) }
            return .malformed(message: message, offset: sliceOffset + consumed)
        }
    }

    private static func makeCallbacks() -> yajl_callbacks {
        var callbacks = yajl_callbacks()
        callbacks.yajl_null = { context in
            guard let machine = context?.assumingMemoryBound(to: RecordStateMachine.self) else { return 0 }
            return machine.pointee.null() ? 1 : 0
        }
        callbacks.yajl_boolean = { context, value in
            guard let machine = context?.assumingMemoryBound(to: RecordStateMachine.self) else { return 0 }
            return machine.pointee.bool(value != 0) ? 1 : 0
        }
        callbacks.yajl_number = { context, text, length in
            guard let machine = context?.assumingMemoryBound(to: RecordStateMachine.self), let text else { return 0 }
            return machine.pointee.number(UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), length) ? 1 : 0
        }
        callbacks.yajl_string = { context, text, length in
            guard let machine = context?.assumingMemoryBound(to: RecordStateMachine.self) else { return 0 }
            return machine.pointee.string(text ?? machine.pointee.emptyBytes, length) ? 1 : 0
        }
        callbacks.yajl_start_map = { context in
            guard let machine = context?.assumingMemoryBound(to: RecordStateMachine.self) else { return 0 }
            return machine.pointee.startMap() ? 1 : 0
        }
        callbacks.yajl_map_key = { context, key, length in
            guard let machine = context?.assumingMemoryBound(to: RecordStateMachine.self) else { return 0 }
            return machine.pointee.key(key ?? machine.pointee.emptyBytes, length) ? 1 : 0
        }
        callbacks.yajl_end_map = { context in
            guard let machine = context?.assumingMemoryBound(to: RecordStateMachine.self) else { return 0 }
            return machine.pointee.endMap() ? 1 : 0
        }
        callbacks.yajl_start_array = { context in
            guard let machine = context?.assumingMemoryBound(to: RecordStateMachine.self) else { return 0 }
            return machine.pointee.startArray() ? 1 : 0
        }
        callbacks.yajl_end_array = { context in
            guard let machine = context?.assumingMemoryBound(to: RecordStateMachine.self) else { return 0 }
            return machine.pointee.endArray() ? 1 : 0
        }
        return callbacks
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
