import CSimdjson

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

    /// Writes the record the tape describes and ends it at `end` (relative to ``sliceOffset``, as the tape's
    /// offsets are); returns `false` where the event walk's end of record would have asked the tokenizer to stop.
    mutating func takeMatchedRecord(_ tape: UnsafeBufferPointer<sluice_tape_entry>, end: Int) -> Bool {
        guard beginRecordOrOuter(isArrayStart: false) == 0 else { return false }
        for entry in tape {
            let kind = sluice_tape_kind(UInt32(bitPattern: entry.kind))
            if kind == SLUICE_TAPE_UNMAPPED_KEY {
                // `end` is the key's position among its object's keys, not an offset.
                _ = match(entry.bytes ?? emptyBytes, entry.length, at: entry.node, position: entry.end)
                continue
            }
            scriptedOffset = sliceOffset + entry.end
            switch kind {
            case SLUICE_TAPE_LIST_START:
                startLists(at: entry.node)
            case SLUICE_TAPE_EXTRA_VALUE:
                failRowPastHeader()
            case SLUICE_TAPE_CAPTURE:
                captureMatched(node: entry.node, from: scriptedOffset - entry.length, to: scriptedOffset, isArray: entry.bytes?.pointee == UInt8(ascii: "["))
            case SLUICE_TAPE_STRING:
                writeScalar(node: entry.node, .string, entry.bytes ?? emptyBytes, entry.length, false)
            case SLUICE_TAPE_NUMBER:
                writeScalar(node: entry.node, .number, entry.bytes ?? emptyBytes, entry.length, false)
            case SLUICE_TAPE_TRUE, SLUICE_TAPE_FALSE:
                writeScalar(node: entry.node, .bool, nil, 0, kind == SLUICE_TAPE_TRUE)
            default:
                writeScalar(node: entry.node, .null, nil, 0, false)
            }
        }
        scriptedOffset = sliceOffset + end
        return endRecord(end: min(scriptedOffset, scalarEndLimit))
    }
}
