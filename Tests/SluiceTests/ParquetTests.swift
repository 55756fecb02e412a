import Foundation
import SluiceSinkCases
import Testing
@testable import Sluice
@testable import SluiceWriters

/// Parquet files written by ``ParquetWriter``, read back by pyarrow, DuckDB and polars and compared, value by value, with
/// the values the records were generated from.
@Suite struct ParquetTests {
    static let directory: URL = {
        let url = scratchPath("parquet")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Maps the case's records and writes them to a new file; returns its path.
    static func write(_ testCase: ParquetCase, options: ParquetOptions, name: String = UUID().uuidString) throws -> String {
        let path = directory.appendingPathComponent(name + ".parquet").path
        let schema = try MappingSchema(fields: testCase.fields)
        var readerOptions = ReaderOptions()
        readerOptions.rejectionPolicy = .collect
        readerOptions.batchCapacity = 333
        let reader = try ColumnarReader(input: .bytes(Array(testCase.ndjson.utf8)), schema: schema, options: readerOptions)
        let output = try FileOutput(path: path, ifExists: .replace)
        let writer = try ParquetWriter(fields: testCase.fields, output: output, options: options)
        while let batch = try reader.next() {
            #expect(batch.rejections.isEmpty, "\(batch.rejections.first.map { "\($0)" } ?? "")")
            try writer.write(batch)
        }
        try writer.finish()
        try output.commit()
        return path
    }

    static func expectReadBack(_ path: String, equals expected: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        for reader in [ParquetReadBack.Reader.pyarrow, .duckdb, .polars] {
            let rows = try ParquetReadBack.rows(of: path, reader: reader)
            #expect(rows.count == expected.count, "\(reader) read \(rows.count) rows of \(expected.count)", sourceLocation: sourceLocation)
            if let first = zip(rows, expected).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
                let read = first.element.0.split(separator: "\t", omittingEmptySubsequences: false)
                let wanted = first.element.1.split(separator: "\t", omittingEmptySubsequences: false)
                let columns = zip(read, wanted).enumerated().filter { $0.element.0 != $0.element.1 }
                    .map { "column \($0.offset):\n    read:     \($0.element.0)\n    expected: \($0.element.1)" }
                let differences = columns.joined(separator: "\n  ")
                Issue.record("\(reader), row \(first.offset), \(read.count) columns of \(wanted.count):\n  \(differences)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Every kind, scalar and list, optional and not: small pages and row groups so that values cross both, and
    /// a small dictionary so that text falls back to plain encoding within a row group.
    static let everyKind: [ParquetCase.Column] = ParquetCase.Kind.allCases.enumerated().flatMap { index, kind in
        [(false, false), (true, false), (false, true), (true, true)].map { isOptional, isList in
            ParquetCase.column(kind, name: "c\(index)_\(isOptional ? "opt" : "req")_\(isList ? "list" : "one")", isOptional: isOptional, isList: isList)
        }
    }

    /// Every kind, scalar and list, required and optional, at every density of nulls (a chunk of nulls only, and
    /// runs of null pages before and after values in one chunk), empty and null lists.
    static let everyKindAndDensity: [ParquetCase.Column] = ParquetCase.Kind.allCases.enumerated().flatMap { index, kind in
        [false, true].flatMap { isList in
            ParquetCase.Nulls.allCases.map { nulls in
                ParquetCase.column(kind, name: "c\(index)_\(isList ? "list" : "one")_\(nulls)", isOptional: true, isList: isList, nulls: nulls)
            } + [ParquetCase.column(kind, name: "c\(index)_\(isList ? "list" : "one")_required", isOptional: false, isList: isList)]
        }
    }

    /// How a file of the sweep is laid out: pages and row groups small enough that values, runs of nulls and
    /// lists cross them, a dictionary that overflows partway through a chunk or never does, each compression.
    struct Layout: CustomTestStringConvertible, Sendable {
        var pageBytes: Int
        var rowGroupBytes: Int
        var dictionaryBytes: Int
        var compression: ParquetCompression

        var testDescription: String { "pages \(pageBytes), row groups \(rowGroupBytes), dictionary \(dictionaryBytes), \(compression)" }

        /// Every combination; `SLUICE_PARQUET_GRID=full` runs them all, the suite otherwise four that take
        /// each setting at least once.
        static let grid: [Layout] = [512, 64 << 10].flatMap { page in
            [48 << 10, 8 << 20].flatMap { group in
                [256, 1 << 20].flatMap { dictionary in
                    [ParquetCompression.none, .snappy, .default, .zstd(level: 19)].map { Layout(pageBytes: page, rowGroupBytes: group, dictionaryBytes: dictionary, compression: $0) }
                }
            }
        }

        static let swept: [Layout] = ProcessInfo.processInfo.environment["SLUICE_PARQUET_GRID"] == "full" ? grid : [
            Layout(pageBytes: 512, rowGroupBytes: 48 << 10, dictionaryBytes: 256, compression: .default),
            Layout(pageBytes: 64 << 10, rowGroupBytes: 8 << 20, dictionaryBytes: 1 << 20, compression: .none),
            Layout(pageBytes: 512, rowGroupBytes: 8 << 20, dictionaryBytes: 1 << 20, compression: .snappy),
            Layout(pageBytes: 64 << 10, rowGroupBytes: 48 << 10, dictionaryBytes: 256, compression: .zstd(level: 19)),
        ]
    }

    @Test(arguments: Layout.swept)
    func everyKindAtEveryDensityOfNullsReadsBack(layout: Layout) throws {
        // Three runs of nulls: values, then nulls, then values again in the same columns.
        let testCase = ParquetCase(columns: Self.everyKindAndDensity, records: ParquetCase.Nulls.runLength * 3, seed: 41)
        var options = ParquetOptions()
        options.compression = layout.compression
        options.pageBytes = layout.pageBytes
        options.rowGroupBytes = layout.rowGroupBytes
        options.dictionaryBytes = layout.dictionaryBytes
        let path = try Self.write(testCase, options: options)
        try Self.expectReadBack(path, equals: testCase.expected)
    }

    /// A list column's page also ends at 20,000 levels, whatever its size in bytes.
    @Test func pagesEndAtTheLevelLimit() throws {
        let columns = [ParquetCase.column(.bool, name: "flags", isOptional: true, isList: true, nulls: .runs)]
        let testCase = ParquetCase(columns: columns, records: 12_000, seed: 5)
        let path = try Self.write(testCase, options: ParquetOptions())
        try Self.expectReadBack(path, equals: testCase.expected)
    }

    @Test(arguments: [ParquetCompression.none, .snappy, .default])
    func everyKindReadsBackExactly(compression: ParquetCompression) throws {
        let testCase = ParquetCase(columns: Self.everyKind, records: 2500, seed: 7)
        var options = ParquetOptions()
        options.compression = compression
        options.pageBytes = 4096
        options.rowGroupBytes = 400_000
        options.dictionaryBytes = 300
        let path = try Self.write(testCase, options: options)
        try Self.expectReadBack(path, equals: testCase.expected)
        let statistics = try ParquetReadBack.rows(of: path, reader: .statistics)
        #expect(Set(statistics.map { $0.split(separator: " ")[0] }).count > 1, "the file has one row group: \(statistics.count) column chunks")
    }

    @Test func randomSchemasReadBackExactly() throws {
        var random = ParquetCase.Generator(state: 2026)
        for round in 0..<10 {
            let columns = (0..<Int(1 + random.next() % 6)).map { index in
                ParquetCase.column(ParquetCase.Kind.allCases[Int(random.next() % UInt64(ParquetCase.Kind.allCases.count))], name: "f\(index)",
                                   isOptional: random.next() % 2 == 0, isList: random.next() % 3 == 0)
            }
            let testCase = ParquetCase(columns: columns, records: Int(random.next() % 700), seed: random.next())
            var options = ParquetOptions()
            options.compression = [ParquetCompression.none, .snappy, .default, .zstd(level: 19)][Int(random.next() % 4)]
            options.pageBytes = 64 << (random.next() % 12)
            options.rowGroupBytes = 1024 << (random.next() % 10)
            options.dictionaryBytes = 16 << (random.next() % 12)
            options.timestampUnit = .nanoseconds
            let path = try Self.write(testCase, options: options, name: "random-\(round)")
            try Self.expectReadBack(path, equals: testCase.expected)
        }
    }

    @Test func microsecondTimestampsAreFloored() throws {
        let column = ParquetCase.column(.dateEpoch, name: "at", isOptional: true, isList: false)
        var testCase = ParquetCase(columns: [column], records: 0, seed: 1)
        testCase.ndjson = "{\"at\":-1}\n{\"at\":1999}\n{\"at\":-1000}\n{\"at\":null}\n"
        var options = ParquetOptions()
        options.timestampUnit = .microseconds
        let path = try Self.write(testCase, options: options)
        try Self.expectReadBack(path, equals: ["t:-1", "t:1", "t:-1", "null"])
    }

    /// Minimum, maximum and null count of one row group, in each type's order.
    @Test func statisticsAreExact() throws {
        let fields = [
            FieldSpec(name: "i", type: .int64, isOptional: true), FieldSpec(name: "u", type: .uint64),
            FieldSpec(name: "d", type: .double), FieldSpec(name: "s", type: .string), FieldSpec(name: "b", type: .bool),
            FieldSpec(name: "t", type: .date, epochUnit: .nanoseconds), FieldSpec(name: "l", path: "l.*", type: .string, isOptional: true),
        ]
        var testCase = ParquetCase(columns: fields.map { ParquetCase.Column(kind: .string, isOptional: true, isList: false, field: $0) }, records: 0, seed: 1)
        testCase.ndjson = """
            {"i":-5,"u":18446744073709551615,"d":0.0,"s":"b","b":true,"t":-1,"l":["z","a"]}
            {"i":null,"u":9223372036854775808,"d":-0.0,"s":"ab","b":true,"t":9223372036854775807,"l":[]}
            {"i":7,"u":1,"d":-0.0,"s":"é","b":true,"t":-9223372036854775807}

            """
        let path = try Self.write(testCase, options: ParquetOptions())
        let zeroBits = Int64(bitPattern: (0.0 as Double).bitPattern), negativeZeroBits = Int64(bitPattern: (-0.0 as Double).bitPattern)
        #expect(try ParquetReadBack.rows(of: path, reader: .statistics) == [
            "0 0 1 i:-5 i:7",
            "0 1 0 i:1 i:18446744073709551615",
            "0 2 0 d:\(negativeZeroBits) d:\(zeroBits)",
            "0 3 0 s:6162 s:\(SinkCaseRun.hex(Array("é".utf8)))",
            "0 4 0 b:true b:true",
            "0 5 0 t:-9223372036854775807 t:9223372036854775807",
            // A null list and an empty one count as nulls of the element column.
            "0 6 2 s:61 s:7a",
        ])
    }

    /// Decimals' bounds in each physical layout: signed 4- and 8-byte integers, and big-endian two's complement
    /// bytes, where a negative value's first byte is greater unsigned than a positive one's.
    @Test func decimalStatisticsAreExact() throws {
        let fields = [ParquetCase.Kind.decimal9, .decimal18, .decimal38].map { kind in
            ParquetCase.column(kind, name: "\(kind)", isOptional: true, isList: false).field
        }
        var testCase = ParquetCase(columns: fields.map { ParquetCase.Column(kind: .string, isOptional: true, isList: false, field: $0) }, records: 0, seed: 1)
        testCase.ndjson = """
            {"decimal9":3.1,"decimal18":-0.000001,"decimal38":"-99999999999999999999999999999999999999e-10"}
            {"decimal9":-5.25,"decimal18":999999999999.999999,"decimal38":1e-10}
            {"decimal9":null,"decimal18":0,"decimal38":-1}
            {"decimal9":-0.01,"decimal18":null,"decimal38":255}

            """
        let path = try Self.write(testCase, options: ParquetOptions())
        #expect(try ParquetReadBack.rows(of: path, reader: .statistics) == [
            "0 0 1 n:-5.25 n:3.10",
            "0 1 1 n:-0.000001 n:999999999999.999999",
            "0 2 0 n:-9999999999999999999999999999.9999999999 n:255.0000000000",
        ])
    }

    /// A decimal of only places, at the widest precision: every value below 1 in magnitude, zero included, and
    /// a list of them, read back exactly by the three readers.
    @Test func decimalsOfOnlyPlacesReadBack() throws {
        var field = FieldSpec(name: "p", type: .decimal, isOptional: true)
        field.decimalFormat = DecimalFormat(precision: 38, scale: 38)
        var list = FieldSpec(name: "l", path: "l.*", type: .decimal, isOptional: true)
        list.decimalFormat = field.decimalFormat
        var testCase = ParquetCase(columns: [field, list].map { ParquetCase.Column(kind: .string, isOptional: true, isList: false, field: $0) }, records: 0, seed: 1)
        let nines = "0." + String(repeating: "9", count: 38)
        testCase.ndjson = "{\"p\":0,\"l\":[0.5,-\(nines)]}\n{\"p\":-\(nines)}\n{\"p\":1e-38,\"l\":[]}\n"
        let path = try Self.write(testCase, options: ParquetOptions())
        let zero = "n:0." + String(repeating: "0", count: 38), half = "n:0.5" + String(repeating: "0", count: 37)
        let tiny = "n:0." + String(repeating: "0", count: 37) + "1"
        try Self.expectReadBack(path, equals: ["\(zero)\t[\(half),n:-\(nines)]", "n:-\(nines)\tnull", "\(tiny)\t[]"])
    }

    /// The footer of a small fixed file, byte for byte: schema, logical types, offsets, statistics, encodings.
    @Test func footerOfASmallFileIsStable() throws {
        let columns = [ParquetCase.Kind.int64, .uint64, .double, .bool, .dateEpoch, .string, .json, .bytes, .enumInteger].enumerated().map { index, kind in
            ParquetCase.column(kind, name: "f\(index)", isOptional: index % 2 == 0, isList: index == 5)
        }
        let testCase = ParquetCase(columns: columns, records: 40, seed: 99)
        var options = ParquetOptions()
        options.compression = .none
        options.pageBytes = 256
        let path = try Self.write(testCase, options: options, name: "golden")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let length = bytes[bytes.count - 8..<bytes.count - 4].reversed().reduce(0) { $0 << 8 | Int($1) }
        let footer = Array(bytes[bytes.count - 8 - length..<bytes.count])
        let lines = stride(from: 0, to: footer.count, by: 32).map { SinkCaseRun.hex(Array(footer[$0..<min($0 + 32, footer.count)])) }
        try assertGolden(lines.joined(separator: "\n") + "\n", file: "golden/parquet-footer.hex")
        try Self.expectReadBack(path, equals: testCase.expected)
    }

    @Test func aFileWithNoRowsIsValid() throws {
        let testCase = ParquetCase(columns: Self.everyKind, records: 0, seed: 3)
        let path = try Self.write(testCase, options: ParquetOptions())
        try Self.expectReadBack(path, equals: [])
    }

    /// Finished pages wait in a file that has no name: while row groups are written and after, the output's
    /// directory holds only the file being written.
    @Test func pagesInProgressLeaveNoFileBehind() throws {
        let directory = Self.directory.appendingPathComponent("spill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let testCase = ParquetCase(columns: Self.everyKind, records: 1500, seed: 11)
        let schema = try MappingSchema(fields: testCase.fields)
        var readerOptions = ReaderOptions()
        readerOptions.batchCapacity = 100
        let reader = try ColumnarReader(input: .bytes(Array(testCase.ndjson.utf8)), schema: schema, options: readerOptions)
        let path = directory.appendingPathComponent("out.parquet").path
        let output = try FileOutput(path: path, ifExists: .fail)
        var options = ParquetOptions()
        options.pageBytes = 2048
        options.rowGroupBytes = 100_000
        let writer = try ParquetWriter(fields: testCase.fields, output: output, options: options)
        while let batch = try reader.next() {
            try writer.write(batch)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            // The file in progress, under its temporary name, and the lock that says a run is writing it.
            #expect(names.count == 2 && names.filter { $0.hasSuffix("-partial") }.count == 1 && names.filter { $0.hasSuffix(".lock") }.count == 1, "\(names)")
        }
        try writer.finish()
        try output.commit()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.parquet"])
        try Self.expectReadBack(path, equals: testCase.expected)
        let statistics = try ParquetReadBack.rows(of: path, reader: .statistics)
        #expect(Set(statistics.map { $0.split(separator: " ")[0] }).count > 2, "the file has too few row groups: \(statistics.count) column chunks")
    }
}
