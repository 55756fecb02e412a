import Foundation

/// Writes mapped records back to JSON through their mapping, so that a record mapped in and encoded out maps to
/// the same values again.
///
/// Key paths become nested objects again (`user.name` → `{"user":{"name":…}}`); a decimal segment up to 1024
/// becomes an array index (`media.0.url` → `{"media":[{"url":…}]}`, earlier elements `null`), a larger one an
/// object key. Null values are left out, and so are objects and arrays that would hold nothing. Dates are written
/// in the field's first format (a pattern, or RFC 3339 in UTC for `iso8601`); enums as the JSON value their
/// stored value came from; bytes as base64; json fields as their text. Lists become arrays again, element by
/// element (`media.*.url` and `media.*.size` → `{"media":[{"url":…,"size":…},…]}`), each element in its field's
/// form. Transformed fields are left out: a transform has no way back; so are child tables, whose rows are
/// another table's.
struct RecordEncoder: Sendable {
    private final class Node: @unchecked Sendable {
        var keys: [(name: [UInt8], node: Node)] = []
        // Where each key sits in `keys`, so that a mapping of many thousand fields is set up in linear time.
        private var keyPositions: [[UInt8]: Int] = [:]
        var indexes: [(index: Int, node: Node)] = []
        /// `*`: the elements of a list.
        var everyElement: Node?
        var column: Int?

        func childForEveryElement() -> Node {
            if let everyElement { return everyElement }
            let node = Node()
            everyElement = node
            return node
        }

        /// The list columns at and beneath this node.
        var listColumns: [Int] {
            (column.map { [$0] } ?? []) + keys.flatMap(\.node.listColumns) + indexes.flatMap(\.node.listColumns)
                + (everyElement?.listColumns ?? [])
        }

        func child(key: [UInt8]) -> Node {
            if let position = keyPositions[key] { return keys[position].node }
            let node = Node()
            keyPositions[key] = keys.count
            keys.append((key, node))
            return node
        }

        func child(index: Int) -> Node {
            if let existing = indexes.first(where: { $0.index == index }) { return existing.node }
            let node = Node()
            indexes.append((index, node))
            indexes.sort { $0.index < $1.index }
            return node
        }
    }

    private let root: Node
    private let types: [FieldType]
    /// Per date column, how its dates are written: in the field's first format, so that they read again.
    private let dateForms: [DateForm?]

    private enum DateForm {
        case rfc3339
        case pattern([DatePatternToken])
        /// A JSON number in this unit.
        case epoch(EpochUnit)

        init?(_ field: FieldSpec) {
            guard field.type.holdsPointsInTime else { return nil }
            switch field.dateFormats.first {
            case .epoch?: self = .epoch(field.epochUnit)
            case .pattern(let pattern)?: self = (try? DatePatternToken.compile(pattern)).map(DateForm.pattern) ?? .rfc3339
            case .rfc2822?: self = (try? DatePatternToken.compile("EEE, dd MMM yyyy HH:mm:ss Z")).map(DateForm.pattern) ?? .rfc3339
            case .iso8601?, nil: self = .rfc3339
            }
        }

        /// The instant in this form, as JSON text.
        func write(_ nanoseconds: Int64, to output: inout [UInt8]) {
            switch self {
            case .epoch(let unit):
                output.append(contentsOf: Array(Self.decimal(nanoseconds, exponent: unit.nanosecondExponent).utf8))
            case .pattern(let tokens):
                Array(DatePatternFormatter.format(nanoseconds, tokens).utf8).withUnsafeBufferPointer { JSONText.appendStringLiteral($0, to: &output) }
            case .rfc3339:
                Array(DateText.rfc3339(nanoseconds).utf8).withUnsafeBufferPointer { JSONText.appendStringLiteral($0, to: &output) }
            }
        }

        /// `value` / 10^`exponent`, exactly: `1409444955.5`.
        static func decimal(_ value: Int64, exponent: Int) -> String {
            guard exponent > 0 else { return String(value) }
            var scale: UInt64 = 1
            for _ in 0..<exponent { scale *= 10 }
            let magnitude = value.magnitude
            var fraction = String(magnitude % scale)
            fraction = String(repeating: "0", count: exponent - fraction.count) + fraction
            while fraction.last == "0" { fraction.removeLast() }
            return (value < 0 ? "-" : "") + String(magnitude / scale) + (fraction.isEmpty ? "" : "." + fraction)
        }
    }
    /// Per enum column: stored value → the JSON value text it came from.
    private let enumJSON: [[String: String]]
    private let isList: [Bool]
    /// Reads back the RFC 3339 text that date lists hold.
    private let rfc3339 = try? DateParser(unit: .seconds, formats: [.iso8601])

    init(plan: CompiledPlan) {
        let root = Node()
        // A transform has no way back: its fields are not written. A child table's rows are not the record's.
        for (column, field) in plan.fields.enumerated() where field.transform == nil && field.childTable == nil {
            guard let path = try? FieldPath(parsing: field.resolvedPath(naming: nil)) else { continue }
            var node = root
            for segment in path.segments {
                if segment.isEveryElement {
                    node = node.childForEveryElement()
                } else if let index = segment.index, index <= 1024 {
                    node = node.child(index: index)
                } else {
                    node = node.child(key: segment.key)
                }
            }
            if node.column == nil { node.column = column }
        }
        self.root = root
        types = plan.fields.map(\.type)
        isList = plan.fields.map(\.isList)
        dateForms = plan.fields.map(DateForm.init)
        enumJSON = plan.fields.map { field in
            var reverse: [String: String] = [:]
            for entry in field.enumValues where reverse[entry.value] == nil { reverse[entry.value] = entry.json }
            return reverse
        }
    }

    /// What one record's encoding looks at: its batch and row, the element of the lists being written (inside
    /// a `*`), and the lists' elements, split once.
    private struct Cursor {
        let batch: ColumnarBatch
        let row: Int
        var element: Int?
        var lists: [Int: [[UInt8]]] = [:]

        mutating func elements(of column: Int) -> [[UInt8]] {
            if let known = lists[column] { return known }
            let storage = batch.columns[column]
            let split = storage.isValid(row) ? JSONText.arrayElements(storage.textBytes(row)) : []
            lists[column] = split
            return split
        }
    }

    /// The JSON text of `row` of `batch`.
    func encode(_ batch: ColumnarBatch, row: Int) -> [UInt8] {
        var output: [UInt8] = []
        var cursor = Cursor(batch: batch, row: row)
        if !write(root, &cursor, &output) { output.append(contentsOf: Array("{}".utf8)) }
        return output
    }

    private func hasValue(_ node: Node, _ cursor: inout Cursor) -> Bool {
        if let column = node.column {
            if isList[column] {
                if let element = cursor.element, element < cursor.elements(of: column).count { return true }
            } else if cursor.batch.columns[column].isValid(cursor.row) {
                return true
            }
        }
        if let list = node.everyElement, list.listColumns.contains(where: { cursor.batch.columns[$0].isValid(cursor.row) }) { return true }
        return node.keys.contains { hasValue($0.node, &cursor) } || node.indexes.contains { hasValue($0.node, &cursor) }
    }

    /// Writes the node's value; false (writing nothing) when it holds none.
    private func write(_ node: Node, _ cursor: inout Cursor, _ output: inout [UInt8]) -> Bool {
        if let column = node.column {
            if isList[column] {
                if let element = cursor.element, element < cursor.elements(of: column).count {
                    writeElement(column, cursor.elements(of: column)[element], &output)
                    return true
                }
            } else if cursor.batch.columns[column].isValid(cursor.row) {
                writeValue(column, cursor.batch.columns[column], cursor.row, &output)
                return true
            }
        }
        if let list = node.everyElement {
            let columns = list.listColumns.filter { cursor.batch.columns[$0].isValid(cursor.row) }
            guard !columns.isEmpty else { return false }
            let count = columns.map { cursor.elements(of: $0).count }.max() ?? 0
            output.append(UInt8(ascii: "["))
            for element in 0..<count {
                if element > 0 { output.append(UInt8(ascii: ",")) }
                cursor.element = element
                if !write(list, &cursor, &output) { output.append(contentsOf: Array("null".utf8)) }
            }
            cursor.element = nil
            output.append(UInt8(ascii: "]"))
            return true
        }
        if !node.keys.isEmpty {
            guard hasValue(node, &cursor) else { return false }
            output.append(UInt8(ascii: "{"))
            var first = true
            for (name, child) in node.keys where hasValue(child, &cursor) {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                name.withUnsafeBufferPointer { JSONText.appendStringLiteral($0, to: &output) }
                output.append(UInt8(ascii: ":"))
                _ = write(child, &cursor, &output)
            }
            output.append(UInt8(ascii: "}"))
            return true
        }
        if let last = node.indexes.last(where: { hasValue($0.node, &cursor) }) {
            output.append(UInt8(ascii: "["))
            for index in 0...last.index {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                if let child = node.indexes.first(where: { $0.index == index })?.node, write(child, &cursor, &output) { continue }
                output.append(contentsOf: Array("null".utf8))
            }
            output.append(UInt8(ascii: "]"))
            return true
        }
        return false
    }

    /// One element of a list, from the JSON the list holds to its field's form: dates in the first format,
    /// enums as their JSON values; the other types hold that form already.
    private func writeElement(_ column: Int, _ element: [UInt8], _ output: inout [UInt8]) {
        switch types[column] {
        case .date:
            let text = element.count >= 2 ? Array(element[1..<element.count - 1]) : []
            guard case .instant(let nanoseconds)? = text.withUnsafeBufferPointer({ buffer in buffer.baseAddress.flatMap { rfc3339?.text($0, buffer.count) } }) else {
                output.append(contentsOf: element)
                return
            }
            (dateForms[column] ?? .rfc3339).write(nanoseconds, to: &output)
        case .enumeration:
            let stored = element.withUnsafeBufferPointer { JSONValue(jsonText: $0) }
            guard case .string(let value)? = stored else {
                output.append(contentsOf: element)
                return
            }
            writeEnum(column, value, &output)
        default:
            output.append(contentsOf: element)
        }
    }

    private func writeValue(_ column: Int, _ storage: ColumnStorage, _ row: Int, _ output: inout [UInt8]) {
        func quoted(_ text: String) { Array(text.utf8).withUnsafeBufferPointer { JSONText.appendStringLiteral($0, to: &output) } }
        switch types[column] {
        case .int64: output.append(contentsOf: Array(String(storage.values.assumingMemoryBound(to: Int64.self)[row]).utf8))
        case .uint64: output.append(contentsOf: Array(String(storage.values.assumingMemoryBound(to: UInt64.self)[row]).utf8))
        case .double: output.append(contentsOf: Array(String(storage.values.assumingMemoryBound(to: Double.self)[row]).utf8))
        case .bool: output.append(contentsOf: Array((storage.values.assumingMemoryBound(to: UInt8.self)[row] != 0 ? "true" : "false").utf8))
        case .date:
            let nanoseconds = storage.values.assumingMemoryBound(to: Int64.self)[row]
            (dateForms[column] ?? .rfc3339).write(nanoseconds, to: &output)
        case .string, .url:
            JSONText.appendStringLiteral(storage.textBytes(row), to: &output)
        case .json, .decimal:
            output.append(contentsOf: storage.textBytes(row))
        case .bytes:
            quoted(Base64.encode(storage.textBytes(row)))
        case .enumeration:
            writeEnum(column, String(decoding: storage.textBytes(row), as: UTF8.self), &output)
        }
    }

    /// An enum's stored value as the JSON value it came from.
    private func writeEnum(_ column: Int, _ stored: String, _ output: inout [UInt8]) {
        let json = enumJSON[column][stored] ?? stored
        let bytes = Array(json.utf8)
        let isNumber = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { NumberConversion.isNumberText($0, buffer.count) } ?? false
        }
        // A JSON value that reads as a number was most likely one ("1" in a map of levels).
        if isNumber && !json.hasPrefix("+") {
            output.append(contentsOf: bytes)
        } else {
            bytes.withUnsafeBufferPointer { JSONText.appendStringLiteral($0, to: &output) }
        }
    }
}

extension FieldValue {
    /// A date property's value as a field value, for encoding: nanoseconds since the epoch, rounded.
    init(encoding date: Date) {
        let seconds = date.timeIntervalSince1970
        let whole = seconds.rounded(.down)
        self = .date(nanoseconds: Int64(whole) * CivilTime.nanosecondsPerSecond + Int64(((seconds - whole) * 1e9).rounded()))
    }
}
