import ArgumentParser
import Foundation
import Sluice

/// `sluice check`: every problem of a mapping file at once, each with its line and column; with an input, its
/// first records mapped and shown as a table, and the rejected ones explained.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a mapping file, and try it on the first records of an input.",
        discussion: """
            Prints every problem of the mapping file at once, each as FILE:LINE:COLUMN. With an input, maps its \
            first records (10 by default) and prints them as a table, then each rejected one with every failure \
            and its text.

            Exit status: 0 the mapping compiles and every record shown mapped; 2 some of them were rejected; 1 the \
            mapping has problems or the input cannot be read; 64 a usage error.
            """
    )

    @Option(name: [.short, .customLong("mapping")], help: ArgumentHelp("The mapping file (YAML or JSON).", valueName: "file"))
    var mapping: String

    @Argument(help: ArgumentHelp("A JSON input to try the mapping on ('-' for standard input).", valueName: "input"))
    var input: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("How many records of the input to map (1 to 10,000).", valueName: "records"))
    var limit = 10

    @Option(name: .customLong("records-at"), help: ArgumentHelp("The key path of the records inside a wrapper document (overrides the file's records:).", valueName: "path"))
    var recordsAt: String?

    @Option(name: [.customLong("input-format"), .customLong("format")], help: ArgumentHelp("ndjson, array, concatenated, document or automatic.", valueName: "shape"))
    var inputFormat: InputShape = .automatic

    @Option(name: .customLong("max-width"), parsing: .unconditional, help: ArgumentHelp("The widest a column of the table may be, in characters (4 to 1,000).", valueName: "characters"))
    var maximumWidth = 32

    func validate() throws {
        try ReadingOptions.check("--limit", limit, 1...10_000, "records")
        try ReadingOptions.check("--max-width", maximumWidth, 4...1_000, "characters")
    }

    func run() throws {
        let schema: MappingSchema
        do {
            schema = try MappingSchema(contentsOfFile: mapping, recordsPath: recordsAt)
            // Child tables' links come from the mapping's key: a rename of a link it does not make is a problem too.
            _ = try MappedTables(schema: schema, key: schema.options.key)
        } catch {
            guard case .invalidMapping(let problems) = error else { throw error }
            for problem in problems { print(problem) }
            print("\(mapping): \(problems.count) problem\(problems.count == 1 ? "" : "s")")
            throw ExitCode(1)
        }
        print("\(mapping): \(schema.fields.count) field\(schema.fields.count == 1 ? "" : "s"), no problems")
        guard let input else { return }
        let sample = try Sample(input: input == "-" ? .standardInput : .file(input), schema: schema, shape: inputFormat, limit: limit)
        print("")
        print(sample.table(0, maximumWidth: maximumWidth))
        for (index, table) in sample.tables.enumerated().dropFirst() {
            print("")
            print("child table \(table.path.joined(separator: ".")): \(table.rows.count) row\(table.rows.count == 1 ? "" : "s") (# is the record's)")
            print(sample.table(index, maximumWidth: maximumWidth))
        }
        for rejection in sample.rejections {
            print("")
            print("rejected \(rejection.location):")
            for failure in rejection.failures { print("  \(failure)") }
            let text = TableText.cell(String(decoding: rejection.rawText, as: UTF8.self), width: 200)
            print("  text: \(text)\(rejection.isRawTextTruncated ? "…" : "")")
        }
        let name = input == "-" ? "<stdin>" : input
        print("")
        print("\(name): the first \(sample.count) record\(sample.count == 1 ? "" : "s"): \(sample.rows.count) mapped, \(sample.rejections.count) rejected")
        if !sample.rejections.isEmpty { throw ExitCode(2) }
    }
}

/// The first records of an input, mapped: each mapped one as its ordinal, line and cells, and the rejected ones;
/// with child tables, their rows too, each under the record it came from.
struct Sample {
    /// One table's rows: the records' own first, then each child table's.
    struct Table {
        /// The child-table fields from the record down (`hashtags.indices`); empty for the records' table.
        var path: [String]
        var fields: [FieldSpec]
        var rows: [(ordinal: Int, line: Int, cells: [String])] = []
    }

    var tables: [Table]
    var rejections: [Rejection] = []
    var rows: [(ordinal: Int, line: Int, cells: [String])] { tables[0].rows }
    var count: Int { rows.count + rejections.count }

    init(input: Input, schema: MappingSchema, shape: InputShape, limit: Int) throws {
        let mapped = try MappedTables(schema: schema, key: schema.options.key)
        tables = mapped.tables.map { Table(path: $0.fieldPath, fields: $0.fields) }
        let reader = try ColumnarReader(input: input, schema: schema, tables: mapped,
                                        options: ReaderOptions(shape: shape, batchCapacity: limit, rejectionPolicy: .collect))
        var buffer: [UInt8] = []
        while let batch = try reader.next() {
            var end = 0
            while end < batch.count && batch.location(ofRow: end).ordinal <= limit { end += 1 }
            for (index, part) in batch.tables.enumerated() {
                // Rows and rejections come apart in a batch; the ordinals put them back in the input's order.
                for row in batch.rows(ofTable: index, forRecords: 0..<end) {
                    let location = part.location(ofRow: row)
                    let cells = part.fields.indices.map { column in
                        buffer.removeAll(keepingCapacity: true)
                        return part.column(column).appendText(row, to: &buffer) ? String(decoding: buffer, as: UTF8.self) : "(null)"
                    }
                    tables[index].rows.append((location.ordinal, location.line, cells))
                }
            }
            rejections += batch.rejections.filter { $0.location.ordinal <= limit }
            if count >= limit { break }
        }
    }

    /// Table `index`'s rows as an aligned table under the field names; in the records' table, rejected records
    /// have a row saying so.
    func table(_ index: Int, maximumWidth: Int) -> String {
        let header = ["#", "line"] + tables[index].fields.map(\.name)
        var lines: [[String]] = tables[index].rows.map { [String($0.ordinal), String($0.line)] + $0.cells }
        if index == 0 { lines += rejections.map { [String($0.location.ordinal), String($0.location.line), "(rejected)"] } }
        // Stable: a record's child rows keep their order.
        lines = lines.enumerated().sorted { ((Int($0.element[0]) ?? 0), $0.offset) < ((Int($1.element[0]) ?? 0), $1.offset) }.map(\.element)
        let cells = ([header] + lines).map { $0.map { TableText.cell($0, width: maximumWidth) } }
        var widths = header.map { _ in 0 }
        for line in cells {
            for (index, cell) in line.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        return cells.map { line in
            line.enumerated().map { index, cell in
                // Padded by characters, as the widths were counted (`padding(toLength:)` counts UTF-16 units).
                index == line.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

/// Values made fit for one line of a terminal table.
enum TableText {
    /// Control characters escaped as in JSON (`\n`, `\t`, `\u001b`), and text past `width` characters cut with `…`.
    static func cell(_ text: String, width: Int) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        guard result.count > width else { return result }
        return String(result.prefix(width - 1)) + "…"
    }
}
