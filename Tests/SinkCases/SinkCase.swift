import Foundation
import Sluice
import SluiceWriters
import SluiceImport

/// The records and settings a run of bytes describes (a fuzz input, or seeded random bytes in the tests): up to
/// nine columns after `rid` (the record's ordinal), each of a type, optional or not, a list or not, and a list
/// sometimes a child table of its values instead (linked by `rid`, the records' key); up to 955 records; and the
/// batch, worker, commit, page, row-group, compression, date storage and delimiter settings.
public struct SinkCase: CustomStringConvertible {
    enum Kind: String, CaseIterable {
        case int64, uint64, double, bool, date, string, url, json, bytes, enumeration = "enum"
        /// Decimals of the three Parquet layouts: 4 bytes, 8 bytes, 16 fixed-length bytes.
        case decimal9 = "decimal(9,2)", decimal18 = "decimal(18,6)", decimal38 = "decimal(38,10)"

        var decimalFormat: DecimalFormat? {
            [.decimal9: SinkCase.decimalShapes[0], .decimal18: SinkCase.decimalShapes[1], .decimal38: SinkCase.decimalShapes[2]][self]
        }
    }

    /// The decimal shapes generated cases use, one for each Parquet layout: 4 bytes, 8 bytes, 16 fixed-length bytes.
    public static let decimalShapes = [DecimalFormat(precision: 9, scale: 2), DecimalFormat(precision: 18, scale: 6), DecimalFormat(precision: 38, scale: 10)]

    struct Column {
        var kind: Kind
        var isOptional: Bool
        var isList: Bool
        /// A list written as a child table `t_c<N>` of its elements instead of a column.
        var isTable: Bool
    }

    /// Whether some column is a child table: the records are then keyed by `rid`.
    var hasTables: Bool { columns.contains(where: \.isTable) }

    /// What CSV and TSV write for a null: Python's csv module reads a quoted and an unquoted empty field alike,
    /// so a null cannot be the empty field there. The generator never makes this text.
    static let nullText = "\\N"
    static let enumValues = ["a", "b c", "", "é", "\\N\\N"]

    var columns: [Column] = []
    var count = 0
    var ndjson = ""
    var batchCapacity = 1
    var workers = 1
    var recordsPerCommit = 1
    var dateStorage = DateStorage.text
    var delimiter = UInt8(ascii: ",")
    var pageBytes = 1 << 20
    var rowGroupBytes = 128 << 20
    var compression = ParquetCompression.default

    /// The case `source` describes, however few bytes it holds.
    public init(_ source: inout ChoiceBytes) {
        let settings = source.next()
        batchCapacity = [1, 2, 7, 64, 1000][Int(settings) % 5]
        workers = settings & 0x08 == 0 ? 1 : 2
        recordsPerCommit = [1, 3, 100][Int(settings >> 4) % 3]
        dateStorage = DateStorage.allCases[Int(settings >> 6) % DateStorage.allCases.count]
        let layout = source.next()
        delimiter = layout & 1 == 0 ? UInt8(ascii: ",") : 0x09
        pageBytes = [64, 1024, 1 << 20][Int(layout >> 1) % 3]
        rowGroupBytes = [256, 8192, 128 << 20][Int(layout >> 3) % 3]
        compression = [.none, .snappy, .zstd(level: 3)][Int(layout >> 5) % 3]
        for _ in 0...source.below(8) {
            let byte = source.next()
            columns.append(Column(kind: Kind.allCases[Int(byte) % Kind.allCases.count], isOptional: byte & 0x40 != 0, isList: byte & 0x80 != 0,
                                  isTable: byte & 0xA0 == 0xA0))
        }
        count = Int(source.next()) + (source.next() & 3 == 0 ? 700 : 0)
        var lines: [String] = []
        lines.reserveCapacity(count)
        for ordinal in 0..<count {
            var members = ["\"rid\":\(ordinal)"]
            for (index, column) in columns.enumerated() {
                let key = "\"c\(index)\":"
                if column.isOptional && source.below(4) == 0 {
                    if source.next() & 1 == 0 { members.append(key + "null") }
                    continue
                }
                if column.isList {
                    members.append(key + "[" + (0..<source.below(4)).map { _ in Self.value(column.kind, &source) }.joined(separator: ",") + "]")
                } else {
                    members.append(key + Self.value(column.kind, &source))
                }
            }
            lines.append("{" + members.joined(separator: ",") + "}")
        }
        ndjson = lines.map { $0 + "\n" }.joined()
    }

    /// The mapping: with `tables`, a table column is a child table of its elements; without, a list column (the
    /// form the expected values are read with).
    func fields(tables: Bool) -> [FieldSpec] {
        [FieldSpec(name: "rid", type: .int64)] + columns.enumerated().map { index, column in
            let name = "c\(index)"
            guard tables && column.isTable else { return Self.field(column, name: name, path: name + (column.isList ? ".*" : "")) }
            var holder = FieldSpec(name: name, path: name, type: .json, isOptional: column.isOptional)
            holder.childTable = ChildTable(fields: [Self.field(Column(kind: column.kind, isOptional: false, isList: false, isTable: false),
                                                               name: ChildTable.valueColumn, path: "$")])
            return holder
        }
    }

    private static func field(_ column: Column, name: String, path: String) -> FieldSpec {
        let type: FieldType = switch column.kind {
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .bool: .bool
        case .date: .date
        case .string: .string
        case .url: .url
        case .json: .json
        case .bytes: .bytes
        case .enumeration: .enumeration
        case .decimal9, .decimal18, .decimal38: .decimal
        }
        switch column.kind {
        case .date: return FieldSpec(name: name, path: path, type: type, isOptional: column.isOptional, epochUnit: .nanoseconds, dateFormats: [.epoch])
        case .enumeration: return FieldSpec(name: name, path: path, type: type, isOptional: column.isOptional, enumValues: enumValues.map { EnumValue($0) })
        case .decimal9, .decimal18, .decimal38:
            var field = FieldSpec(name: name, path: path, type: type, isOptional: column.isOptional)
            field.decimalFormat = column.kind.decimalFormat
            return field
        default: return FieldSpec(name: name, path: path, type: type, isOptional: column.isOptional)
        }
    }

    /// The case for the checker: the columns in order, and the settings that change how values are stored.
    public var description: String {
        let columnText = columns.map { "{\"kind\":\"\($0.kind.rawValue)\",\"optional\":\($0.isOptional),\"list\":\($0.isList),\"table\":\($0.isTable)}" }
        return "{\"columns\":[{\"kind\":\"int64\",\"optional\":false,\"list\":false,\"table\":false}," + columnText.joined(separator: ",") + "],"
            + "\"records\":\(count),\"date_storage\":\"\(dateStorage.rawValue)\",\"delimiter\":\"\(delimiter == 0x09 ? "\\t" : ",")\","
            + "\"null_text\":\"\\\\N\"}\n"
    }

    /// One value of `kind` as JSON text: extremes and ordinary values in turn.
    static func value(_ kind: Kind, _ source: inout ChoiceBytes) -> String {
        let choice = source.next()
        switch kind {
        case .int64:
            return ["0", "-1", "1", "\(Int64.max)", "\(Int64.min)", "\(Int64(bitPattern: source.word()))", "\(Int64(Int8(bitPattern: source.next())))"][Int(choice) % 7]
        case .uint64:
            return ["0", "\(UInt64.max)", "\(UInt64(Int64.max) + 1)", "\(source.word())", "\(source.next())"][Int(choice) % 5]
        case .double:
            var bits = Double(bitPattern: source.word())
            if !bits.isFinite { bits = 0 }
            return ["0.0", "-0.0", "5e-324", "1.7976931348623157e308", "-1.5", "0.1", "1e21", "\(bits)"][Int(choice) % 8]
        case .bool:
            return choice & 1 == 0 ? "true" : "false"
        case .date:
            // Nanoseconds: all of Int64 is an instant from 1677 to 2262.
            return ["0", "-1", "\(Int64.max)", "\(Int64.min)", "\(Int64(bitPattern: source.word()))", "1700000000123456789"][Int(choice) % 6]
        case .string:
            return jsonString(text(&source, long: choice == 255 && source.next() < 64))
        case .url:
            return jsonString("https://example.com/" + String(repeating: "p", count: Int(choice) % 5) + ["", "?q=1", "#f", "/%20x"][Int(source.next()) % 4])
        case .json:
            return json(&source, depth: 0)
        case .bytes:
            let bytes = (0..<(choice == 255 ? 3000 : Int(choice) % 40)).map { _ in source.next() }
            return jsonString(Data(bytes).base64EncodedString())
        case .enumeration:
            return jsonString(enumValues[Int(choice) % enumValues.count])
        case .decimal9, .decimal18, .decimal38:
            let format = kind.decimalFormat ?? DecimalFormat(precision: 1)
            let integerRoom = format.precision - format.scale
            func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(source.below(10))) }) }
            let sign = source.next() & 1 == 0 ? "-" : ""
            switch choice % 4 {
            case 0: return sign + String(repeating: "9", count: integerRoom) + "." + String(repeating: "9", count: format.scale)
            case 1: return ["0", "-0", "0e5", "\"0.000\""][source.below(4)]
            // Fewer places than the scale, as a number or a numeric string, sometimes with an exponent.
            case 2: return "\"" + sign + "1" + digits(source.below(integerRoom)) + "." + digits(1 + source.below(format.scale)) + "\""
            // An exponent of -1 moves a digit past the point: one place fewer written.
            default: return sign + "1" + digits(source.below(integerRoom)) + "." + digits(1 + source.below(format.scale - 1)) + "e-" + String(source.below(2))
            }
        }
    }

    /// Text from a palette that holds what breaks writers: delimiters, quotes, line breaks, NUL, backslashes,
    /// multi-byte characters; sometimes over 64 KiB (Parquet leaves such a bound out of its statistics).
    static func text(_ source: inout ChoiceBytes, long: Bool) -> String {
        let palette = ["a", "Z", "0", ",", "\t", "\"", "\r", "\n", "\r\n", "\u{0}", "\\", "N", "é", "😀", "\u{2028}", " "]
        let length = long ? 70_000 : source.below(12)
        var text = ""
        if long {
            let unit = (0..<7).map { _ in palette[source.below(palette.count)] }.joined()
            text = String(repeating: unit, count: length / max(1, unit.utf8.count) + 1)
        } else {
            for _ in 0..<length { text += palette[source.below(palette.count)] }
        }
        return text == nullText ? text + "a" : text
    }

    static func json(_ source: inout ChoiceBytes, depth: Int) -> String {
        // A value of a json column is never null itself (that is a null, which a required column rejects).
        switch depth == 0 ? 1 + source.below(5) : source.below(depth > 3 ? 4 : 6) {
        case 0: return "null"
        case 1: return ["1", "-0", "1.5e300", "123456789012345678901234567890"][source.below(4)]
        case 2: return jsonString(text(&source, long: false))
        case 3: return source.next() & 1 == 0 ? "true" : "false"
        case 4: return "[" + (0..<source.below(4)).map { _ in json(&source, depth: depth + 1) }.joined(separator: ", ") + "]"
        default:
            return "{" + (0..<source.below(4)).map { index in "\"k\(index)\" : " + json(&source, depth: depth + 1) }.joined(separator: ",") + "}"
        }
    }

    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// Bytes read one choice at a time; zeros once they run out.
public struct ChoiceBytes {
    private let bytes: [UInt8]
    private var position = 0

    /// Choices read from `bytes`, in order.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() -> UInt8 {
        defer { position += 1 }
        return position < bytes.count ? bytes[position] : 0
    }

    mutating func below(_ bound: Int) -> Int { Int(next()) % bound }

    mutating func word() -> UInt64 { (0..<8).reduce(0) { value, _ in value << 8 | UInt64(next()) } }
}
