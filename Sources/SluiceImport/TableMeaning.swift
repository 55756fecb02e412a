import Sluice

/// What a table's rows mean, in words that stay the same while the engine changes: a line for the table (its
/// name, key, where records are, how dates are stored), then a line per column (name, key paths, type, formats and
/// units, enum values, cleanups, null spellings, default, validators, transform). A checkpoint keeps it, so that
/// `--resume` with another mapping is refused instead of mixing two meanings in one table.
///
/// Only the mapping's declared settings go in, resolved as the engine reads them (a path given by the naming
/// convention is written out), never the compiled plan, whose tables change from version to version.
struct TableMeaning: Sendable, Hashable {
    /// The table's line, then each column's, in order.
    let lines: [String]

    /// `dateStorage`: how the destination stores dates, where it has a choice (SQLite).
    init(layout: TableLayout, options: MappingOptions, dateStorage: DateStorage?) {
        var table = "table \(Self.quoted(layout.name))"
        if !layout.keyColumns.isEmpty { table += "; key " + layout.keyColumns.map { Self.quoted(layout.fields[$0].name) }.joined(separator: ", ") }
        if let records = options.recordsPath { table += "; records at \(Self.quoted(records))" }
        if options.skippedRecords > 0 { table += "; skipping \(options.skippedRecords) records" }
        if options.columnsFromHeader { table += "; columns from a header row" }
        // Strict mode decides which records are rejected, as validators do.
        if options.unmappedKeys == .reject {
            table += "; unmapped keys rejected"
            if !options.ignoredPaths.isEmpty { table += " but " + options.ignoredPaths.map(Self.quoted).joined(separator: " ") }
        }
        if let dateStorage, Self.storesDates(layout.fields) { table += "; dates stored as \(dateStorage.rawValue)" }
        lines = [table] + layout.fields.map { Self.column($0, options: options) }
    }

    /// The lines as stored.
    init(text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    var text: String { lines.joined(separator: "\n") }

    /// A short stable digest of ``text`` (64-bit FNV-1a, hex), for messages and for a glance at two checkpoints.
    var fingerprint: String { FNV1a.hex64(text.utf8) }

    /// What differs from `earlier`, for people: the table's settings, then each column added, removed or changed.
    func changes(since earlier: TableMeaning) -> [String] {
        var changes: [String] = []
        if lines.first != earlier.lines.first {
            changes.append("the table was \(earlier.lines.first ?? "") and is now \(lines.first ?? "")")
        }
        let before = Dictionary(earlier.lines.dropFirst().map { (Self.columnName($0), $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(lines.dropFirst().map { (Self.columnName($0), $0) }, uniquingKeysWith: { first, _ in first })
        for line in lines.dropFirst() {
            let name = Self.columnName(line)
            guard let old = before[name] else {
                changes.append("\(name) is new")
                continue
            }
            if old != line { changes.append("\(name) was \(Self.settings(old)) and is now \(Self.settings(line))") }
        }
        for line in earlier.lines.dropFirst() where after[Self.columnName(line)] == nil {
            changes.append("\(Self.columnName(line)) is gone")
        }
        if changes.isEmpty && lines != earlier.lines { changes.append("the columns are in another order") }
        return changes
    }

    /// Whether a column stores dates, a child table's included.
    private static func storesDates(_ fields: [FieldSpec]) -> Bool {
        fields.contains { field in
            field.childTable.map { storesDates($0.fields) } ?? (field.type.holdsPointsInTime && !field.isList)
        }
    }

    // MARK: - One column

    private static func column(_ field: FieldSpec, options: MappingOptions) -> String {
        if let table = field.childTable {
            // A child table is written beside this one, under the records' checkpoints: its columns are part of what
            // the table means.
            var index = table.indexColumn.map { ", index \(quoted($0))" } ?? ""
            for (link, name) in table.linkNames.sorted(by: { $0.key < $1.key }) { index += ", link \(quoted(link)) as \(quoted(name))" }
            return "column \(quoted(field.name)): child table from \(quoted(field.resolvedPath(naming: options.naming)))\(index) of ["
                + table.fields.map { column($0, options: options) }.joined(separator: "; ") + "]"
        }
        var line = "column \(quoted(field.name)): \(field.type.rawValue) from \(quoted(field.resolvedPath(naming: options.naming)))"
        if !field.fallbackPaths.isEmpty { line += " or " + field.fallbackPaths.map(quoted).joined(separator: " or ") }
        if field.isOptional { line += ", optional" }
        if field.isUnique { line += ", unique elements" }
        switch field.type {
        case .int64, .uint64:
            if field.truncatesFractions { line += ", fractions truncated" }
        case .date:
            line += ", epoch in \(field.epochUnit.rawValue), formats " + field.dateFormats.map { quoted($0.description) }.joined(separator: " ")
        case .decimal:
            if let format = field.decimalFormat {
                line += ", precision \(format.precision), scale \(format.scale)" + (format.rounding.map { ", rounding \($0.rawValue)" } ?? "")
            }
        case .enumeration:
            line += ", values " + field.enumValues.map { "\(quoted($0.json)) as \(stored($0))" }.joined(separator: " ")
        default:
            break
        }
        if let defaultValue = field.defaultValue { line += ", default \(quoted(defaultValue.description))" }
        let nulls = field.nullSpellings ?? options.nullSpellings
        if !nulls.isEmpty { line += ", null when " + nulls.map(json).joined(separator: " ") }
        if !field.cleanups.isEmpty { line += ", cleanups [" + field.cleanups.map(cleanup).joined(separator: ", ") + "]" }
        if let transform = field.transform { line += ", transform \(quoted(transform.name))" }
        if !field.validators.isEmpty { line += ", validators " + field.validators.map { quoted($0.description) }.joined(separator: " ") }
        return line
    }

    /// A cleanup with its whole argument (its description shortens long ones).
    private static func cleanup(_ cleanup: ValueCleanup) -> String {
        switch cleanup {
        case .stripPrefix(let text), .stripSuffix(let text), .capture(let text), .split(let text): "\(cleanup.name) \(quoted(text))"
        case .trim, .lowercase, .uppercase, .emptyAsNull, .number: cleanup.description
        }
    }

    private static func stored(_ value: EnumValue) -> String {
        switch value.storedKind {
        case .text: quoted(value.value)
        case .integer, .number: value.value
        }
    }

    private static func json(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): quoted(text)
        case .number(let literal): literal
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        case .object(let text), .array(let text): text
        }
    }

    private static func quoted(_ text: String) -> String { JSONText.stringLiteral(text) }

    /// The column's name as its line gives it: the string literal after `column `.
    private static func columnName(_ line: String) -> String {
        String(line.prefix(upTo: nameEnd(line)).dropFirst("column ".count))
    }

    /// A column's line without its name.
    private static func settings(_ line: String) -> String {
        String(line[nameEnd(line)...].dropFirst(": ".count))
    }

    /// Where the name's literal ends: after the first quote not escaped by a backslash.
    private static func nameEnd(_ line: String) -> String.Index {
        var escaped = false
        for index in line.indices.dropFirst("column \"".count) {
            if escaped {
                escaped = false
            } else if line[index] == "\\" {
                escaped = true
            } else if line[index] == "\"" {
                return line.index(after: index)
            }
        }
        return line.endIndex
    }
}
