import CYajl

/// The event walk: events in (yajl's, or a test's scripted ones), frames of the containers the plan looks into,
/// values matched to their nodes and handed to the value writes, everything else skipped by counting depth.
extension RecordStateMachine {
    mutating func startMap() -> Bool {
        if skipDepth > 0 { return enterSkipped(isArray: false) }
        return startContainer(isArray: false)
    }

    mutating func startArray() -> Bool {
        if skipDepth > 0 { return enterSkipped(isArray: true) }
        return startContainer(isArray: true)
    }

    mutating func endMap() -> Bool { endContainer() }
    mutating func endArray() -> Bool { endContainer() }

    mutating func key(_ key: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        if skipDepth > 0 { return !feedsElements || feedElements(.key(key, length)) }
        let frame = frames + (frameCount - 1)
        let node = frame.pointee.node
        let position = frame.pointee.keyCount
        frame.pointee.keyCount = position + 1
        frame.pointee.pendingChild = match(key, length, at: node, position: position)
        return true
    }

    mutating func string(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        if skipDepth > 0 { return !feedsElements || feedElements(.string(bytes, length)) }
        return scalar(.string, bytes, length, false)
    }

    mutating func number(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        if skipDepth > 0 { return !feedsElements || feedElements(.number(bytes, length)) }
        return scalar(.number, bytes, length, false)
    }

    mutating func bool(_ value: Bool) -> Bool {
        if skipDepth > 0 { return !feedsElements || feedElements(.bool(value)) }
        return scalar(.bool, nil, 0, value)
    }

    mutating func null() -> Bool {
        if skipDepth > 0 { return !feedsElements || feedElements(.null) }
        return scalar(.null, nil, 0, false)
    }

    /// The trie node of the value that starts now, or one of the markers above.
    @inline(__always)
    private mutating func nodeForValue(isArrayStart: Bool) -> Int32 {
        if frameCount > 0 {
            let frame = frames + (frameCount - 1)
            if frame.pointee.isArray {
                let index = frame.pointee.nextIndex
                frame.pointee.nextIndex = index + 1
                if frame.pointee.readsByHeader { return headerNode(index) }
                return plan.lookupIndex(node: nodes[Int(frame.pointee.node)], index: index)
            }
            let child = frame.pointee.pendingChild
            frame.pointee.pendingChild = Self.unmapped
            return child
        }
        return beginRecordOrOuter(isArrayStart: isArrayStart)
    }

    /// Outside a record: either open the top-level array, or start a record at the plan's root.
    @inline(never)
    mutating func beginRecordOrOuter(isArrayStart: Bool) -> Int32 {
        if outerLevels > 0 && !outerOpen {
            if isArrayStart && !outerClosed {
                outerOpen = true
                boundary = offsetAfterToken()
                return Self.consumedByOuter
            }
            inRecord = true
            return fatal(Rejection.Failure(keyPath: "$", kind: .typeMismatch, expected: "a top-level array of records",
                                           found: isArrayStart ? "a second array" : "a value that is not an array", byteOffset: offsetAfterToken()))
        }
        if hasDeferredRecord {
            return fatal(Self.extraValueFailure(at: offsetAfterToken()))
        }
        // Rejections fill a batch as rows do, so that a stream of rejected records is handed on batch by batch
        // instead of held whole until enough records map. The batch is handed on when the next record starts,
        // never at a rejection that ends the run, which must stay with the batch it ends. A flag, not the batch's
        // count, is what every record tests: reaching into the batch costs hundreds of instructions a record.
        if batchNeedsCare {
            batchNeedsCare = false
            if batches.current.rejections.count >= batches.current.capacity {
                batches.completeCurrent(count: row)
                row = 0
            }
            columns = batches.current.columns
            if !elementMachines.isEmpty { bindElementBatches(of: batches.current) }
        }
        inRecord = true
        serial &+= 1
        if serial == 0 { restartSerials() }
        if recordsToSkip > 0 || readsHeader {
            isPassingOver = true
            if plan.keyNode >= 0 { _ = takeRecordKey() }
            return Self.unmapped
        }
        if plan.keyNode >= 0 { writeRecordKey() }
        return 0
    }

    /// The record's key: the one an abandoned record gave back, or the next.
    private mutating func takeRecordKey() -> [UInt8]? {
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

    private mutating func scalar(_ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) -> Bool {
        let node = nodeForValue(isArrayStart: false)
        if node >= 0 {
            writeScalar(node: node, kind, bytes, length, boolValue)
        } else if node == Self.mustStop {
            return false
        }
        if frameCount == 0 { return endRecord(end: min(offsetAfterToken(), scalarEndLimit)) }
        return true
    }

    @inline(__always)
    private mutating func startContainer(isArray: Bool) -> Bool {
        let nodeID = nodeForValue(isArrayStart: isArray)
        if nodeID == Self.consumedByOuter { return true }
        if nodeID == Self.mustStop { return false }
        if frameCount + outerLevels + 1 > maximumDepth { return tooDeep() }
        if nodeID < 0 { return beginSkip(captureNode: -1) }
        let node = nodes[Int(nodeID)]
        if isArray && node.elementMachine >= 0 && Int(node.elementMachine) < elementMachines.count {
            return beginElements(node: nodeID, machine: Int(node.elementMachine))
        }
        let fitsShape = checkContainer(node: nodeID, isArray: isArray)
        if !fitsShape { return beginSkip(captureNode: node.capturesJSON ? nodeID : -1) }
        var frame = Frame(node: nodeID, isArray: isArray)
        if isArray && nodeID == 0 && knowsHeader { frame.readsByHeader = true }
        if isArray && startsLists[Int(nodeID)] { startLists(at: nodeID) }
        if node.capturesJSON {
            frame.captureStart = offsetAfterToken() - 1
            openCaptures += 1
        }
        frames[frameCount] = frame
        frameCount += 1
        return true
    }

    /// Whether a container of this kind fits `node`, the plan looking into it; the fields that cannot take it fail
    /// (scalar fields there, and the fields beneath it when it does not fit). Both walks meet containers here.
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

    mutating func beginSkip(captureNode: Int32) -> Bool {
        skipDepth = 1
        skipCaptureNode = captureNode
        if captureNode >= 0 { skipCaptureStart = offsetAfterToken() - 1 }
        return true
    }

    private mutating func enterSkipped(isArray: Bool) -> Bool {
        skipDepth += 1
        if frameCount + skipDepth + outerLevels > maximumDepth { return tooDeep() }
        return !feedsElements || feedElements(isArray ? .startArray : .startMap)
    }

    @inline(__always)
    mutating func endContainer() -> Bool {
        if skipDepth > 0 {
            skipDepth -= 1
            if elementsColumn >= 0 {
                if skipDepth > 0 { return !feedsElements || feedElements(.end) }
                finishElements()
            }
            if skipDepth > 0 { return true }
            if skipCaptureNode >= 0 {
                capture(node: skipCaptureNode, from: skipCaptureStart, to: offsetAfterToken())
                skipCaptureNode = -1
            }
            if frameCount == 0 { return endRecord(end: offsetAfterToken()) }
            return true
        }
        if frameCount == 0 {
            // The closing bracket of the top-level array.
            outerOpen = false
            outerClosed = true
            boundary = offsetAfterToken()
            return true
        }
        frameCount -= 1
        let frame = frames[frameCount]
        if frame.captureStart >= 0 {
            openCaptures -= 1
            capture(node: frame.node, from: frame.captureStart, to: offsetAfterToken())
        }
        if frameCount == 0 { return endRecord(end: min(offsetAfterToken(), scalarEndLimit)) }
        return true
    }
}
