import CWalk

/// A record a matched walk read (``MatchTables``): its keys were matched in C++, and its tape holds the values fields
/// read, the containers of the wrong kind and the keys no field reads, in document order. They go to the value
/// writes, the unmapped-key counts and the record's outcome.
extension RecordStateMachine {
    /// Whether the next record starts at the plan's root with nothing open or waiting, which is what the matched walks
    /// assume: not passing over skipped records or a header.
    var takesMatchedRecords: Bool {
        !inRecord && !hasDeferredRecord && recordsToSkip == 0 && !readsHeader
    }

    /// Calls `body` with the header's nodes (one per column, -1 where no field reads) once the header is known, else
    /// with none: before, an array is no record a matched walk reads. The header's array is touched only then:
    /// reaching into it costs a retain and a release a record. Mutating so that it is asked in place.
    @inline(__always)
    mutating func withHeaderNodes<Result>(_ body: (UnsafePointer<Int32>?, Int) -> Result) -> Result {
        guard knowsHeader else { return body(nil, 0) }
        return headerNodes.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
    }

    /// Writes a whole record a walk read, whose first byte sits at absolute `offset`: the tape's offsets count from it.
    /// `isKnownUTF8`: the walk checked the whole record's UTF-8 (simdjson's does, and the text it unescaped is UTF-8),
    /// so mapped text need not be checked again.
    mutating func takeWalkedRecord(_ tape: UnsafeBufferPointer<sluice_tape_entry>, end: Int, at offset: Int, isKnownUTF8: Bool) -> Bool {
        recordOffset = offset
        recordIsKnownUTF8 = isKnownUTF8
        defer { recordIsKnownUTF8 = false }
        return takeMatchedRecord(tape, end: end)
    }

    /// Writes the record the tape describes and ends it at `end` (relative to ``recordOffset``, as the tape's
    /// offsets are); returns `false` where the record's end asks the walk's caller to stop (the rejection policy).
    /// The tape's nodes count from `nodeBase`, this machine's root among the tables' nodes (an element plan's
    /// nodes follow the record's).
    mutating func takeMatchedRecord(_ tape: UnsafeBufferPointer<sluice_tape_entry>, end: Int, nodeBase: Int32 = 0) -> Bool {
        beginRecord()
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
            // Just past the entry's value, absolute.
            let entryEnd = recordOffset + entry.end
            // Values first: the kinds are compared in turn, and values are most of a tape.
            switch kind {
            case SLUICE_TAPE_STRING:
                writeString(node: node, entry.bytes ?? emptyBytes, entry.length)
            case SLUICE_TAPE_NUMBER:
                writeNumber(node: node, entry.bytes ?? emptyBytes, entry.length)
            case SLUICE_TAPE_TRUE, SLUICE_TAPE_FALSE:
                writeScalar(node: node, .bool, nil, 0, kind == SLUICE_TAPE_TRUE)
            case SLUICE_TAPE_NULL:
                writeScalar(node: node, .null, nil, 0, false)
            case SLUICE_TAPE_LIST_START:
                startLists(at: node)
            case SLUICE_TAPE_CAPTURE:
                captureMatched(node: node, from: entryEnd - entry.length, to: entryEnd, isArray: entry.bytes?.pointee == UInt8(ascii: "["))
            case SLUICE_TAPE_ELEMENTS_START:
                elementsBase = Int32(entry.length)
                openElements(node: node, machine: Int(nodes[Int(node)].elementMachine))
            case SLUICE_TAPE_ELEMENT:
                // `node` is the element's index in its array, `length` how many entries are its.
                let entries = UnsafeBufferPointer(start: cursor, count: entry.length)
                cursor += entry.length
                feedMatchedElement(entries, index: Int(entry.node), end: entry.end, nodeBase: elementsBase)
            case SLUICE_TAPE_ELEMENTS_END:
                finishElements(count: entry.length)
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

    /// A string value, with its kind known where it is written: every test of the kind folds away.
    @inline(never)
    private mutating func writeString(node: Int32, _ bytes: UnsafePointer<UInt8>, _ length: Int) {
        writeScalar(node: node, .string, bytes, length, false)
    }

    /// A number value, with its kind known where it is written.
    @inline(never)
    private mutating func writeNumber(node: Int32, _ bytes: UnsafePointer<UInt8>, _ length: Int) {
        writeScalar(node: node, .number, bytes, length, false)
    }

    private mutating func endMatchedRecord(end: Int) -> Bool {
        endRecord(end: recordOffset + end)
    }

    /// Starts a record at the plan's root, or one passed over (``passesOverNextRecord``).
    @inline(never)
    mutating func beginRecord() {
        // Rejections fill a batch as rows do, so that a stream of rejected records is handed on batch by batch
        // instead of held whole until enough records map. The batch is handed on when the next record starts,
        // never at a rejection that ends the run, which must stay with the batch it ends. A flag, not the batch's
        // count, is what every record tests: reaching into the batch costs hundreds of instructions a record.
        if batchNeedsCare {
            batchNeedsCare = false
            if batches.current.rejections.count >= batches.current.capacity || (elementBatch == nil && stagedRows?.pointee.batchIsFull == true) {
                batches.completeCurrent(count: row)
                row = 0
            }
            columns = batches.current.columns
            if !elementMachines.isEmpty { bindElementBatches(of: batches.current) }
            if elementBatch == nil { stagedRows?.pointee.startBatch() }
        }
        // An element machine's records are elements: the tally is the whole record's.
        if elementBatch == nil { stagedRows?.pointee.startRecord() }
        inRecord = true
        serial &+= 1
        if serial == 0 { restartSerials() }
        if passesOverNextRecord {
            isPassingOver = true
            if plan.keyNode >= 0 { _ = takeRecordKey() }
            return
        }
        if plan.keyNode >= 0 { writeRecordKey() }
    }

    /// The record's key: the one an abandoned record gave back, or the next.
    mutating func takeRecordKey() -> [UInt8]? {
        let key = abandonedRecordKey ?? recordKeys?.take()
        abandonedRecordKey = nil
        recordKeyInProgress = key
        return key
    }

    /// `$key` fields: the record's key in the object of records (nothing for the elements of an array).
    @inline(never)
    private mutating func writeRecordKey() {
        guard let key = takeRecordKey(), !key.isEmpty else { return }
        key.withUnsafeBufferPointer { buffer in
            writeScalar(node: plan.keyNode, .string, buffer.baseAddress, buffer.count, false)
        }
    }

    /// Whether a container of this kind fits `node`, the plan looking into it; the fields that cannot take it fail
    /// (scalar fields there, and the fields beneath it when it does not fit).
    @discardableResult
    mutating func checkContainer(node nodeID: Int32, isArray: Bool) -> Bool {
        let node = nodes[Int(nodeID)]
        // A row of a CSV-like input is read by its header's names, as if it were an object.
        let fitsShape = isArray ? node.expectsArray || (nodeID == 0 && knowsHeader) : node.expectsObject
        if !fitsShape || node.hasScalarTargets {
            reportContainerMismatches(node: nodeID, isArray: isArray, fitsShape: fitsShape)
        }
        return fitsShape
    }

    /// Fields that cannot take this container: scalar fields on the node, and fields beneath it when the
    /// container is of the other kind (an array where an object was expected).
    @inline(never)
    mutating func reportContainerMismatches(node nodeID: Int32, isArray: Bool, fitsShape: Bool) {
        let node = nodes[Int(nodeID)]
        let found = isArray ? ValueDescription.array : ValueDescription.object
        for target in Int(node.targetStart)..<Int(node.targetStart + node.targetCount) {
            let column = Int(targets[target])
            stamps[Int(column)] = serial
            if !columnTypes[column].keepsJSONText && !columnIsTransformed[column] {
                failures.append(Rejection.Failure(keyPath: plan.displayPaths[Int(nodeID)], kind: .typeMismatch, expected: plan.fields[column].shownTypeName, found: found))
            }
        }
        if !fitsShape && node.hasChildren && !plan.feedsNoField[Int(nodeID)] {
            failures.append(Rejection.Failure(keyPath: plan.displayPaths[Int(nodeID)], kind: .typeMismatch, expected: "an object", found: found))
        }
    }
}
