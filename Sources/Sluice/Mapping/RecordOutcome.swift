/// The end of a record: required fields, validators, then commit into the batch or reject with its failures;
/// where it lies in the input; and taking back a record that is rejected or abandoned part way.
extension RecordStateMachine {
    mutating func endRecord(end: Int) -> Bool {
        inRecord = false
        if defersFinish {
            hasDeferredRecord = true
            deferredEnd = end
            return true
        }
        return finishRecord(end: end)
    }

    /// Completes the record held back by ``defersFinish``, now that what follows it is known to be clean.
    mutating func finishDeferredRecord() -> Bool {
        guard hasDeferredRecord else { return true }
        hasDeferredRecord = false
        return finishRecord(end: deferredEnd)
    }

    private mutating func finishRecord(end: Int) -> Bool {
        if isPassingOver { return finishPassingOver(end: end) }
        if listScratch != nil { closeLists() }
        let location = locateRecord(end: end)
        if knownRecordStart == nil && sizeLimit.isExceeded(from: location.byteOffset, to: end) {
            return rejectOversized(location: location)
        }
        if !withdrawnFailures.isEmpty { removeWithdrawnFailures() }
        if !plan.childTableColumns.isEmpty { checkChildTables() }
        for column in requiredColumns where stamps[column] != serial {
            failures.append(Rejection.Failure(keyPath: columnPaths[column], kind: .missing, expected: plan.fields[column].shownTypeName, found: missingValue(column: column)))
        }
        if !plan.validators.isEmpty { validateRecord() }
        if failures.isEmpty {
            commit(location, end: end)
            return true
        }
        return reject(location: location, end: end, failures: failures)
    }

    /// The bytes of the record at `location` up to `end`, when the buffer still holds them.
    func recordText(location: RecordLocation, end: Int) -> [UInt8] {
        guard let buffer, end > location.byteOffset, location.byteOffset >= bufferOffset else { return [] }
        return Array(UnsafeBufferPointer(start: buffer + (location.byteOffset - bufferOffset), count: end - location.byteOffset))
    }

    /// Runs the plan's validators on the row; defaults count as values, so they are validated too.
    @inline(never)
    private mutating func validateRecord() {
        for index in 0..<plan.validators.count {
            let validator = plan.validatorTable + index
            let column = validator.pointee.column
            if stamps[column] != serial && columnHasDefault[column], let defaultValue = plan.conversion(column).pointee.defaultValue {
                columns[column].write(defaultValue, row: row)
                stamps[column] = serial
                defaultedStamps[column] = serial
            }
            let verdict = validator.pointee.verdict(columns[column], row: row)
            guard verdict != .passes else { continue }
            var found = ValueDescription.null
            if columns[column].isValid(row) {
                found = columns[column].type.holdsExactDecimals ? columns[column].describedValue(row) : Self.describe(columns[column].fieldValue(row))
            }
            if verdict == .gaveUp { found += " (the pattern gave up after \(PatternMatcher.stepLimit) matching steps)" }
            failures.append(Rejection.Failure(keyPath: columnPaths[column], kind: .validation, expected: validator.pointee.label, found: found))
        }
    }

    private static func describe(_ value: FieldValue) -> String {
        switch value {
        case .string(let text): return Array(text.utf8).withUnsafeBufferPointer { ValueDescription.string($0) }
        case .bytes(let bytes): return "bytes " + bytes.withUnsafeBufferPointer { Base64.encode(UnsafeBufferPointer(rebasing: $0.prefix(48))) }
        default: return value.description
        }
    }

    private mutating func commit(_ location: RecordLocation, end: Int) {
        for column in 0..<columnCount where stamps[column] != serial {
            if columnHasDefault[column], let defaultValue = plan.conversion(column).pointee.defaultValue {
                columns[column].write(defaultValue, row: row)
            } else {
                columns[column].setNull(row: row)
            }
        }
        if let elementBatch {
            commitElement(into: elementBatch, location)
            return
        }
        let batch = batches.current
        if let recordText = batch.recordText {
            recordText.pointee.beginText(row: row)
            if let buffer, end > location.byteOffset, location.byteOffset >= bufferOffset {
                recordText.pointee.appendText(buffer + (location.byteOffset - bufferOffset), count: end - location.byteOffset)
            }
            recordText.pointee.endText(row: row)
        }
        batch.ordinals[row] = location.ordinal
        batch.lines[row] = location.line
        batch.byteOffsets[row] = location.byteOffset
        mappedCount += 1
        row += 1
        if row == batch.capacity || stagedRows?.pointee.batchIsFull == true {
            batches.completeCurrent(count: row)
            batchNeedsCare = true
            row = 0
        }
    }

    mutating func locateRecord(end: Int) -> RecordLocation {
        ordinal += 1
        if let start = knownRecordStart {
            return RecordLocation(ordinal: ordinal, line: knownRecordLine, byteOffset: start)
        }
        var start = boundary
        if let buffer {
            while start < end {
                let byte = buffer[start - bufferOffset]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == UInt8(ascii: ",") else { break }
                start += 1
            }
            if start > lineCountedTo {
                line += NewlineCounter.count(in: UnsafeBufferPointer(start: buffer + (lineCountedTo - bufferOffset), count: start - lineCountedTo))
                lineCountedTo = start
            }
        }
        boundary = end
        return RecordLocation(ordinal: ordinal, line: line, byteOffset: start)
    }

    @inline(never)
    private mutating func reject(location: RecordLocation, end: Int, failures recorded: [Rejection.Failure], truncatedText: Bool = false) -> Bool {
        takeBackValuesOfRecord()
        if let elementBatch {
            elementBatch.rejections.append(Rejection(location: location, failures: recorded, rawText: []))
            clearFailures()
            rejectedCount += 1
            return true
        }
        let rejection = Rejection(location: location, failures: recorded, rawText: recordText(location: location, end: end),
                                  isRawTextTruncated: truncatedText)
        clearFailures()
        rejectedCount += 1
        batches.current.rejections.append(rejection)
        // A rejected record's staged rows stay in the batch until it is emptied, so they count towards handing it on.
        if batches.current.rejections.count >= batches.current.capacity || stagedRows?.pointee.batchIsFull == true { batchNeedsCare = true }
        if stopsAtFirstRejection {
            stoppingRejection = rejection
            return false
        }
        return true
    }

    /// A record over the size limit, whether the limit was noticed while a document was read
    /// (``rejectOversizedRecordInProgress(end:)``) or once the record was whole (see ``RecordSizeLimit``).
    @inline(never)
    private mutating func rejectOversized(location: RecordLocation) -> Bool {
        failures = [sizeLimit.failure(at: location.byteOffset, found: "a longer record")]
        _ = reject(location: location, end: sizeLimit.shownEnd(from: location.byteOffset), failures: failures, truncatedText: true)
        endingRejection = batches.lastRejectionInCurrent
        stoppingRejection = nil
        return false
    }

    /// A document read so far holds more than the size limit.
    mutating func rejectOversizedRecordInProgress(end: Int) {
        let location = locateRecord(end: end)
        _ = rejectOversized(location: location)
    }

    /// Counts the lines up to `offset` (at most the boundary), while the bytes before it are still held.
    mutating func countLines(upTo offset: Int) {
        guard let buffer, offset > lineCountedTo, lineCountedTo >= bufferOffset else { return }
        line += NewlineCounter.count(in: UnsafeBufferPointer(start: buffer + (lineCountedTo - bufferOffset), count: offset - lineCountedTo))
        lineCountedTo = offset
    }

    /// Line feeds counted so far (up to the last record's start, or where ``countLines(upTo:)`` was asked).
    var linesCounted: Int { line - 1 }

    // MARK: - Failures

    /// A value that did not convert into `column`: its failure, in the words of the column's field.
    @inline(never)
    mutating func fail(node: Int32, _ failure: DecodeFailure, column: Int, _ found: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        fail(node: node, failure.kind, expected: failure.expected(for: plan.fields[column]), found, bytes, length, boolValue)
    }

    @inline(never)
    mutating func fail(node: Int32, _ kind: Rejection.Kind, expected: String, _ found: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        let description: String
        switch found {
        case .string: description = ValueDescription.string(UnsafeBufferPointer(start: bytes, count: length))
        case .number: description = ValueDescription.number(UnsafeBufferPointer(start: bytes, count: length))
        case .bool: description = ValueDescription.bool(boolValue)
        case .null: description = ValueDescription.null
        }
        failures.append(Rejection.Failure(keyPath: plan.displayPaths[Int(node)], kind: kind, expected: expected, found: description))
    }

    /// Whether mapped text is well-formed UTF-8; if not, the record's failure, naming the node's key path.
    @inline(__always)
    mutating func isWellFormed(node: Int32, _ bytes: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        if recordIsKnownUTF8 { return true }
        guard let offset = UTF8Validation.firstInvalidOffset(bytes, length) else { return true }
        failures.append(Rejection.Failure(keyPath: plan.displayPaths[Int(node)], kind: .invalidUTF8, expected: "well-formed UTF-8",
                                          found: UTF8Validation.describe(bytes, length, at: offset)))
        return false
    }

    /// A container opening past ``maximumDepth``, just before absolute `offset`.
    func tooDeepFailure(at offset: Int) -> Rejection.Failure {
        Rejection.Failure(keyPath: "$", kind: .nestingTooDeep, expected: "at most \(maximumDepth + hiddenOuterLevels) levels of nesting",
                          found: "deeper nesting", byteOffset: offset)
    }

    /// A second value on a record's line, whose first token ends at absolute `offset`.
    static func extraValueFailure(at offset: Int) -> Rejection.Failure {
        Rejection.Failure(keyPath: "$", kind: .extraValue, expected: "one JSON value per line", found: "another value after it", byteOffset: offset)
    }

    /// Rejects the record in progress (or, between records, the bytes where one should have been) for a problem
    /// its reading could not go on from, adding `failure` to what the record already collected. `end` is where
    /// the record's text ends. Returns `false` when the rejection policy says stop.
    mutating func rejectRecordInProgress(_ failure: Rejection.Failure?, end: Int, rawTextIsTruncated: Bool = false) -> Bool {
        if readsHeader && recordsToSkip == 0 && (isPassingOver || !inRecord) {
            // A header that is not even JSON (not even its first token) fails as any other header that names no
            // columns.
            let location = locateRecord(end: end)
            ordinal -= 1
            clearFailures()
            isPassingOver = false
            leaveRecord()
            return failHeader(location: location, text: recordText(location: location, end: end))
        }
        if let failure { failures.append(failure) }
        let location = locateRecord(end: end)
        let keepGoing = reject(location: location, end: end, failures: failures, truncatedText: rawTextIsTruncated)
        leaveRecord()
        return keepGoing
    }

    /// Rejects a record the walks found reading more values than a tape holds (``RecordValueLimit``), which never
    /// reached the machine: it uses up its `$key`, as a record read does, and shows its first bytes only, as one over
    /// the size limit does. `end` is where its text ends. Returns `false` when the rejection policy says stop.
    mutating func rejectReadingTooManyValues(end: Int) -> Bool {
        if readsHeader && recordsToSkip == 0 && (isPassingOver || !inRecord) { return rejectRecordInProgress(valueLimit.failure, end: end) }
        if plan.keyNode >= 0 { _ = takeRecordKey() }
        failures.append(valueLimit.failure)
        let location = locateRecord(end: end)
        let shown = min(end, sizeLimit.shownEnd(from: location.byteOffset))
        let keepGoing = reject(location: location, end: shown, failures: failures, truncatedText: shown < end)
        leaveRecord()
        return keepGoing
    }

    /// Nulls the values the record in progress wrote. Between records the stamps still name the last record's
    /// columns. While ``batchNeedsCare`` is set no record has started since it was set, so there is nothing to
    /// take back, and the columns in hand may be those of a batch already handed on, which must not be touched.
    private mutating func takeBackValuesOfRecord() {
        guard !batchNeedsCare else { return }
        for column in 0..<columnCount where stamps[column] == serial { columns[column].setNull(row: row) }
    }

    /// Leaves the record in progress: no record waiting, and a new serial so that no column counts as given by it.
    mutating func leaveRecord(mayWriteBatch: Bool = true) {
        if elementsColumn >= 0 {
            // A batch handed on is the consumer's: its element rows are not touched.
            if mayWriteBatch && !batchNeedsCare {
                elementMachines[elementsMachine].abandonRecordInProgress()
            } else {
                elementMachines[elementsMachine].clearFailures()
                elementMachines[elementsMachine].leaveRecord(mayWriteBatch: false)
            }
            elementsColumn = -1
            feedsElements = false
        }
        inRecord = false
        hasDeferredRecord = false
        serial &+= 1
    }

    /// Forgets the record in progress (or finished and waiting) as if it had never begun, so that another
    /// tokenizer can read the same bytes again: its values are taken back, its `$key` is given back, it gets no
    /// ordinal and no rejection. Unmapped keys it showed stay counted, and transforms that ran stay run.
    mutating func abandonRecordInProgress() {
        guard inRecord || hasDeferredRecord else { return }
        if plan.keyNode >= 0 { abandonedRecordKey = recordKeyInProgress }
        takeBackValuesOfRecord()
        clearFailures()
        isPassingOver = false
        leaveRecord()
    }
}
