import Foundation

/// One value into the columns its node feeds: converted by column kind, through fallbacks, cleanups and
/// transforms where the field declares them, nulls and defaults, and captured json text.
extension RecordStateMachine {
    @inline(__always)
    mutating func writeScalar(node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        let node = nodes[Int(nodeID)]
        if node.scalarNeedsCare {
            // A null inside the record stands for everything beneath it being missing; a null record is not one.
            if node.hasChildren && (kind != .null || nodeID == 0) && !plan.feedsNoField[Int(nodeID)] {
                fail(node: nodeID, .typeMismatch, expected: node.expectsArray ? "an object or array" : "an object", kind, bytes, length, boolValue)
            }
            if node.hasSpecialTargets { return writeSpecialScalar(node: nodeID, kind, bytes, length, boolValue) }
        }
        var target = Int(node.targetStart)
        // Most nodes feed one column: no loop, whose invariants the compiler would set up for every value.
        if node.targetCount == 1 { return convert(column: Int(targets[target]), node: nodeID, kind, bytes, length, boolValue) }
        let end = target + Int(node.targetCount)
        while target < end {
            let column = Int(targets[target])
            target += 1
            convert(column: column, node: nodeID, kind, bytes, length, boolValue)
        }
    }

    /// Converts one scalar into one column by the column's type.
    @inline(__always)
    private mutating func convert(column: Int, node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        stamps[column] = serial
        if kind == .null {
            writeNull(column: column, node: nodeID)
            return
        }
        if kind == .string, let bytes, !isWellFormed(node: nodeID, bytes, length) { return }
        convertValue(column: column, into: columns + column, row: row, node: nodeID, kind, bytes, length, boolValue)
    }

    /// Converts a value that is not null by the column's type into `storage` at `row`: the column's own
    /// storage, or a list column's scratch for one element.
    @inline(__always)
    mutating func convertValue(
        column: Int, into storage: UnsafeMutablePointer<ColumnStorage>, row: Int, node nodeID: Int32, _ kind: ScalarKind,
        _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool
    ) {
        let value = ScalarValue(kind, bytes, length, boolValue)
        if let failure = ColumnDecoding.decode(columnTypes[column], value, conversion: plan.conversion(column), into: ColumnSlot(storage: storage, row: row)) {
            fail(node: nodeID, failure, column: column, kind, bytes, length, boolValue)
        }
    }

    /// A scalar at a node that a transformed or list column reads: transformed columns get what their transform
    /// makes of it, lists an element, the others the scalar itself.
    @inline(never)
    private mutating func writeSpecialScalar(node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        let node = nodes[Int(nodeID)]
        for target in Int(node.targetStart)..<Int(node.targetStart + node.targetCount) {
            let column = Int(targets[target])
            if plan.columnHasFallbacks[column] {
                writeFallback(column: column, rank: plan.targetRanks[target], node: nodeID, kind, bytes, length, boolValue)
            } else if plan.columnIsCleaned[column] {
                writeCleaned(column: column, node: nodeID, kind, bytes, length, boolValue)
            } else {
                writeSpecial(column: column, node: nodeID, kind, bytes, length, boolValue)
            }
        }
    }

    /// A scalar at one of the paths of a column with fallbacks: written unless it is null or a path before it has
    /// given the record a value, and then the failures of a value from a later path are withdrawn.
    @inline(never)
    private mutating func writeFallback(
        column: Int, rank: Int32, node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool
    ) {
        guard kind != .null else { return }
        let given = fallbackValues[column]
        let hadValue = given.serial == serial
        // The same path again (a duplicate key) replaces what it gave, as it would without fallbacks.
        if hadValue && given.rank < rank { return }
        let failuresBefore = failures.count
        fallbackValueWasNull = false
        if plan.columnIsCleaned[column] {
            writeCleaned(column: column, node: nodeID, kind, bytes, length, boolValue)
        } else {
            convert(column: column, node: nodeID, kind, bytes, length, boolValue)
        }
        if fallbackValueWasNull { return }
        if hadValue && !given.failures.isEmpty { withdrawnFailures.append(given.failures) }
        fallbackValues[column] = FallbackValue(serial: serial, rank: rank, failures: failuresBefore..<failures.count)
    }

    /// What a required column that nothing gave a value found: no value, at its path or at any of its fallbacks.
    func missingValue(column: Int) -> String {
        guard plan.columnHasFallbacks[column] else { return "no value" }
        return "no value, nor at " + plan.fields[column].fallbackPaths.map { "$." + $0 }.joined(separator: ", ")
    }

    /// Forgets the record's failures, and with them those a fallback withdrew.
    mutating func clearFailures() {
        failures.removeAll()
        if !withdrawnFailures.isEmpty { withdrawnFailures.removeAll() }
    }

    /// The value one of a column's paths gave a record: the path's rank, and the failures the value made, withdrawn
    /// if a path before it gives one. Its own serial, not `stamps`, which other rules set too (a container where
    /// the column reads a scalar), says which record it belongs to.
    struct FallbackValue {
        var serial: UInt32 = 0
        var rank: Int32 = 0
        var failures: Range<Int> = 0..<0
    }

    /// Takes out the failures of values that a path before theirs replaced.
    @inline(never)
    mutating func removeWithdrawnFailures() {
        for range in withdrawnFailures.sorted(by: { $0.lowerBound > $1.lowerBound }) { failures.removeSubrange(range) }
        withdrawnFailures.removeAll()
    }

    /// A scalar for a column with null spellings or cleanups: what they make of it goes on as the input would
    /// have. A failure to convert a value they made null names the value they read.
    @inline(never)
    private mutating func writeCleaned(column: Int, node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        // Read in place: a copy of the compiled cleanups would retain their tables for every value.
        let conversion = plan.conversion(column)
        var isSpelledNull = false
        switch kind {
        case .string: isSpelledNull = bytes.map { conversion.pointee.cleaning?.nullSpellings?.matchesString($0, length) ?? false } ?? false
        case .number: isSpelledNull = bytes.map { conversion.pointee.cleaning?.nullSpellings?.matchesNumber($0, length) ?? false } ?? false
        case .bool: isSpelledNull = conversion.pointee.cleaning?.nullSpellings?.matchesBool(boolValue) ?? false
        case .null: break
        }
        guard !isSpelledNull else { return writeCleanedOutcome(.null, column: column, node: nodeID, kind, bytes, length, boolValue) }
        guard kind == .string, conversion.pointee.cleaning?.hasSteps == true, let bytes else {
            return writeSpecial(column: column, node: nodeID, kind, bytes, length, boolValue)
        }
        if !isWellFormed(node: nodeID, bytes, length) { return }
        let scratch = cleanupScratch ?? CleanupScratch()
        cleanupScratch = scratch
        conversion.pointee.cleaning?.clean(bytes, length, scratch: scratch) { outcome in
            writeCleanedOutcome(outcome, column: column, node: nodeID, kind, bytes, length, boolValue)
        }
    }

    /// What null spellings and cleanups made of a value (or of one piece of a split value), written as the input
    /// would have been; the original value is what rejections show.
    private mutating func writeCleanedOutcome(
        _ outcome: CompiledCleanups.Outcome, column: Int, node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool
    ) {
        let failuresBefore = failures.count
        switch outcome {
        case .string(let text, let count): writeSpecial(column: column, node: nodeID, .string, text, count, false)
        case .number(let text, let count): writeSpecial(column: column, node: nodeID, .number, text, count, false)
        case .null:
            if plan.columnHasFallbacks[column] {
                fallbackValueWasNull = true
                return
            }
            writeSpecial(column: column, node: nodeID, .null, nil, 0, false)
            if failures.count > failuresBefore {
                fail(node: nodeID, failures[failuresBefore].kind, expected: failures[failuresBefore].expected, kind, bytes, length, boolValue)
                failures[failuresBefore].found = failures.removeLast().found + " (read as null)"
            }
        case .failed(let expected):
            stamps[column] = serial
            fail(node: nodeID, .typeMismatch, expected: expected, kind, bytes, length, boolValue)
        case .listStarts:
            if columnIsList[column] { startList(column: column) }
        }
    }

    /// One column of a node with special targets: a transform's result, a list's element, or the plain conversion.
    private mutating func writeSpecial(column: Int, node nodeID: Int32, _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, _ boolValue: Bool) {
        guard columnIsTransformed[column] else {
            if columnIsList[column] {
                appendListElement(column: column, node: nodeID, kind, bytes, length, boolValue)
            } else {
                convert(column: column, node: nodeID, kind, bytes, length, boolValue)
            }
            return
        }
        // Decoding would replace ill-formed UTF-8 without a word: it is rejected first.
        if kind == .string, let bytes, !isWellFormed(node: nodeID, bytes, length) { return }
        let text = { String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self) }
        let value: JSONValue = switch kind {
        case .string: .string(text())
        case .number: .number(text())
        case .bool: .bool(boolValue)
        case .null: .null
        }
        writeTransformed(value, column: column, node: nodeID)
    }

    /// Runs a column's transform and converts its result by the column's type; nil converts as `null` does.
    @inline(never)
    private mutating func writeTransformed(_ value: JSONValue, column: Int, node nodeID: Int32) {
        stamps[column] = serial
        guard let transform = plan.conversion(column).pointee.transform else { return }
        let result: JSONValue?
        do {
            result = try transform.body(value)
        } catch {
            failures.append(Rejection.Failure(keyPath: plan.displayPaths[Int(nodeID)], kind: .custom, expected: transform.description, found: "\(error)"))
            return
        }
        switch result ?? .null {
        case .null:
            convert(column: column, node: nodeID, .null, nil, 0, false)
        case .bool(let flag):
            convert(column: column, node: nodeID, .bool, nil, 0, flag)
        case .string(var text):
            text.withUTF8 { convert(column: column, node: nodeID, .string, $0.baseAddress ?? emptyBytes, $0.count, false) }
        case .number(var text):
            let isNumber = !text.hasPrefix("+") && text.withUTF8 { NumberConversion.isNumberText($0.baseAddress ?? emptyBytes, $0.count) }
            guard isNumber else {
                failures.append(Rejection.Failure(keyPath: plan.displayPaths[Int(nodeID)], kind: .custom, expected: transform.description, found: "it returned .number(\"\(text)\"), which is not a JSON number"))
                return
            }
            text.withUTF8 { convert(column: column, node: nodeID, .number, $0.baseAddress ?? emptyBytes, $0.count, false) }
        case .object(json: var text), .array(json: var text):
            guard columnTypes[column].keepsJSONText else {
                let found = text.hasPrefix("[") ? ValueDescription.array : ValueDescription.object
                failures.append(Rejection.Failure(keyPath: plan.displayPaths[Int(nodeID)], kind: .typeMismatch, expected: columnTypes[column].description, found: found))
                return
            }
            text.withUTF8 { columns[column].writeText($0.baseAddress ?? emptyBytes, count: $0.count, row: row) }
        }
    }

    /// JSON null: null for an optional field; otherwise the default, or a rejection. An enum's default also
    /// covers null, optional or not. A json column that keeps null's text holds `null`.
    private mutating func writeNull(column: Int, node nodeID: Int32) {
        let storage = columns + column
        if columnTypes[column].keepsJSONText && plan.conversion(column).pointee.keepsNullText {
            _ = JSONScalarDecoder.decode(ScalarValue(.null, nil, 0, false), into: ColumnSlot(storage: storage, row: row))
            return
        }
        let isOptional = columnIsOptional[column]
        if columnHasDefault[column] && (!isOptional || columnTypes[column].holdsListedValues),
           let defaultValue = plan.conversion(column).pointee.defaultValue {
            storage.pointee.write(defaultValue, row: row)
            return
        }
        storage.pointee.setNull(row: row)
        if !isOptional {
            fail(node: nodeID, .null, expected: plan.fields[column].shownTypeName, .null, nil, 0, false)
        }
    }

    /// A container the matched walk checked whole at a node json fields read (and walked, where fields beneath
    /// it read its values): the mismatches the container makes at the node, then its text captured.
    mutating func captureMatched(node nodeID: Int32, from start: Int, to end: Int, isArray: Bool) {
        checkContainer(node: nodeID, isArray: isArray)
        capture(node: nodeID, from: start, to: end)
    }

    /// Writes the input text of `[start, end)` into the node's json columns.
    mutating func capture(node nodeID: Int32, from start: Int, to end: Int) {
        let node = nodes[Int(nodeID)]
        guard let buffer else { return }
        // Keys and strings inside a captured value are written as they stand: checked once, here.
        guard isWellFormed(node: nodeID, buffer + (start - bufferOffset), end - start) else {
            // Seen, so not also missing (a list opened, so that it closes whole).
            for target in Int(node.targetStart)..<Int(node.targetStart + node.targetCount) {
                let column = Int(targets[target])
                if columnIsList[column] { startList(column: column) } else { stamps[column] = serial }
            }
            return
        }
        for target in Int(node.targetStart)..<Int(node.targetStart + node.targetCount) {
            let column = Int(targets[target])
            if columnIsList[column] {
                if columnTypes[column].keepsJSONText { appendListText(column: column, UnsafeBufferPointer(start: buffer + (start - bufferOffset), count: end - start)) }
                continue
            }
            if columnIsTransformed[column] {
                if let value = JSONValue(jsonText: UnsafeBufferPointer(start: buffer + (start - bufferOffset), count: end - start)) {
                    writeTransformed(value, column: column, node: nodeID)
                }
                continue
            }
            guard columnTypes[column].keepsJSONText else { continue }
            stamps[column] = serial
            columns[column].writeText(buffer + (start - bufferOffset), count: end - start, row: row)
        }
    }
}
