/// A starter mapping file written from a sample of an input: what `sluice infer` prints.
///
/// The sample is read as any input is (shapes, compression, a records path); each record's keys are counted by
/// key path and their values by the type that reads them, so memory grows with the number of key paths, not
/// records. The rules are in docs/mapping.md ("Inferring a mapping").
public struct InferredMapping: Sendable {
    /// The records the sample held.
    public let recordsSampled: Int
    /// The mapping file, YAML, which `MappingSchema(mappingText:)` accepts as it is.
    public let mappingText: String
    /// Arrays of objects that look like the records of a wrapper document read as a record of its own (a few
    /// records, each holding many objects), most objects first; empty when a records path was given.
    public let recordArrays: [RecordArray]

    /// An array of objects inside the records, which `--records-at` (``MappingOptions/recordsPath``) could read as the
    /// records instead.
    public struct RecordArray: Sendable, Equatable {
        /// Its key path, as `--records-at` takes it.
        public let path: String
        /// The objects the sample's records held there.
        public let objects: Int
    }

    /// Reads up to `sampleSize` records of `input` and infers a mapping of them.
    /// - Parameters:
    ///   - input: The input, in any shape Sluice reads.
    ///   - sampleSize: The most records to read (the first ones).
    ///   - recordsPath: Where the records are inside a wrapper document, if they are.
    ///   - shape: The input's shape, detected by default.
    ///   - infersEnums: Whether a small set of text values seen often becomes an enum; a string by default, since
    ///     the next file may hold a value the sample did not, which an enum rejects.
    ///   - infersTables: Whether an array of objects becomes a child table (``ChildTable``) of its objects' keys,
    ///     instead of one json column.
    /// - Throws: ``SluiceError`` when the input cannot be read.
    public init(input: Input, sampleSize: Int = 10_000, recordsPath: String? = nil, shape: InputShape = .automatic,
                infersEnums: Bool = false, infersTables: Bool = false) throws(SluiceError) {
        guard sampleSize > 0 else { throw .invalidOptions("the sample needs at least one record") }
        var sampler = Sampler(infersEnums: infersEnums, infersTables: infersTables)
        // With a records path, the records may be the members of an object: their keys are sampled too.
        let keyField = recordsPath == nil ? [] : [FieldSpec(name: "key", path: "$key", type: .string, isOptional: true)]
        let schema = try MappingSchema(fields: [FieldSpec(name: "record", path: "$", type: .json, isOptional: true)] + keyField,
                                       options: MappingOptions(recordsPath: recordsPath))
        let reader = try ColumnarReader(input: input, schema: schema,
                                        options: ReaderOptions(shape: shape, batchCapacity: min(sampleSize, 4096), rejectionPolicy: .collect))
        var text: [UInt8] = []
        reading: while let batch = try reader.next() {
            for row in 0..<batch.count {
                guard sampler.records + sampler.unreadable < sampleSize else { break reading }
                text.removeAll(keepingCapacity: true)
                let column = batch.column(0)
                if column.isNull(row) { text = Array("null".utf8) } else { column.withUTF8(row) { text += $0 ?? UnsafeBufferPointer(start: nil, count: 0) } }
                let key = recordsPath == nil ? nil : batch.column(1).string(row)
                if let value = SampleValue(jsonText: text) { sampler.add(value, key: key) }
            }
            // Records that are not JSON are left out of the sample, and counted for the file's header.
            sampler.unreadable += batch.rejections.count
            if sampler.records + sampler.unreadable >= sampleSize { break }
        }
        recordsSampled = sampler.records
        let source = switch input {
        case .file(let path): path
        case .standardInput: "<stdin>"
        case .bytes(_, let name): name
        }
        recordArrays = recordsPath == nil ? sampler.recordArrays() : []
        mappingText = sampler.mappingText(recordsPath: recordsPath, source: source, recordArrays: recordArrays)
    }
}

/// The statistics of a sample, by key path, in the order the paths were first seen.
private struct Sampler {
    let infersEnums: Bool
    let infersTables: Bool
    /// Per array path, with `infersTables`: the sample of its objects, each read as a record of a child table.
    var tables: [String: Sampler] = [:]
    var records = 0
    var unreadable = 0
    var statistics: [String: ValueStatistics] = [:]
    var order: [String] = []
    /// Per object path, its distinct child keys (up to the limit that makes it a map of ids, kept whole as json).
    var childKeys: [String: Set<String>] = [:]
    /// CSV-like rows: the header's names, when the first record was an array of strings.
    var headerNames: [String]?
    /// Per key path, the path it lies in and its own key, as the sample met them.
    var lineage: [String: (parent: String, key: String)] = [:]

    static let maximumPaths = 5_000
    static let keysOfAMap = 100
    static let root = "$"

    /// Statistics of the records' keys in an object of records (`$key`).
    var keys = ValueStatistics()

    mutating func add(_ record: SampleValue, key: String?) {
        var record = record
        if records == 0, case .array(let elements) = record, !elements.isEmpty,
           case let names = elements.compactMap({ if case .string(let name) = $0 { name } else { nil } }), names.count == elements.count {
            headerNames = names
            return
        }
        if let headerNames, case .array(let elements) = record {
            record = .object(zip(headerNames, elements).map { ($0, $1) })
        }
        records += 1
        if let key { keys.add(.string(key)) }
        visit(record, at: Self.root, in: nil, key: Self.root)
    }

    private mutating func note(_ value: SampleValue, at path: String, in parent: String?, key: String) -> Bool {
        if statistics[path] == nil {
            guard order.count < Self.maximumPaths else { return false }
            order.append(path)
            if let parent { lineage[path] = (parent, key) }
        }
        statistics[path, default: ValueStatistics()].add(value)
        return true
    }

    private mutating func visit(_ value: SampleValue, at path: String, in parent: String?, key: String) {
        guard note(value, at: path, in: parent, key: key) else { return }
        switch value {
        case .object(let members):
            var keys = childKeys[path, default: []]
            if keys.count > Self.keysOfAMap { return }
            for (key, member) in members {
                keys.insert(key)
                if keys.count > Self.keysOfAMap { break }
                visit(member, at: Self.child(of: path, key: key), in: path, key: key)
            }
            childKeys[path] = keys
        case .array(let elements):
            for element in elements {
                _ = note(element, at: path + ".*", in: path, key: "*")
                if infersTables, case .object = element { tables[path, default: Sampler(infersEnums: infersEnums, infersTables: true)].add(element, key: nil) }
            }
        default:
            break
        }
    }

    /// Arrays of objects that hold many objects in each of a few records: a wrapper document's records, most likely.
    func recordArrays() -> [InferredMapping.RecordArray] {
        guard records > 0 && records <= 10 else { return [] }
        return order.compactMap { path -> InferredMapping.RecordArray? in
            guard path.hasSuffix(".*"), let elements = statistics[path], elements.objects >= max(10, 2 * records) else { return nil }
            let array = String(path.dropLast(2))
            return array == Self.root || array.contains(".*") ? nil : InferredMapping.RecordArray(path: array, objects: elements.objects)
        }.sorted { $0.objects > $1.objects }
    }

    static func child(of path: String, key: String) -> String {
        let segment = FieldPath.escaped(key: key)
        return path == root ? segment : path + "." + segment
    }

    // MARK: Writing the mapping

    func mappingText(recordsPath: String?, source: String, recordArrays: [InferredMapping.RecordArray]) -> String {
        let read = records + unreadable
        var lines = ["# Inferred by sluice infer from the first \(read) record\(read == 1 ? "" : "s") of \(source)."]
        lines.append("# Check the types, names and optional flags before relying on them.")
        for array in recordArrays.prefix(3) {
            lines.append("# The records may be the \(array.objects) objects at \(array.path): infer them with --records-at \(array.path).")
        }
        if unreadable > 0 { lines.append("# \(unreadable) record\(unreadable == 1 ? " was" : "s were") not well-formed JSON and left out.") }
        if let recordsPath { lines.append("records: \(YAMLText.scalar(recordsPath))") }
        if headerNames != nil { lines.append("header: true") }
        lines.append("fields:")
        var names: Set<String> = []
        if keys.values > 0 {
            let type = keys.integerStrings == keys.values && keys.wideIntegerStrings == 0 ? "int64" : "string"
            let name = Self.columnName(for: "key", taken: &names)
            lines.append("  - {name: \(name), path: $key, type: \(type)\(keys.values < records ? ", optional: true" : "")}   # the member key of each record")
        }
        lines += fieldLines(names: &names)
        return lines.joined(separator: "\n") + "\n"
    }

    /// A field per key path (each a line, or a child table's lines), then a note when paths were left out.
    private func fieldLines(names: inout Set<String>) -> [String] {
        var lines: [String] = []
        for path in order where path != Self.root && !path.hasSuffix(".*") && isField(path) {
            lines.append(fieldLine(path: path, names: &names))
        }
        if lines.isEmpty {
            // Records that are scalars, or empty objects: the record itself.
            lines.append(fieldLine(path: Self.root, names: &names))
        }
        if order.count >= Self.maximumPaths {
            lines.append("# The sample held more than \(Self.maximumPaths) key paths; the later ones are left out.")
        }
        return lines
    }

    /// The sample of the objects of the arrays at `path`, when they become a child table: tables are inferred, and
    /// the elements were objects (or null).
    private func tableSample(at path: String) -> Sampler? {
        guard infersTables, let table = tables[path], let elements = statistics[path + ".*"],
              elements.objects > 0 && elements.objects == elements.values else { return nil }
        return table
    }

    /// An array of objects (and nulls) as a child table of its objects' fields.
    private func tableLines(_ table: Sampler, path: String, name: String) -> String {
        var names: Set<String> = []
        let fields = table.fieldLines(names: &names).map { field in
            field.split(separator: "\n", omittingEmptySubsequences: false).map { "      " + $0 }.joined(separator: "\n")
        }
        return (["  - name: \(YAMLText.scalar(name))", "    path: \(YAMLText.scalar(path))", "    table:   # \(table.records) object\(table.records == 1 ? "" : "s") sampled", "      fields:"] + fields)
            .joined(separator: "\n")
    }

    /// Whether a path becomes a field: it is a leaf (not an object whose keys become fields), and no ancestor
    /// was kept whole (a map of ids, or a value of mixed kinds).
    private func isField(_ path: String) -> Bool {
        if hasAncestorKeptWhole(path) { return false }
        if keptWhole(path) { return true }
        // Objects and nothing else become fields of their keys.
        guard let stats = statistics[path] else { return false }
        return !(stats.objects > 0 && stats.objects == stats.values)
    }

    /// An object path mapped as one json value: too many distinct keys (a map of ids), or objects mixed with
    /// other values.
    private func keptWhole(_ path: String) -> Bool {
        guard let stats = statistics[path], stats.objects > 0 else { return false }
        return (childKeys[path]?.count ?? 0) > Self.keysOfAMap || stats.objects != stats.values
    }

    private func lastKey(of path: String) -> String { lineage[path]?.key ?? path }

    private func hasAncestorKeptWhole(_ path: String) -> Bool {
        var ancestor = lineage[path]?.parent
        while let current = ancestor {
            if current != Self.root && keptWhole(current) { return true }
            ancestor = lineage[current]?.parent
        }
        return false
    }

    private func fieldLine(path: String, names: inout Set<String>) -> String {
        let stats = statistics[path] ?? ValueStatistics()
        var decision = TypeDecision(stats, key: lastKey(of: path), infersEnums: infersEnums)
        var fieldPath = path
        if keptWhole(path) {
            decision = TypeDecision(type: "json", note: "kept whole: \((childKeys[path]?.count ?? 0) > Self.keysOfAMap ? "more than \(Self.keysOfAMap) distinct keys (a map of ids?)" : "objects and other values")")
        } else if stats.arrays > 0 && stats.arrays == stats.values {
            // Arrays of scalars of one kind are lists; anything else stays whole.
            let elements = statistics[path + ".*"] ?? ValueStatistics()
            let element = TypeDecision(elements, key: lastKey(of: path), infersEnums: infersEnums)
            if elements.values > 0 && elements.objects == 0 && elements.arrays == 0 && element.type != "json" {
                decision = element
                fieldPath = path + ".*"
            } else if let table = tableSample(at: path) {
                return tableLines(table, path: path, name: Self.columnName(for: path, taken: &names))
            } else {
                decision = TypeDecision(type: "json", note: elements.values == 0 ? "only empty arrays seen" : elements.objects > 0 ? "arrays of objects" : "arrays of mixed values")
            }
        }
        // No array lies between a field and its record, so a path holds at most one value per record: a field is
        // required when every sampled record had a value there (a null or missing parent counts as none) that it
        // does not read as null.
        let isOptional = stats.values < records || decision.readsSomeAsNull
        let name = Self.columnName(for: path, taken: &names)
        var parts = ["name: \(YAMLText.scalar(name))"]
        if fieldPath != name { parts.append("path: \(YAMLText.scalar(fieldPath == Self.root ? "$" : fieldPath))") }
        parts.append("type: \(decision.type)")
        parts += decision.options
        if isOptional { parts.append("optional: true") }
        return "  - {\(parts.joined(separator: ", "))}" + (decision.note.map { "   # \($0)" } ?? "")
    }

    /// `user.screen_name` → `user_screen_name`: letters, digits and underscores, unique.
    static func columnName(for path: String, taken: inout Set<String>) -> String {
        var name = ""
        for scalar in (path == root ? "record" : path).unicodeScalars {
            let isWordCharacter = scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_"
            if isWordCharacter {
                name.unicodeScalars.append(scalar)
            } else if !name.hasSuffix("_") {
                name += "_"
            }
        }
        while name.hasSuffix("_") && name.count > 1 { name.removeLast() }
        if name.isEmpty || name == "_" { name = "field" }
        var unique = name
        var number = 2
        while !taken.insert(unique).inserted {
            unique = "\(name)_\(number)"
            number += 1
        }
        return unique
    }
}

/// The type a path's values call for, with its options and a note for the reader of the file.
struct TypeDecision {
    var type: String
    var options: [String] = []
    var note: String?
    /// Some values the sample showed are read as null (`nulls: [false]`): the field must be optional.
    var readsSomeAsNull = false

    init(type: String, options: [String] = [], note: String? = nil) {
        self.type = type
        self.options = options
        self.note = note
    }

    /// The narrowest type that reads every value the sample showed; a small set of text values is an enum only
    /// when `infersEnums`.
    init(_ stats: ValueStatistics, key: String, infersEnums: Bool) {
        let values = stats.values
        let numbers = stats.integers + stats.unsignedIntegers + stats.wideIntegers + stats.fractions
        if values == 0 {
            self.init(type: "json", note: "only null seen")
        } else if stats.booleans == values {
            self.init(type: "bool")
        } else if stats.falseBooleans == stats.booleans, stats.booleans > 0, numbers + stats.booleans == values, stats.fractions + stats.integers == numbers,
                  let unit = Self.epochUnit(key: key, smallest: stats.smallestNumber, largest: stats.largestNumber) {
            // Reddit's `edited`: false, or when.
            self.init(type: "date", options: ["formats: [epoch]"] + (unit == .seconds ? [] : ["unit: \(unit.rawValue)"]) + ["nulls: [false]"],
                      note: "false or epoch \(unit.rawValue)")
            readsSomeAsNull = true
        } else if numbers == values {
            if stats.fractions > 0 {
                self.init(type: "double")
            } else if stats.wideIntegers > 0 {
                self.init(type: "string", note: "integers beyond 64 bits, kept exactly as text")
            } else if stats.unsignedIntegers > 0 && stats.smallestInteger < 0 {
                self.init(type: "string", note: "integers beyond int64 and below zero, which no integer type holds both of, kept exactly as text")
            } else if stats.unsignedIntegers > 0 {
                self.init(type: "uint64")
            } else if let unit = Self.epochUnit(key: key, smallest: Double(stats.smallestInteger), largest: Double(stats.largestInteger)) {
                self.init(type: "date", options: ["formats: [epoch]"] + (unit == .seconds ? [] : ["unit: \(unit.rawValue)"]), note: "epoch \(unit.rawValue), by its name and size")
            } else {
                self.init(type: "int64")
            }
        } else if stats.strings == values {
            let dateCounts = stats.dateStrings.values.reduce(0, +)
            if dateCounts == values {
                let formats = stats.dateStrings.sorted { $0.value > $1.value }.map { FormatName.of($0.key) }
                self.init(type: "date", options: ["formats: [\(formats.joined(separator: ", "))]"])
            } else if stats.urlStrings == values {
                self.init(type: "url")
            } else if stats.base64Strings == values && values >= 2 {
                self.init(type: "bytes", note: "base64 text")
            } else if stats.integerStrings == values {
                self.init(type: "string", note: "integers as text (int64 reads them too)")
            } else if stats.numberStrings == values {
                self.init(type: "string", note: "numbers as text (double reads them too)")
            } else if (2...8).contains(stats.distinctStrings.count), values >= 100, stats.distinctStrings.count * 20 <= values, stats.longestString <= 64 {
                // Only a large sample with few values each seen often says the set is closed, and even then the next
                // file may hold another value, which an enum rejects: enums only when asked.
                let domain = stats.distinctStrings.sorted().map(YAMLText.scalar)
                if infersEnums {
                    self.init(type: "enum", options: ["values: [\(domain.joined(separator: ", "))]"], note: "\(domain.count) values in \(values) records")
                } else {
                    self.init(type: "string", note: "\(domain.count) values in \(values) records (an enum with --enums)")
                }
            } else {
                self.init(type: "string")
            }
        } else if stats.strings + numbers == values, stats.integerStrings == stats.strings, stats.wideIntegerStrings == 0, stats.integers == numbers, stats.integers > 0 {
            // Integers, some of them as text: int64 reads both.
            if let unit = Self.epochUnit(key: key, smallest: Double(stats.smallestInteger), largest: Double(stats.largestInteger)) {
                self.init(type: "date", options: ["formats: [epoch]"] + (unit == .seconds ? [] : ["unit: \(unit.rawValue)"]), note: "epoch \(unit.rawValue) as numbers and text")
            } else {
                self.init(type: "int64", note: "integers, some as text")
            }
        } else if stats.strings + numbers == values {
            self.init(type: "string", note: "strings and numbers (numbers as their literal text)")
        } else {
            self.init(type: "json", note: "values of several kinds")
        }
    }

    /// Integers whose key names a time and whose range is 1973–2100 in one unit read as epoch dates.
    static func epochUnit(key: String, smallest: Double, largest: Double) -> EpochUnit? {
        let name = key.lowercased()
        let namesATime = ["time", "date", "created", "updated", "modified", "edited", "deleted", "expires", "timestamp", "epoch"].contains { name.contains($0) }
            || name.hasSuffix("_at") || name.hasSuffix("_ts") || name == "ts" || name.hasSuffix("_utc") || name.hasSuffix("_on")
        guard namesATime, smallest > 0 else { return nil }
        for (unit, low, high) in [(EpochUnit.seconds, 1e8, 4_102_444_800.0), (.milliseconds, 1e11, 4_102_444_800e3), (.microseconds, 1e14, 4_102_444_800e6),
                                  (.nanoseconds, 1e17, 9.2e18)]
        where smallest >= low && largest <= high {
            return unit
        }
        return nil
    }
}

/// The names mapping files give date formats.
enum FormatName {
    static func of(_ format: DateFormat) -> String {
        switch format {
        case .epoch: "epoch"
        case .iso8601: "iso8601"
        case .rfc2822: "rfc2822"
        case .pattern: format == .twitter ? "twitter" : YAMLText.scalar(format.description)
        }
    }
}

/// YAML scalars as a mapping file writes them: plain when that reads back as the same text, else double-quoted
/// with JSON's escapes (which YAML's double-quoted style shares).
enum YAMLText {
    static func scalar(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "." || scalar == "-"
        } && !(text.first.map { "0123456789-.".contains($0) } ?? true)
            && !["true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"].contains(text.lowercased())
        guard !plain else { return text }
        var literal: [UInt8] = []
        var bytes = text
        bytes.withUTF8 { JSONText.appendStringLiteral($0, to: &literal) }
        return String(decoding: literal, as: UTF8.self)
    }
}
