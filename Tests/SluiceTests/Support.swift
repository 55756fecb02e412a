import Foundation
import Testing
@testable import Sluice

/// The repository root, found from this file's path (fixtures live outside any target).
let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let fixturesDirectory = repositoryRoot.appendingPathComponent("Fixtures")
/// The corpora the tests read (`conformance/`, `realdata/`), kept in the repository with their licences.
let corporaDirectory = fixturesDirectory
let conformanceDirectory = corporaDirectory.appendingPathComponent("conformance/JSONTestSuite")

/// Where tests put the files they write: one directory for the test process, removed when it exits (tests run
/// concurrently, so no test can remove a shared directory itself; `scripts/test` checks that nothing is left).
let scratchDirectory: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-tests-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit {
        try? FileManager.default.removeItem(at: FileManager.default.temporaryDirectory.appendingPathComponent("sluice-tests-\(getpid())"))
    }
    return url
}()

/// A fresh path in the scratch directory, ending in `name`.
func scratchPath(_ name: String) -> URL {
    scratchDirectory.appendingPathComponent(UUID().uuidString + "-" + name)
}

/// Writes `bytes` to a fresh file in the scratch directory.
/// Cuts the file at `url`, which held `count` bytes, to half of them, or extends it by one record.
func changeSize(of url: URL, holding count: Int, cut: Bool) throws {
    let handle = try FileHandle(forWritingTo: url)
    if cut {
        try handle.truncate(atOffset: UInt64(count / 2))
    } else {
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\n{\"id\":1}".utf8))
    }
    try handle.close()
}

func temporaryFile(_ bytes: [UInt8], name: String) throws -> URL {
    let url = scratchPath(name)
    try Data(bytes).write(to: url)
    return url
}

/// Everything a run produced, rendered as text so that runs can be compared whole and read in a failure.
/// When a run ends with an error, the bytes read are left out of the comparison: how far reading had got ahead
/// of mapping when it stopped depends on buffer and chunk sizes.
struct RunTranscript: Equatable, CustomStringConvertible {
    var rows: [String] = []
    var rejections: [String] = []
    var rawTexts: [String] = []
    var error: String?
    var statistics = ReadStatistics()

    static func == (left: RunTranscript, right: RunTranscript) -> Bool {
        var leftCounts = left.statistics
        var rightCounts = right.statistics
        if left.error != nil || right.error != nil {
            leftCounts.bytesRead = 0
            rightCounts.bytesRead = 0
        }
        return left.rows == right.rows && left.rejections == right.rejections && left.rawTexts == right.rawTexts
            && left.error == right.error && leftCounts == rightCounts
    }

    var description: String {
        (rows + rejections.map { "rejected " + $0 } + (error.map { ["error: " + $0] } ?? [])).joined(separator: "\n")
    }
}

/// Renders one row: `#ordinal@line:offset name=value …`, with null as `null` and text quoted.
func render(_ batch: ColumnarBatch, row: Int) -> String {
    let location = batch.location(ofRow: row)
    var parts = ["#\(location.ordinal)@\(location.line):\(location.byteOffset)"]
    for index in batch.fields.indices {
        let column = batch.column(index)
        let value: String
        if column.isNull(row) {
            value = "null"
        } else {
            switch column.field.columnType {
            case .int64: value = String(column.int64(row) ?? 0)
            case .double: value = String(column.double(row) ?? 0)
            case .bool: value = String(column.bool(row) ?? false)
            case .string, .url, .enumeration: value = "\"" + (column.string(row) ?? "") + "\""
            case .json, .decimal: value = column.string(row) ?? ""
            case .uint64: value = String(column.uint64(row) ?? 0)
            case .date: value = DateText.rfc3339(column.dateNanoseconds(row) ?? 0)
            case .bytes: value = "base64:" + ((column.bytes(row) ?? []).withUnsafeBufferPointer { Base64.encode($0) })
            }
        }
        parts.append("\(column.field.name)=\(value)")
    }
    return parts.joined(separator: " ")
}

/// Maps `text` with `fields` and returns everything that came out.
func transcript(
    of text: String, fields: [FieldSpec], options: ReaderOptions = ReaderOptions(rejectionPolicy: .collect), schemaOptions: MappingOptions = MappingOptions()
) throws -> RunTranscript {
    try transcript(of: .bytes(Array(text.utf8)), fields: fields, options: options, schemaOptions: schemaOptions)
}

func transcript(
    of input: Input, fields: [FieldSpec], options: ReaderOptions = ReaderOptions(rejectionPolicy: .collect), schemaOptions: MappingOptions = MappingOptions()
) throws -> RunTranscript {
    let reader = try ColumnarReader(input: input, schema: try MappingSchema(fields: fields, options: schemaOptions), options: options)
    return transcript(batchCapacity: options.batchCapacity, next: reader.next, statistics: { reader.statistics })
}

/// The transcript of the batches `next` gives until it returns `nil` or throws, and the counts after them.
/// `shown`: how a rejection is written into the transcript.
func transcript(batchCapacity: Int, next: () throws(SluiceError) -> ColumnarBatch?, statistics: () -> ReadStatistics,
                shown: (Rejection) -> String = \.description) -> RunTranscript {
    var result = RunTranscript()
    do {
        while let batch = try next() {
            #expect(batch.count <= batchCapacity)
            for row in 0..<batch.count { result.rows.append(render(batch, row: row)) }
            result.rejections += batch.rejections.map(shown)
            result.rawTexts += batch.rejections.map { String(decoding: $0.rawText, as: UTF8.self) }
        }
    } catch {
        result.error = error.description
    }
    result.statistics = statistics()
    #expect(result.statistics.recordsRead == result.statistics.recordsMapped + result.statistics.recordsRejected)
    #expect(result.statistics.recordsMapped == result.rows.count)
    #expect(result.statistics.recordsRejected == result.rejections.count)
    return result
}

/// Runs `run` on one thread (one worker, 512 KiB chunks, batches of 4096) and through the pipeline at chunk sizes
/// from one byte up and batch capacities from one record up, expects the same result from each, and returns the
/// first. `run` gets the worker count, chunk size and batch capacity.
func expectSameForEveryPipeline<Result: Equatable>(
    sourceLocation: SourceLocation = #_sourceLocation, _ run: (_ workers: Int, _ chunk: Int, _ capacity: Int) throws -> Result
) throws -> Result {
    let reference = try run(1, 512 << 10, 4096)
    for (workers, chunk, capacity) in [(2, 1, 3), (2, 700, 4096), (3, 20_000, 17), (4, 1 << 20, 1)] {
        let result = try run(workers, chunk, capacity)
        #expect(result == reference, "\(workers) workers, chunks of \(chunk)", sourceLocation: sourceLocation)
    }
    return reference
}

/// The problems `compile` reports when it compiles a mapping: none when it compiles; any error that is not a
/// list of mapping problems is recorded as an issue.
func mappingProblems(sourceLocation: SourceLocation = #_sourceLocation, _ compile: () throws -> Void) -> [MappingProblem] {
    do {
        try compile()
        return []
    } catch SluiceError.invalidMapping(let problems) {
        return problems
    } catch {
        Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        return []
    }
}

func field(_ name: String, _ type: FieldType, path: String? = nil, optional: Bool = false) -> FieldSpec {
    FieldSpec(name: name, path: path, type: type, isOptional: optional)
}

/// Compares `actual` with the committed file under Fixtures/; `SLUICE_UPDATE_GOLDEN=1` rewrites it instead.
func assertGolden(_ actual: String, file: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let url = fixturesDirectory.appendingPathComponent(file)
    if ProcessInfo.processInfo.environment["SLUICE_UPDATE_GOLDEN"] == "1" {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try actual.write(to: url, atomically: false, encoding: .utf8)
        return
    }
    let expected = try String(contentsOf: url, encoding: .utf8)
    if expected != actual {
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let firstDifference = Array(zip(expectedLines, actualLines)).firstIndex { $0 != $1 } ?? min(expectedLines.count, actualLines.count)
        Issue.record(
            "\(file) differs at line \(firstDifference + 1):\n  expected: \(firstDifference < expectedLines.count ? String(expectedLines[firstDifference]) : "<end>")\n  actual:   \(firstDifference < actualLines.count ? String(actualLines[firstDifference]) : "<end>")",
            sourceLocation: sourceLocation)
    }
}

/// Records for a model nested in a nested model (`a` → `b` → `n: Int32`, `tags: [Int]`), and the failures both
/// kinds of typed mapping must name from the record's root: one valid record, one with refused values, one
/// missing a required value.
enum NestedInNested {
    static let records = """
        {"a":{"b":{"n":1,"tags":[2]}}}
        {"a":{"b":{"n":3000000000,"tags":[1,"x"]}}}
        {"a":{"b":{"tags":[]}}}

        """
    static let failures = [
        ["$.a.b.n: expected int32 (-2147483648 to 2147483647), found number 3000000000", #"$.a.b.tags[1]: expected int64, found string "x""#],
        ["$.a.b.n: expected int32, found no value"],
    ]
}
