import Foundation
import SluiceSinkCases
import Testing

/// Random records of every type written to SQLite, CSV or TSV and Parquet through the importer, then read back by
/// readers Sluice does not control (Python's sqlite3 and csv modules, pyarrow, DuckDB) and compared value by value
/// with what Sluice's reader mapped. The `sinks` fuzz target (scripts/fuzz) runs the same cases from the fuzzer's
/// bytes; these are seeded, so that a failure here can be run again.
@Suite struct SinkReadBackTests {
    static func check(_ directory: String) throws -> (status: Int32, output: String) {
        let python = try #require(ProcessInfo.processInfo.environment["SLUICE_TEST_PYTHON"], "run the tests through scripts/test (it sets SLUICE_TEST_PYTHON)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [repositoryRoot.appendingPathComponent("Tests/SinkCases/check_sinks.py").path, directory]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Every type, as a column and as a list, optional or not, then random cases.
    static func caseBytes() -> [[UInt8]] {
        var cases: [[UInt8]] = []
        for kind in UInt8(0)..<13 {
            // Every kind of SinkCase (the ten types and three decimal shapes): settings, layout, four columns of
            // the kind (required; optional; optional list; optional child table), then 200 records.
            cases.append([UInt8(kind &* 37), kind &* 11, 3, kind, kind | 0x40, kind | 0xC0, kind | 0xE0, 200, 1] + (0..<600).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(kind)) })
        }
        var random = SplitMix(seed: 41)
        for _ in 0..<20 { cases.append((0..<(64 + random.below(600))).map { _ in UInt8(truncatingIfNeeded: random.next()) }) }
        return cases
    }

    @Test func everyValueReadsBackThroughFourReaders() throws {
        let directory = scratchPath("sink-cases").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (index, bytes) in Self.caseBytes().enumerated() {
            try SinkCaseRun.write(bytes, into: directory + "/case-\(index)")
        }
        let checked = try Self.check(directory)
        #expect(checked.status == 0, "\(checked.output)")
        #expect(checked.output.hasSuffix("read back through sqlite3, csv, pyarrow and DuckDB: 0 failures\n"), "\(checked.output)")
    }

    /// The checker finds a value that is not what was mapped, in each of the files.
    @Test func theCheckerFindsAChangedValue() throws {
        let directory = scratchPath("sink-tampered").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // One text column whose values are all ",,,", 20 records.
        let bytes: [UInt8] = [0, 0, 0, 5, 20, 1] + Array(repeating: 3, count: 200)
        for name in ["csv", "sqlite", "parquet"] { try SinkCaseRun.write(bytes, into: directory + "/" + name) }
        var csv = try String(contentsOfFile: directory + "/csv/out.csv", encoding: .utf8)
        let value = try #require(csv.range(of: "\",,,\""))
        csv.replaceSubrange(value, with: "\",x,\"")
        try csv.write(toFile: directory + "/csv/out.csv", atomically: false, encoding: .utf8)
        try SQLiteRows.execute(directory + "/sqlite/out.db", "UPDATE t SET c0 = ',x,' WHERE rid = 7")
        // Another case's Parquet file: the same column, other values.
        try FileManager.default.removeItem(atPath: directory + "/parquet/out.parquet")
        try SinkCaseRun.write([0, 0, 0, 5, 20, 1] + Array(repeating: 4, count: 200), into: directory + "/other")
        try FileManager.default.copyItem(atPath: directory + "/other/out.parquet", toPath: directory + "/parquet/out.parquet")
        try FileManager.default.removeItem(atPath: directory + "/other")
        // A child table of the same text, three elements a record: one element changed, one left out.
        try SinkCaseRun.write([0, 0, 0, 0xA1, 20, 1] + Array(repeating: 3, count: 200), into: directory + "/table")
        try SQLiteRows.execute(directory + "/table/out.db", "UPDATE t_c0 SET value = ',x,' WHERE _rid = 7 AND _c0_index = 1")
        var child = try String(contentsOfFile: directory + "/table/out.t_c0.csv", encoding: .utf8)
        let line = try #require(child.range(of: "\n12,2,"))
        child.removeSubrange(line.lowerBound..<(child[line.upperBound...].firstIndex(of: "\n") ?? child.endIndex))
        try child.write(toFile: directory + "/table/out.t_c0.csv", atomically: false, encoding: .utf8)
        let checked = try Self.check(directory)
        #expect(checked.status == 1)
        #expect(checked.output.contains("/csv csv: row "), "\(checked.output)")
        #expect(checked.output.contains("/sqlite sqlite3: row 7 column 1"), "\(checked.output)")
        #expect(checked.output.contains("/parquet pyarrow: row ") && checked.output.contains("/parquet duckdb: row "), "\(checked.output)")
        #expect(checked.output.contains("/table sqlite3 t_c0: row 22 column 2"), "\(checked.output)")
        #expect(checked.output.contains("/table csv t_c0: 38 rows, expected 39"), "\(checked.output)")
        #expect(checked.output.hasSuffix("4 cases, 80 records, read back through sqlite3, csv, pyarrow and DuckDB: 6 failures\n"), "\(checked.output)")
    }
}
