import Foundation

/// Writes mapped records back to JSON through their mapping, so that a record mapped in and encoded out maps to
/// the same values again.
///
/// Key paths become nested objects again (`user.name` → `{"user":{"name":…}}`); a decimal segment up to 1024
/// becomes an array index (`media.0.url` → `{"media":[{"url":…}]}`, earlier elements `null`), a larger one an
/// object key. Null values are left out, and so are objects and arrays that would hold nothing. Dates are written
/// in the field's first format (a pattern, or RFC 3339 in UTC for `iso8601`); enums as the JSON value their
/// stored value came from; bytes as base64; json fields as their text.
struct RecordEncoder: Sendable {
    private final class Node: @unchecked Sendable {
        var keys: [(name: [UInt8], node: Node)] = []
        var indexes: [(index: Int, node: Node)] = []
        var column: Int?

        func child(key: [UInt8]) -> Node {
            if let existing = keys.first(where: { $0.name == key }) { return existing.node }
            let node = Node()
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
    /// Per date column, its first pattern's tokens (nil: RFC 3339).
    private let datePatterns: [[DatePatternToken]?]
    /// Per enum column: stored value → the JSON value text it came from.
    private let enumJSON: [[String: String]]

    init(plan: CompiledPlan) {
        let root = Node()
        // A transform has no way back, and lists are not rebuilt: such fields are not written.
        for (column, field) in plan.fields.enumerated() where field.transform == nil && !field.isList {
            guard let path = try? FieldPath(parsing: field.resolvedPath(naming: nil)) else { continue }
            var node = root
            for segment in path.segments {
                if let index = segment.index, index <= 1024 { node = node.child(index: index) } else { node = node.child(key: segment.key) }
            }
            if node.column == nil { node.column = column }
        }
        self.root = root
        types = plan.fields.map(\.type)
        datePatterns = plan.fields.map { field in
            guard field.type == .date, case .pattern(let pattern)? = field.dateFormats.first else { return nil }
            return try? DatePatternToken.compile(pattern)
        }
        enumJSON = plan.fields.map { field in
            var reverse: [String: String] = [:]
            for entry in field.enumValues where reverse[entry.value] == nil { reverse[entry.value] = entry.json }
            return reverse
        }
    }

    /// The JSON text of `row` of `batch`.
    func encode(_ batch: ColumnarBatch, row: Int) -> [UInt8] {
        var output: [UInt8] = []
        if !write(root, batch, row, &output) { output.append(contentsOf: Array("{}".utf8)) }
        return output
    }

    private func hasValue(_ node: Node, _ batch: ColumnarBatch, _ row: Int) -> Bool {
        if let column = node.column, batch.columns[column].isValid(row) { return true }
        return node.keys.contains { hasValue($0.node, batch, row) } || node.indexes.contains { hasValue($0.node, batch, row) }
    }

    /// Writes the node's value; false (writing nothing) when it holds none.
    private func write(_ node: Node, _ batch: ColumnarBatch, _ row: Int, _ output: inout [UInt8]) -> Bool {
        if let column = node.column, batch.columns[column].isValid(row) {
            writeValue(column, batch.columns[column], row, &output)
            return true
        }
        if !node.keys.isEmpty {
            guard hasValue(node, batch, row) else { return false }
            output.append(UInt8(ascii: "{"))
            var first = true
            for (name, child) in node.keys where hasValue(child, batch, row) {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                name.withUnsafeBufferPointer { JSONText.appendStringLiteral($0, to: &output) }
                output.append(UInt8(ascii: ":"))
                _ = write(child, batch, row, &output)
            }
            output.append(UInt8(ascii: "}"))
            return true
        }
        if let last = node.indexes.last(where: { hasValue($0.node, batch, row) }) {
            output.append(UInt8(ascii: "["))
            for index in 0...last.index {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                if let child = node.indexes.first(where: { $0.index == index })?.node, write(child, batch, row, &output) { continue }
                output.append(contentsOf: Array("null".utf8))
            }
            output.append(UInt8(ascii: "]"))
            return true
        }
        return false
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
            quoted(datePatterns[column].map { DatePatternFormatter.format(nanoseconds, $0) } ?? DateText.rfc3339(nanoseconds))
        case .string, .url:
            JSONText.appendStringLiteral(storage.textBytes(row), to: &output)
        case .json:
            output.append(contentsOf: storage.textBytes(row))
        case .bytes:
            quoted(Base64.encode(storage.textBytes(row)))
        case .enumeration:
            let stored = String(decoding: storage.textBytes(row), as: UTF8.self)
            let json = enumJSON[column][stored] ?? stored
            let bytes = Array(json.utf8)
            let isNumber = bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.map { NumberConversion.isNumberText($0, buffer.count) } ?? false
            }
            // A JSON value that reads as a number was most likely one ("1" in a map of levels).
            if isNumber && !json.hasPrefix("+") {
                output.append(contentsOf: bytes)
            } else {
                quoted(json)
            }
        }
    }
}

extension FieldValue {
    /// A property's value as a field value, for encoding: nil for nil and for types Sluice does not map.
    init?(encoding value: Any) {
        switch value {
        case let text as String: self = .string(text)
        case let number as Int64: self = .int64(number)
        case let number as Int: self = .int64(Int64(number))
        case let number as UInt64: self = .uint64(number)
        case let number as Double: self = .double(number)
        case let flag as Bool: self = .bool(flag)
        case let date as Date:
            let seconds = date.timeIntervalSince1970
            let whole = seconds.rounded(.down)
            self = .date(nanoseconds: Int64(whole) * CivilTime.nanosecondsPerSecond + Int64(((seconds - whole) * 1e9).rounded()))
        case let url as URL: self = .string(url.absoluteString)
        case let data as Data: self = .bytes(Array(data))
        case let raw as any RawRepresentable: self.init(encoding: raw.rawValue)
        default: return nil
        }
    }
}
