import Foundation
import Sluice
import Testing

/// A record that reads more values than a walk's tape may hold (an eighth of the memory budget, at least 32 MiB of
/// 32-byte entries) is rejected as too large, by either tokenizer, in every input shape, and the records around it
/// map; a damaged one fails for its damage.
@Suite struct RecordValueLimitTests {
    /// Two million values where the tape holds 1,048,576.
    static let many = "[" + Array(repeating: "1", count: 2_000_000).joined(separator: ",") + "]"

    static func read(_ text: String, shape: InputShape, tokenizer: TokenizerChoice, workers: Int) throws -> (ids: [Int64], rejections: [Rejection]) {
        let schema = try MappingSchema(fields: [field("id", .int64), field("n", .int64, path: "n.*", optional: true)])
        var options = ReaderOptions(shape: shape, rejectionPolicy: .collect, workers: workers)
        options.tokenizer = tokenizer
        let reader = try ColumnarReader(input: .bytes(Array(text.utf8)), schema: schema, options: options)
        var ids: [Int64] = []
        var rejections: [Rejection] = []
        while let batch = try reader.next() {
            for row in 0..<batch.count { ids.append(batch.column(0).int64(row) ?? -1) }
            rejections += batch.rejections
        }
        return (ids, rejections)
    }

    @Test(arguments: [TokenizerChoice.simdjson, .yajl])
    func aRecordReadingTooManyValuesIsRejected(tokenizer: TokenizerChoice) throws {
        let records = [#"{"id": 1, "n": [1, 2]}"#, #"{"id": 2, "n": \#(Self.many)}"#, #"{"id": 3}"#]
        for workers in [1, 2] {
            for (shape, text) in [(InputShape.ndjson, records.joined(separator: "\n") + "\n"), (.array, "[" + records.joined(separator: ",\n") + "]")] {
                let (ids, rejections) = try Self.read(text, shape: shape, tokenizer: tokenizer, workers: workers)
                #expect(ids == [1, 3], "\(shape), \(workers) workers")
                #expect(rejections.map(\.location.ordinal) == [2])
                #expect(rejections.first?.failures.map(\.kind) == [.recordTooLarge])
                #expect(rejections.first?.description.contains("at most 1,048,576 values read (an eighth of the memory budget, at least 32 MiB, 32 bytes each)") == true,
                        "\(rejections)")
            }
        }
        // A document alone is the run's one record.
        let (ids, rejections) = try Self.read(#"{"id": 4, "n": \#(Self.many)}"#, shape: .document, tokenizer: tokenizer, workers: 1)
        #expect(ids.isEmpty && rejections.first?.failures.first?.kind == .recordTooLarge, "\(rejections)")
        // Damaged after the limit: the damage is what it fails for.
        let damaged = #"{"id": 5, "n": \#(Self.many.dropLast())x]}"# + "\n"
        let broken = try Self.read(damaged, shape: .ndjson, tokenizer: tokenizer, workers: 1)
        #expect(broken.rejections.first?.failures.first?.kind == .malformedJSON, "\(broken.rejections)")
        // A larger budget holds it.
        let schema = try MappingSchema(fields: [field("id", .int64), field("n", .int64, path: "n.*", optional: true)])
        var options = ReaderOptions(rejectionPolicy: .collect)
        options.tokenizer = tokenizer
        options.memoryBudget = 1 << 30
        let reader = try ColumnarReader(input: .bytes(Array(#"{"id": 6, "n": \#(Self.many)}"#.utf8)), schema: schema, options: options)
        let batch = try #require(try reader.next())
        #expect(batch.count == 1 && batch.rejections.isEmpty)
    }

    /// Records keyed by an object's keys: the record rejected as too large uses up its key, so the records after it
    /// keep theirs; its rejection shows its first bytes only.
    @Test(arguments: [TokenizerChoice.simdjson, .yajl])
    func aRecordTooLargeKeepsTheKeysInStep(tokenizer: TokenizerChoice) throws {
        let text = #"{"events": {"a": {"id": 1}, "b": {"id": 2, "n": \#(Self.many)}, "c": {"id": 3}, "d": {"id": 4}}}"#
        var options = MappingOptions()
        options.recordsPath = "events"
        let schema = try MappingSchema(fields: [field("key", .string, path: "$key"), field("id", .int64), field("n", .int64, path: "n.*", optional: true)],
                                       options: options)
        for workers in [1, 2] {
            var reading = ReaderOptions(rejectionPolicy: .collect, workers: workers)
            reading.tokenizer = tokenizer
            let reader = try ColumnarReader(input: .bytes(Array(text.utf8)), schema: schema, options: reading)
            var rows: [String] = []
            var rejections: [Rejection] = []
            while let batch = try reader.next() {
                for row in 0..<batch.count { rows.append("\(batch.column(0).string(row) ?? "?")=\(batch.column(1).int64(row) ?? -1)") }
                rejections += batch.rejections
            }
            #expect(rows == ["a=1", "c=3", "d=4"], "\(workers) workers")
            #expect(rejections.map(\.location.ordinal) == [2] && rejections.first?.failures.first?.kind == .recordTooLarge)
            #expect(rejections.first.map { $0.rawText.count <= 1024 && $0.isRawTextTruncated } == true)
        }
    }
}
