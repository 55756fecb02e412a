import CWalk

/// A record walked by the matched walk (``MatchTables``): its keys were matched in C++, and its tape holds the values
/// fields read and the keys no field reads, in document order. They go through the same writes, counts and commit as
/// the events of the event walk would, so the outcome is the same; only the way there is shorter.
extension RecordStateMachine {
    /// Whether the next record would start at the plan's root with nothing open, which is what the matched walk
    /// assumes: not inside a top-level array still to be opened, not passing over skipped records or a header.
    var takesMatchedRecords: Bool {
        frameCount == 0 && skipDepth == 0 && !inRecord && !hasDeferredRecord && recordsToSkip == 0 && !readsHeader
            && (outerLevels == 0 || isOuterOpen)
    }

    /// Calls `body` with the header's nodes (one per column, -1 where no field reads) once the header is known, else
    /// with none: before, an array is no record a matched walk reads. The header's array is touched only then:
    /// reaching into it costs a retain and a release a record. Mutating so that it is asked in place.
    @inline(__always)
    mutating func withHeaderNodes<Result>(_ body: (UnsafePointer<Int32>?, Int) -> Result) -> Result {
        guard knowsHeader else { return body(nil, 0) }
        return headerNodes.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
    }

    /// Writes a whole record a walk read, whose first byte sits at absolute `offset`: the tape's offsets count from it,
    /// and yajl's event handle is set aside meanwhile. `isKnownUTF8`: the walk checked the whole record's UTF-8
    /// (simdjson's does, and the text it unescaped is UTF-8), so mapped text need not be checked again.
    mutating func takeWalkedRecord(_ tape: UnsafeBufferPointer<sluice_tape_entry>, end: Int, at offset: Int, isKnownUTF8: Bool) -> Bool {
        let eventHandle = handle
        handle = nil
        sliceOffset = offset
        recordIsKnownUTF8 = isKnownUTF8
        defer {
            handle = eventHandle
            recordIsKnownUTF8 = false
        }
        return takeMatchedRecord(tape, end: end)
    }

    /// Writes the record the tape describes and ends it at `end` (relative to ``sliceOffset``, as the tape's
    /// offsets are); returns `false` where the event walk's end of record would have asked the tokenizer to stop.
    /// The tape's nodes count from `nodeBase`, this machine's root among the tables' nodes (an element plan's
    /// nodes follow the record's).
    mutating func takeMatchedRecord(_ tape: UnsafeBufferPointer<sluice_tape_entry>, end: Int, nodeBase: Int32 = 0) -> Bool {
        guard beginRecordOrOuter(isArrayStart: false) == 0 else { return false }
        guard var cursor = tape.baseAddress else { return endMatchedRecord(end: end) }
        let tapeEnd = cursor + tape.count
        var elementsBase: Int32 = 0
        while cursor < tapeEnd {
            let entry = cursor.pointee
            cursor += 1
            let kind = sluice_tape_kind(UInt32(bitPattern: entry.kind))
            // Wrapping: an element marker's `node` is its index in the array, not a node, and may lie below the base.
            let node = entry.node &- nodeBase
            if kind == SLUICE_TAPE_UNMAPPED_KEY {
                // `end` is the key's position among its object's keys, not an offset.
                _ = match(entry.bytes ?? emptyBytes, entry.length, at: node, position: entry.end)
                continue
            }
            scriptedOffset = sliceOffset + entry.end
            // Values first: the kinds are compared in turn, and values are most of a tape.
            switch kind {
            case SLUICE_TAPE_STRING:
                writeScalar(node: node, .string, entry.bytes ?? emptyBytes, entry.length, false)
            case SLUICE_TAPE_NUMBER:
                writeScalar(node: node, .number, entry.bytes ?? emptyBytes, entry.length, false)
            case SLUICE_TAPE_TRUE, SLUICE_TAPE_FALSE:
                writeScalar(node: node, .bool, nil, 0, kind == SLUICE_TAPE_TRUE)
            case SLUICE_TAPE_NULL:
                writeScalar(node: node, .null, nil, 0, false)
            case SLUICE_TAPE_LIST_START:
                startLists(at: node)
            case SLUICE_TAPE_CAPTURE:
                captureMatched(node: node, from: scriptedOffset - entry.length, to: scriptedOffset, isArray: entry.bytes?.pointee == UInt8(ascii: "["))
            case SLUICE_TAPE_ELEMENTS_START:
                elementsBase = Int32(entry.length)
                openElements(node: node, machine: Int(nodes[Int(node)].elementMachine))
            case SLUICE_TAPE_ELEMENT:
                // `node` is the element's index in its array, `length` how many entries are its.
                let entries = UnsafeBufferPointer(start: cursor, count: entry.length)
                cursor += entry.length
                feedMatchedElement(entries, index: Int(entry.node), end: entry.end, nodeBase: elementsBase)
            case SLUICE_TAPE_ELEMENTS_END:
                finishElements()
            case SLUICE_TAPE_MISMATCH:
                checkContainer(node: node, isArray: entry.bytes?.pointee == UInt8(ascii: "["))
            case SLUICE_TAPE_EXTRA_VALUE:
                failRowPastHeader()
            default:
                break  // every kind the walk writes is above
            }
        }
        return endMatchedRecord(end: end)
    }

    private mutating func endMatchedRecord(end: Int) -> Bool {
        scriptedOffset = sliceOffset + end
        return endRecord(end: min(scriptedOffset, scalarEndLimit))
    }
}
