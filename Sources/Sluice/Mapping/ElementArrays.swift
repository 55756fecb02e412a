import CWalk
import CYajl

/// Typed arrays of models, mapped element by element: the events inside the array go to an element machine, which
/// writes rows into the batch's element batch in the record's own pass.
extension RecordStateMachine {
    /// An event inside an array mapped element by element, passed on to its element machine.
    enum ElementEvent {
        case startMap, startArray, end, null
        case key(UnsafePointer<UInt8>, Int)
        case string(UnsafePointer<UInt8>, Int)
        case number(UnsafePointer<UInt8>, Int)
        case bool(Bool)
    }

    /// Starts mapping the array at `nodeID` element by element: the record's machine skips it, by depth, and
    /// passes every event inside it on to the element machine.
    @inline(never)
    mutating func beginElements(node nodeID: Int32, machine: Int) -> Bool {
        openElements(node: nodeID, machine: machine)
        return beginSkip(captureNode: -1)
    }

    /// Starts mapping the array at `nodeID` element by element, in either walk.
    mutating func openElements(node nodeID: Int32, machine: Int) {
        let column = Int(targets[Int(nodes[Int(nodeID)].targetStart)])
        stamps[column] = serial
        elementsColumn = column
        elementsMachine = machine
        elementsIndex = 0
        elementsStart = elementMachines[machine].row
        elementsRejectionsBefore = elementMachines[machine].elementBatch?.rejections.count ?? 0
        feedsElements = true
    }

    /// The matched walk's element at `index` of the array (nulls counted), whose entries are `tape` and which ends
    /// at `end`: its element machine takes it as a record, unless an element before it failed, which ends the
    /// feeding as in the event walk.
    @inline(never)
    mutating func feedMatchedElement(_ tape: UnsafeBufferPointer<sluice_tape_entry>, index: Int, end: Int, nodeBase: Int32) {
        guard feedsElements else { return }
        let machine = elementsMachine
        elementMachines[machine].startElement(ordinal: index)
        elementMachines[machine].follow(buffer: buffer, bufferOffset: bufferOffset, bufferCount: bufferCount, handle: handle,
                                        sliceOffset: sliceOffset, scriptedOffset: scriptedOffset, isKnownUTF8: recordIsKnownUTF8)
        _ = elementMachines[machine].takeMatchedRecord(tape, end: end, nodeBase: nodeBase)
        if let batch = elementMachines[machine].elementBatch, batch.rejections.count > elementsRejectionsBefore {
            feedsElements = false
        }
    }

    /// Passes one event inside the array on; `skipDepth` already counts a container it opens or closes. JSON
    /// nulls in the array are no elements and are dropped; the first element that fails ends the feeding. Out of
    /// line: the machines' calls into their element machines must not make the record's events recursive, which
    /// would keep them from inlining into the tokenizer's callbacks.
    @inline(never)
    mutating func feedElements(_ event: ElementEvent) -> Bool {
        let machine = elementsMachine
        // Directly in the array (depth 1, or 2 for a container that just opened) a value is an element.
        let endsElement: Bool
        switch event {
        case .startMap, .startArray:
            endsElement = false
            if skipDepth == 2 {
                elementMachines[machine].startElement(ordinal: elementsIndex)
                elementsIndex += 1
            }
        case .key:
            endsElement = false
        case .end:
            endsElement = skipDepth == 1
        case .null, .string, .number, .bool:
            endsElement = skipDepth == 1
            if endsElement {
                elementsIndex += 1
                if case .null = event { return true }
                elementMachines[machine].startElement(ordinal: elementsIndex - 1)
            }
        }
        elementMachines[machine].follow(buffer: buffer, bufferOffset: bufferOffset, bufferCount: bufferCount, handle: handle,
                                        sliceOffset: sliceOffset, scriptedOffset: scriptedOffset, isKnownUTF8: recordIsKnownUTF8)
        // An element machine never asks to stop: its records are collected, and depth is this machine's to check.
        switch event {
        case .startMap: _ = elementMachines[machine].startMap()
        case .startArray: _ = elementMachines[machine].startArray()
        case .end: _ = elementMachines[machine].endContainer()
        case .null: _ = elementMachines[machine].null()
        case .key(let bytes, let length): _ = elementMachines[machine].key(bytes, length)
        case .string(let bytes, let length): _ = elementMachines[machine].string(bytes, length)
        case .number(let bytes, let length): _ = elementMachines[machine].number(bytes, length)
        case .bool(let value): _ = elementMachines[machine].bool(value)
        }
        if endsElement, let batch = elementMachines[machine].elementBatch, batch.rejections.count > elementsRejectionsBefore {
            feedsElements = false
        }
        return true
    }

    /// The array closed: its row holds where its elements lie, or which of them failed.
    mutating func finishElements() {
        if let batch = elementMachines[elementsMachine].elementBatch {
            let end = elementMachines[elementsMachine].row
            batch.count = end
            let failure = batch.rejections.count > elementsRejectionsBefore ? elementsRejectionsBefore : nil
            ElementRows.write(batch, rows: elementsStart..<end, failure: failure, into: columns + elementsColumn, row: row)
        }
        elementsColumn = -1
        feedsElements = false
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

    /// An element machine: the token about to be delivered is where its record's machine is.
    private mutating func follow(
        buffer: UnsafePointer<UInt8>?, bufferOffset: Int, bufferCount: Int, handle: yajl_handle?, sliceOffset: Int, scriptedOffset: Int,
        isKnownUTF8: Bool
    ) {
        self.buffer = buffer
        self.bufferOffset = bufferOffset
        self.bufferCount = bufferCount
        self.handle = handle
        self.sliceOffset = sliceOffset
        self.scriptedOffset = scriptedOffset
        recordIsKnownUTF8 = isKnownUTF8
    }

    /// An element machine: keeps the element's row; its batch grows when full, since all of a batch's records'
    /// elements go into it. The rows of a record rejected or abandoned later are not taken back: no array's row
    /// names them, and the batch they fill is emptied with the record's batch, which rejections fill too.
    mutating func commitElement(into batch: ColumnarBatch, _ location: RecordLocation) {
        batch.ordinals[row] = location.ordinal
        mappedCount += 1
        row += 1
        if row == batch.capacity { batch.grow(keeping: row) }
    }
}
