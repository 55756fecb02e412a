/// Records passed over at the start, and the header row whose names the rows after it are read by.
extension RecordStateMachine {
    /// A record passed over (skipped, or the header): it gets no ordinal and is neither mapped nor rejected. A
    /// header that is not an array of strings ends the run: nothing after it could be read by name.
    @inline(never)
    mutating func finishPassingOver(end: Int) -> Bool {
        isPassingOver = false
        clearFailures()
        let location = locateRecord(end: end)
        ordinal -= 1
        if recordsToSkip > 0 {
            recordsToSkip -= 1
            return true
        }
        let text = recordText(location: location, end: end)
        if let names = text.withUnsafeBufferPointer({ ColumnHeader.names(inRecordText: $0) }) {
            readsHeader = false
            columnHeader?.publish(names)
            useHeader(names)
            return true
        }
        return failHeader(location: location, text: text)
    }

    /// Whether the next record is to be passed over (skipped, or the header row) rather than mapped.
    var passesOverNextRecord: Bool { recordsToSkip > 0 || readsHeader }

    /// Passes over the next record (``passesOverNextRecord``), which ends at `end` and was judged well-formed whole,
    /// without reading its values (a walk does not take it). Nothing after it can change that, so it is finished at
    /// once, never held back (``defersFinish``). Returns `false` where a header that is not one ends the run.
    mutating func passOverRecord(end: Int) -> Bool {
        beginRecord()
        inRecord = false
        return finishPassingOver(end: end)
    }

    /// Ends the run at a header that is not an array of strings (or not even JSON): one message for every way it
    /// can fail, and no rejection counted, since the header is not a record.
    mutating func failHeader(location: RecordLocation, text: [UInt8]) -> Bool {
        readsHeader = false
        columnHeader?.fail()
        let found = text.withUnsafeBufferPointer { ValueDescription.quoted(UnsafeBufferPointer(rebasing: $0.prefix(64))) }
        endingRejection = Rejection(
            location: location,
            failures: [Rejection.Failure(keyPath: "$", kind: .typeMismatch, expected: "a header record (an array of column names)", found: found)],
            rawText: text)
        return false
    }

    /// Reads rows by these column names from now on.
    mutating func useHeader(_ names: [[UInt8]]) {
        headerNodes = names.map { name in
            name.withUnsafeBufferPointer { buffer in
                let entry = plan.lookupFull(node: nodes[0], key: buffer.baseAddress ?? emptyBytes, buffer.count)
                return entry >= 0 ? keyEntries[Int(entry)].node : Self.unmapped
            }
        }
        knowsHeader = true
    }

    /// A row holds more values than the header has columns: its record fails, once.
    mutating func failRowPastHeader() {
        failures.append(Rejection.Failure(keyPath: "$", kind: .extraValue, expected: "at most \(headerNodes.count) values (one per header column)", found: "more"))
    }
}
