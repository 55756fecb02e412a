import CWalk

/// Typed arrays of models, mapped element by element: each element the walk read goes to an element machine, which
/// writes rows into the batch's element batch in the record's own pass.
extension RecordStateMachine {
    /// Starts mapping the array at `nodeID` element by element.
    mutating func openElements(node nodeID: Int32, machine: Int) {
        let column = Int(targets[Int(nodes[Int(nodeID)].targetStart)])
        stamps[column] = serial
        elementsColumn = column
        elementsMachine = machine
        elementsStart = elementMachines[machine].row
        elementsRejectionsBefore = elementMachines[machine].elementBatch?.rejections.count ?? 0
        // A record whose rows passed the share reads no more arrays into rows (its rejection names the first).
        feedsElements = stagedRows?.pointee.recordIsOver != true
    }

    /// The matched walk's element at `index` of the array (nulls counted), whose entries are `tape` and which ends
    /// at `end`: its element machine takes it as a record, unless an element before it failed, which ends the
    /// feeding.
    @inline(never)
    mutating func feedMatchedElement(_ tape: UnsafeBufferPointer<sluice_tape_entry>, index: Int, end: Int, nodeBase: Int32) {
        guard feedsElements else { return }
        let machine = elementsMachine
        elementMachines[machine].startElement(ordinal: index)
        elementMachines[machine].follow(buffer: buffer, bufferOffset: bufferOffset, bufferCount: bufferCount, recordOffset: recordOffset,
                                        isKnownUTF8: recordIsKnownUTF8)
        _ = elementMachines[machine].takeMatchedRecord(tape, end: end, nodeBase: nodeBase)
        if let batch = elementMachines[machine].elementBatch, batch.rejections.count > elementsRejectionsBefore {
            feedsElements = false
        }
        if let stagedRows, stagedRows.pointee.recordIsOver {
            // The rest of the array is passed over; the record's machine rejects the record, naming its array.
            feedsElements = false
            if elementBatch == nil { failures.append(stagedRows.pointee.failure(keyPath: columnPaths[elementsColumn])) }
        }
    }

    /// The array of `count` elements (nulls counted) closed: its row holds where its elements lie, or which of them
    /// failed.
    mutating func finishElements(count: Int) {
        if let batch = elementMachines[elementsMachine].elementBatch {
            let end = elementMachines[elementsMachine].row
            batch.count = end
            let failure = batch.rejections.count > elementsRejectionsBefore ? elementsRejectionsBefore : nil
            ElementRows.write(batch, rows: elementsStart..<end, failure: failure, arrayCount: count, into: columns + elementsColumn, row: row)
        }
        elementsColumn = -1
        feedsElements = false
    }

    /// Child tables: a record is all or nothing across its tables, so an element that did not map rejects it
    /// (named from the record: `$.entities.hashtags[3].text`), and so does a value that is no array. `null` gives
    /// no rows.
    @inline(never)
    mutating func checkChildTables() {
        for column in plan.childTableColumns where stamps[column] == serial && columns[column].isValid(row) {
            if let elements = ElementRows(columns[column], row: row) {
                guard let failed = elements.failure, failed < elements.batch.rejections.count else { continue }
                let rejection = elements.batch.rejections[failed]
                let element = columnPaths[column] + "[\(rejection.location.ordinal - 1)]"
                for var failure in rejection.failures {
                    failure.keyPath = element + failure.keyPath.dropFirst()
                    failures.append(failure)
                }
                continue
            }
            let text = columns[column].textBytes(row)
            if text.elementsEqual("null".utf8) {
                columns[column].setNull(row: row)
            } else if text.first != UInt8(ascii: "[") || !elementMachines.isEmpty {
                // Without element machines (a batch made for encoding alone) the array stays its text.
                failures.append(Rejection.Failure(keyPath: columnPaths[column], kind: .typeMismatch, expected: "an array", found: columns[column].describedValue(row)))
            }
        }
    }

    /// The element machines write into the element batches of `batch` from now on: the batch in hand when a
    /// record starts after a batch was handed on (a new batch, a recycled one, or the same one when it was not).
    mutating func bindElementBatches(of batch: ColumnarBatch) {
        for index in elementMachines.indices where index < batch.elementBatches.count {
            elementMachines[index].bind(to: batch.elementBatches[index])
        }
    }

    /// An element machine: writes its rows into `batch` after those its records' arrays hold (none once the
    /// batch was recycled, which empties it).
    private mutating func bind(to batch: ColumnarBatch) {
        elementBatch = batch
        columns = batch.columns
        row = batch.count
        if !elementMachines.isEmpty { bindElementBatches(of: batch) }
    }

    /// An element machine: the next value is the element at `ordinal` (0-based, nulls counted) of its array.
    private mutating func startElement(ordinal: Int) {
        self.ordinal = ordinal
    }

    /// An element machine: the element about to be taken lies where its record's machine is.
    private mutating func follow(
        buffer: UnsafePointer<UInt8>?, bufferOffset: Int, bufferCount: Int, recordOffset: Int, isKnownUTF8: Bool
    ) {
        self.buffer = buffer
        self.bufferOffset = bufferOffset
        self.bufferCount = bufferCount
        self.recordOffset = recordOffset
        recordIsKnownUTF8 = isKnownUTF8
    }

    /// An element machine: keeps the element's row; its batch grows when full, since all of a batch's records'
    /// elements go into it. The rows of a record rejected or abandoned later are not taken back: no array's row
    /// names them, and the batch they fill is emptied with the record's batch, which rejections fill too.
    mutating func commitElement(into batch: ColumnarBatch, _ location: RecordLocation) {
        batch.ordinals[row] = location.ordinal
        if let stagedRows {
            var bytes = stagedRowBytes
            for column in textColumns where columns[column].isValid(row) { bytes += columns[column].textBytes(row).count }
            stagedRows.pointee.add(bytes)
        }
        mappedCount += 1
        row += 1
        if row == batch.capacity { batch.grow(keeping: row) }
    }
}
