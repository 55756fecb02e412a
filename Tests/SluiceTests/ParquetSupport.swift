import Foundation
import SluiceSinkCases
@testable import Sluice

/// Reads Parquet files back through pyarrow, DuckDB or polars (Tests/ParquetReaders/read_values.py, in the Python that
/// `scripts/test` sets up and names in `SLUICE_TEST_PYTHON`): one line per row, one canonical token per column.
enum ParquetReadBack {
    enum Reader: String, CaseIterable {
        case pyarrow, duckdb, polars
        /// Not the rows: the footer's statistics, a line per row group and column.
        case statistics
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func rows(of file: String, reader: Reader) throws -> [String] {
        guard let python = ProcessInfo.processInfo.environment["SLUICE_TEST_PYTHON"] else {
            throw Failure(description: "no Python with pyarrow, duckdb and polars: run the tests through scripts/test (or set SLUICE_TEST_PYTHON to scripts/python-env's output)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [repositoryRoot.appendingPathComponent("Tests/ParquetReaders/read_values.py").path, reader.rawValue, file]
        let output = Pipe()
        // Errors go to a file, so that a long one cannot fill a pipe nobody reads while the rows are read.
        let errorFile = scratchPath("readback-errors.txt")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(reader) could not read \(file): \((try? String(contentsOf: errorFile, encoding: .utf8)) ?? "")")
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}

/// Random records with known values: each field's JSON text, and the token a reader must give back for it.
struct ParquetCase {
    enum Kind: CaseIterable {
        case int64, uint64, double, bool, dateEpoch, dateText, string, url, json, bytes, enumText, enumInteger
        /// Decimals stored in 4 bytes, in 8, and in 16 fixed-length bytes.
        case decimal9, decimal18, decimal38

        /// A decimal kind's precision and scale.
        var decimalFormat: DecimalFormat? {
            [.decimal9: SinkCase.decimalShapes[0], .decimal18: SinkCase.decimalShapes[1], .decimal38: SinkCase.decimalShapes[2]][self]
        }
    }

    /// How often an optional column's value is null (missing or `null`).
    enum Nulls: CaseIterable {
        /// Never: an optional column that happens to hold no null.
        case none
        /// One record in five.
        case some
        /// Every record: a column chunk of nulls only.
        case all
        /// Runs of ``runLength`` records null, then as many not: whole pages, and whole row groups, of nulls
        /// before and after values in the same column chunk.
        case runs

        static let runLength = 700
    }

    struct Column {
        var kind: Kind
        var isOptional: Bool
        var isList: Bool
        var field: FieldSpec
        var nulls: Nulls

        init(kind: Kind, isOptional: Bool, isList: Bool, field: FieldSpec, nulls: Nulls? = nil) {
            self.kind = kind
            self.isOptional = isOptional
            self.isList = isList
            self.field = field
            self.nulls = nulls ?? (isOptional ? .some : .none)
        }

        func isNull(record: Int, _ random: inout Generator) -> Bool {
            switch nulls {
            case .none: false
            case .some: random.next() % 5 == 0
            case .all: true
            case .runs: record / Nulls.runLength % 2 == 1
            }
        }
    }

    var columns: [Column]
    /// The input, one JSON object per line.
    var ndjson = ""
    /// Per record, the expected tokens joined by tabs.
    var expected: [String] = []

    var fields: [FieldSpec] { columns.map(\.field) }

    /// A deterministic generator (SplitMix64), so that a failing case can be run again.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }

    /// A column of `kind`; an optional one with `nulls` (by default one record in five), a required one with none.
    static func column(_ kind: Kind, name: String, isOptional: Bool, isList: Bool, nulls: Nulls? = nil) -> Column {
        var field = FieldSpec(name: name, path: isList ? "\(name).*" : name, type: .string, isOptional: isOptional)
        switch kind {
        case .int64: field.type = .int64
        case .uint64: field.type = .uint64
        case .double: field.type = .double
        case .bool: field.type = .bool
        case .dateEpoch:
            field.type = .date
            field.epochUnit = .nanoseconds
        case .dateText: field.type = .date
        case .string: field.type = .string
        case .url: field.type = .url
        case .json: field.type = .json
        case .bytes: field.type = .bytes
        case .enumText:
            field.type = .enumeration
            field.enumValues = [EnumValue(json: "a", value: "alpha"), EnumValue(json: "b", value: "béta ✓")]
        case .enumInteger:
            field.type = .enumeration
            field.enumValues = [EnumValue(json: "low", value: "-1", storedKind: .integer), EnumValue(json: "high", value: "9223372036854775807", storedKind: .integer)]
        case .decimal9, .decimal18, .decimal38:
            field.type = .decimal
            field.decimalFormat = kind.decimalFormat
        }
        return Column(kind: kind, isOptional: isOptional, isList: isList, field: field, nulls: isOptional ? nulls : Nulls.none)
    }

    init(columns: [Column], records: Int, seed: UInt64) {
        self.columns = columns
        var random = Generator(state: seed)
        for record in 0..<records {
            var members: [String] = []
            var tokens: [String] = []
            for column in columns {
                let key = "\"\(column.field.name)\":"
                if column.isNull(record: record, &random) {
                    // Missing or null: a null either way.
                    if random.next() % 2 == 0 { members.append(key + "null") }
                    tokens.append("null")
                    continue
                }
                if column.isList {
                    var elements: [String] = []
                    var elementTokens: [String] = []
                    for _ in 0..<Int(random.next() % 5) {
                        if random.next() % 6 == 0 {
                            // A null element is dropped.
                            elements.append("null")
                            continue
                        }
                        let (text, token) = Self.value(column.kind, &random)
                        elements.append(text)
                        elementTokens.append(token)
                    }
                    members.append(key + "[" + elements.joined(separator: ",") + "]")
                    tokens.append("[" + elementTokens.joined(separator: ",") + "]")
                } else {
                    let (text, token) = Self.value(column.kind, &random)
                    members.append(key + text)
                    tokens.append(token)
                }
            }
            ndjson += "{" + members.joined(separator: ",") + "}\n"
            expected.append(tokens.joined(separator: "\t"))
        }
    }

    /// A value's JSON text and its token.
    static func value(_ kind: Kind, _ random: inout Generator) -> (String, String) {
        func pick<T>(_ choices: [T]) -> T { choices[Int(random.next() % UInt64(choices.count))] }
        switch kind {
        case .int64:
            let value: Int64 = random.next() % 3 == 0 ? pick([Int64.min, Int64.max, 0, -1]) : Int64(bitPattern: random.next()) >> Int64(random.next() % 60)
            return ("\(value)", "i:\(value)")
        case .uint64:
            let value: UInt64 = random.next() % 3 == 0 ? pick([UInt64.max, 0, 1 << 63]) : random.next() >> (random.next() % 60)
            return ("\(value)", "i:\(value)")
        case .double:
            let value: Double = random.next() % 2 == 0 ? pick([-0.0, 0.0, 1.5, -2.25e-300, .greatestFiniteMagnitude, .leastNonzeroMagnitude, -1e22])
                : Double(Int64(bitPattern: random.next()) >> 12) / 1024
            return ("\(value)", "d:\(Int64(bitPattern: value.bitPattern))")
        case .bool:
            let value = random.next() % 2 == 0
            return ("\(value)", "b:\(value)")
        case .dateEpoch, .dateText:
            // 1677 to 2262, the instants an Int64 of nanoseconds holds: before 1970 and after 2038 included.
            let nanoseconds: Int64 = random.next() % 3 == 0 ? pick([0, -1, Int64.min + 1, Int64.max, -1_418_294_000_000_000_001, 2_147_483_648_000_000_001])
                : Int64(bitPattern: random.next()) >> Int64(random.next() % 8)
            let text = kind == .dateEpoch ? "\(nanoseconds)" : "\"" + DateText.rfc3339(nanoseconds) + "\""
            return (text, "t:\(nanoseconds)")
        case .string, .url:
            let text: String = kind == .url ? pick(["https://example.com/a?b=c#d", "relative/path", "mailto:x@example.org", "https://bücher.example/ü"])
                : pick(["", "plain", "\"quoted\" \\ / \u{8}\u{c}\n\r\t", "nul\u{0}inside", "😀𝄞 four bytes", "é", "ünïcødé ✓", String(repeating: "long ", count: 80), "\u{1F}\u{7F}"])
            return (jsonString(text, surrogates: random.next() % 2 == 0), "s:" + SinkCaseRun.hex(Array(text.utf8)))
        case .json:
            let text = pick(["{\"a\":[1,2,{\"b\":null}]}", "[]", "{}", "[\"x\",-0.5,true]", "{\"k\":\"\\u00e9\\n\"}"])
            return (text, "s:" + SinkCaseRun.hex(Array(text.utf8)))
        case .bytes:
            var bytes = (0..<Int(random.next() % 12)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if random.next() % 2 == 0 { bytes += [0, 0, 255, 0] }
            return ("\"" + Data(bytes).base64EncodedString() + "\"", "x:" + SinkCaseRun.hex(bytes))
        case .enumText:
            return pick([("\"a\"", "s:" + SinkCaseRun.hex(Array("alpha".utf8))), ("\"b\"", "s:" + SinkCaseRun.hex(Array("béta ✓".utf8)))])
        case .enumInteger:
            return pick([("\"low\"", "i:-1"), ("\"high\"", "i:9223372036854775807")])
        case .decimal9, .decimal18, .decimal38:
            return decimal(kind.decimalFormat ?? DecimalFormat(precision: 1), &random)
        }
    }

    /// A decimal of the shape (the extremes, zero, or random digits) written in one of the ways JSON can spell it,
    /// and its canonical text.
    static func decimal(_ format: DecimalFormat, _ random: inout Generator) -> (String, String) {
        let integerRoom = format.precision - format.scale
        var integer: String
        var fraction: String
        switch random.next() % 6 {
        case 0:
            integer = String(repeating: "9", count: integerRoom)
            fraction = String(repeating: "9", count: format.scale)
        case 1:
            integer = ""
            fraction = String(repeating: "0", count: format.scale)
        default:
            integer = String((0..<Int(random.next() % UInt64(integerRoom + 1))).map { _ in Character(String(random.next() % 10)) })
            fraction = String((0..<format.scale).map { _ in Character(String(random.next() % 10)) })
        }
        while integer.hasPrefix("0") { integer.removeFirst() }
        let isZero = (integer + fraction).allSatisfy { $0 == "0" }
        let sign = !isZero && random.next() % 2 == 0 ? "-" : ""
        let canonical = sign + (integer.isEmpty ? "0" : integer) + (format.scale > 0 ? "." + fraction : "")
        let digits = integer + fraction
        let trimmed = digits.drop { $0 == "0" }
        // Trailing zeros of the fraction left out: `12.5` for 12.50.
        var short = canonical
        if format.scale > 0 {
            while short.hasSuffix("0") { short.removeLast() }
            if short.hasSuffix(".") { short.removeLast() }
        }
        let text: String = switch random.next() % 4 {
        case 0: canonical
        case 1: "\"" + canonical + "\""
        // The unscaled digits with an exponent: `12345e-2`.
        case 2: sign + (trimmed.isEmpty ? "0" : String(trimmed)) + "e-\(format.scale)"
        default: short
        }
        return (text, "n:" + canonical)
    }

    /// JSON string text: control characters, quotes and backslashes escaped; characters beyond the Basic
    /// Multilingual Plane written as surrogate-pair escapes when `surrogates`.
    static func jsonString(_ text: String, surrogates: Bool) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "/": output += "\\/"
            case "\n": output += "\\n"
            case "\t": output += "\\t"
            case "\u{8}": output += "\\b"
            case "\u{c}": output += "\\f"
            case "\r": output += "\\r"
            default:
                if scalar.value < 0x20 {
                    output += String(format: "\\u%04x", scalar.value)
                } else if scalar.value > 0xFFFF && surrogates {
                    let value = scalar.value - 0x10000
                    output += String(format: "\\u%04X\\u%04x", 0xD800 + (value >> 10), 0xDC00 + (value & 0x3FF))
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        return output + "\""
    }
}
