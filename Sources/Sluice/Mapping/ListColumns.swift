/// List columns: a record's elements appended as a JSON array, opened at the array's node and closed at the record's end.
extension RecordStateMachine {
    /// Opens the record's list for `column` (`[`), unless it is open already.
    mutating func startList(column: Int) {
        guard stamps[column] != serial else { return }
        stamps[column] = serial
        columns[column].beginText(row: row)
        columns[column].appendText(byte: UInt8(ascii: "["))
        if columnIsUniqueList[column], let ordinal = listOrdinals?[column] { listSeen[Int(ordinal)].removeAll(keepingCapacity: true) }
    }

    /// The lists whose array starts at `nodeID`: an empty array gives `[]`, not a missing value.
    @inline(never)
    mutating func startLists(at nodeID: Int32) {
        for (ordinal, arrayNode) in listArrayNodeTable.enumerated() where arrayNode == nodeID {
            startList(column: listColumnTable[ordinal])
        }
    }

    /// Converts one element by the list's type and appends it as JSON; nulls are dropped, and an element that
    /// does not convert fails the record like any value.
    mutating func appendListElement(column: Int, node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        guard kind != .null, let listScratch, let ordinal = listOrdinals?[column] else { return }
        if kind == .string, let bytes, !isWellFormed(node: nodeID, bytes, length) { return }
        startList(column: column)
        if columnTypes[column].keepsScalarText, kind == .string || kind == .number, let bytes {
            // Text that a string list takes as it is (the string conversion's own rule) needs no scratch.
            let mark = beginListElement(column: column)
            columns[column].appendJSONString(UnsafeBufferPointer(start: bytes, count: length))
            endListElement(column: column, from: mark)
            return
        }
        let scratch = listScratch + Int(ordinal)
        scratch.pointee.reset()
        let failuresBefore = failures.count
        convertValue(column: column, into: scratch, row: 0, node: nodeID, kind, bytes, length, boolValue)
        guard failures.count == failuresBefore, scratch.pointee.isValid(0) else { return }
        let mark = beginListElement(column: column)
        ListElementText.append(scratch.pointee, type: columnTypes[column], to: columns + column)
        endListElement(column: column, from: mark)
    }

    /// Appends an element's JSON text as it stands in the input (json lists).
    mutating func appendListText(column: Int, _ element: UnsafeBufferPointer<UInt8>) {
        startList(column: column)
        let mark = beginListElement(column: column)
        if let base = element.baseAddress { columns[column].appendText(base, count: element.count) }
        endListElement(column: column, from: mark)
    }

    /// Writes the comma before an element unless it is the first; returns where the element's bytes start.
    private mutating func beginListElement(column: Int) -> (beforeComma: Int, element: Int) {
        let storage = columns + column
        let beforeComma = storage.pointee.byteCount
        if beforeComma > storage.pointee.offsets[row] + 1 { storage.pointee.appendText(byte: UInt8(ascii: ",")) }
        return (beforeComma, storage.pointee.byteCount)
    }

    /// A unique list keeps only the first of equal elements: a repeated one is taken back out.
    private mutating func endListElement(column: Int, from mark: (beforeComma: Int, element: Int)) {
        guard columnIsUniqueList[column], let ordinal = listOrdinals?[column] else { return }
        let storage = columns + column
        let element = Array(UnsafeBufferPointer(start: storage.pointee.bytes + mark.element, count: storage.pointee.byteCount - mark.element))
        if !listSeen[Int(ordinal)].insert(element).inserted { storage.pointee.truncateText(to: mark.beforeComma) }
    }

    /// Closes the record's open lists (`]`), before validators and the commit look at them.
    @inline(never)
    mutating func closeLists() {
        for column in listColumnTable where stamps[column] == serial {
            columns[column].appendText(byte: UInt8(ascii: "]"))
            columns[column].endText(row: row)
        }
    }
}
