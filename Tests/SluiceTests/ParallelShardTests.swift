import Foundation
import Testing
import SluiceFixtures
@testable import Sluice

/// Shards and byte ranges: together they hold every record of the whole run once, also around a byte-order mark and
/// long blank stretches, and a shard reads only its own bytes.
extension ParallelPipelineTests {
    /// For many random split points, the shards together hold every record of the whole run exactly once.
    @Test func shardsPartitionTheRecords() throws {
        var generator = TweetGenerator(seed: 21)
        var lines = (1...120).map { generator.nextRecord(ordinal: $0) }
        lines[10] = ""
        lines[50] = "{\"id\": broken"
        let bytes = Array(lines.joined(separator: "\n").utf8)
        let url = try temporaryFile(bytes, name: "shards.ndjson")
        let fields = ReferenceMapping.fields
        let whole = try transcript(of: .file(url.path), fields: fields)
        let expectedRows = Set(whole.rows.map(Self.withoutOrdinalAndLine))
        #expect(expectedRows.count == whole.rows.count)
        var random = SplitMix(seed: 99)
        for round in 0..<12 {
            let shardCount = 2 + round % 5
            var bounds = (1..<shardCount).map { _ in random.below(bytes.count + 1) }
            bounds = [0] + bounds.sorted() + [bytes.count]
            var rows: [String] = []
            var rejected = 0
            for index in 0..<shardCount {
                let options = ReaderOptions(batchCapacity: 7, rejectionPolicy: .collect, workers: 1 + index % 2, chunkSize: 1 + round * 300, byteRange: bounds[index]..<bounds[index + 1])
                let shard = try transcript(of: .file(url.path), fields: fields, options: options)
                #expect(shard.error == nil)
                rows += shard.rows.map(Self.withoutOrdinalAndLine)
                rejected += shard.rejections.count
            }
            #expect(rows.count == whole.rows.count, "round \(round), bounds \(bounds)")
            #expect(Set(rows) == expectedRows, "round \(round), bounds \(bounds)")
            #expect(rejected == whole.rejections.count)
        }
    }

    @Test func shardEdges() throws {
        let text = "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n"
        let url = try temporaryFile(Array(text.utf8), name: "edges.ndjson")
        let fields = [field("a", .int64)]
        func values(_ range: Range<Int>) throws -> [String] {
            try transcript(of: .file(url.path), fields: fields, options: ReaderOptions(rejectionPolicy: .collect, byteRange: range)).rows
        }
        #expect(try values(0..<1) == ["#1@1:0 a=1"])
        #expect(try values(0..<8) == ["#1@1:0 a=1"])  // byte 8 starts line 2
        #expect(try values(0..<9) == ["#1@1:0 a=1", "#2@2:8 a=2"])
        #expect(try values(8..<9) == ["#1@1:8 a=2"])
        #expect(try values(1..<8) == [])
        #expect(try values(7..<24) == ["#1@1:8 a=2", "#2@2:16 a=3"])
        #expect(try values(24..<100) == [])
        #expect(try values(5..<5) == [])
        // Bytes in memory split the same way.
        #expect(try transcript(of: .bytes(Array(text.utf8)), fields: fields, options: ReaderOptions(byteRange: 7..<9)).rows == ["#1@1:8 a=2"])
    }

    /// The first record of a file with a byte-order mark starts after the mark: a cut anywhere (inside the mark
    /// too) gives every record to exactly one of the two shards, at the offsets one reader gives.
    @Test func everyCutOfAFileWithAByteOrderMarkKeepsEveryRecordOnce() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n".utf8)
        let url = try temporaryFile(bytes, name: "bom.ndjson")
        let fields = [field("a", .int64)]
        let whole = try transcript(of: .file(url.path), fields: fields, options: ReaderOptions(rejectionPolicy: .collect)).rows.map(Self.withoutOrdinalAndLine)
        #expect(whole == [":3 a=1", ":11 a=2", ":19 a=3"])
        for cut in 0...bytes.count {
            var rows: [String] = []
            for range in [0..<cut, cut..<bytes.count] {
                let shard = try transcript(of: .file(url.path), fields: fields, options: ReaderOptions(rejectionPolicy: .collect, byteRange: range))
                #expect(shard.error == nil && shard.rejections.isEmpty, "cut \(cut), \(range): \(shard)")
                rows += shard.rows.map(Self.withoutOrdinalAndLine)
            }
            #expect(rows == whole, "cut at byte \(cut)")
        }
    }

    /// Concatenated values and a single document after a byte-order mark: offsets count the mark, for any number
    /// of workers (several once reported every offset 3 bytes short).
    @Test(arguments: [InputShape.concatenated, .document])
    func offsetsAfterAByteOrderMarkAgreeForEveryWorkerCount(_ shape: InputShape) throws {
        let text = shape == .document ? "{\"a\": 1}" : "{\"a\": 1} {\"a\": 2}\n{\"a\": \"x\"}"
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(text.utf8)
        let url = try temporaryFile(bytes, name: "bom-\(shape.rawValue).json")
        let fields = [field("a", .int64)]
        let one = try transcript(of: .file(url.path), fields: fields, options: ReaderOptions(shape: shape, rejectionPolicy: .collect))
        #expect(one.rows.first?.hasPrefix("#1@1:3 ") == true, "\(one)")
        for workers in [2, 3] {
            let several = try transcript(of: .file(url.path), fields: fields, options: ReaderOptions(shape: shape, rejectionPolicy: .collect, workers: workers))
            #expect(several.rows == one.rows && several.rejections == one.rejections, "\(workers) workers")
        }
    }

    /// Blank stretches of megabytes (a blank line, a record's leading whitespace) stream past: the records around
    /// them keep their lines and offsets for every worker count and chunk size, and a shard cut inside one keeps
    /// the record whose line started before the cut.
    @Test func longBlankStretchesKeepLinesOffsetsAndShards() throws {
        let blank = String(repeating: " ", count: 3 << 20)
        let text = "{\"a\":1}\n" + blank + "\n" + blank + "{\"a\":2}\n\t\n{\"a\":3}"
        let url = try temporaryFile(Array(text.utf8), name: "blank.ndjson")
        let fields = [field("a", .int64)]
        let expected = ["#1@1:0 a=1", "#2@3:\(8 + 2 * (3 << 20) + 1) a=2", "#3@5:\(8 + 2 * (3 << 20) + 1 + 10) a=3"]
        for (workers, chunk) in [(1, 1 << 20), (2, 1 << 16), (3, 4096), (2, 1 << 20)] {
            let result = try transcript(of: .file(url.path), fields: fields,
                                        options: ReaderOptions(readBufferSize: 64 << 10, maximumRecordSize: 1 << 20, rejectionPolicy: .collect, workers: workers, chunkSize: chunk))
            #expect(result.rows == expected && result.rejections.isEmpty && result.error == nil, "\(workers) workers, chunks of \(chunk)")
        }
        for cut in [9, 1 << 20, (3 << 20) + 9, (3 << 20) + 10, (5 << 20), 8 + 2 * (3 << 20)] {
            var rows: [String] = []
            for range in [0..<cut, cut..<text.utf8.count] {
                rows += try transcript(of: .file(url.path), fields: fields,
                                       options: ReaderOptions(readBufferSize: 64 << 10, rejectionPolicy: .collect, chunkSize: 1 << 16, byteRange: range)).rows
                    .map(Self.withoutOrdinalAndLine)
            }
            #expect(rows == expected.map(Self.withoutOrdinalAndLine), "cut at \(cut)")
        }
    }

    /// A shard seeks to its start: the bytes before it are neither read nor counted, and a shard past the file's
    /// end reads nothing (it once reported the whole offset as read).
    @Test func aShardReadsOnlyItsOwnBytes() throws {
        let text = (1...40_000).map { "{\"a\":\($0)}\n" }.joined()
        let url = try temporaryFile(Array(text.utf8), name: "seek.ndjson")
        let fields = [field("a", .int64)]
        let size = text.utf8.count
        let last = try transcript(of: .file(url.path), fields: fields,
                                  options: ReaderOptions(readBufferSize: 16 << 10, rejectionPolicy: .collect, chunkSize: 16 << 10, byteRange: size - 20_000..<size))
        #expect(last.rows.last?.hasSuffix(" a=40000") == true)
        #expect(last.statistics.bytesRead <= 20_001, "\(last.statistics.bytesRead) bytes read for a shard of 20,000")
        let beyond = try transcript(of: .file(url.path), fields: fields, options: ReaderOptions(rejectionPolicy: .collect, byteRange: 999_999_999..<9_999_999_999))
        #expect(beyond.rows.isEmpty && beyond.rejections.isEmpty && beyond.error == nil)
        #expect(beyond.statistics.bytesRead == 0)
    }

    static func withoutOrdinalAndLine(_ row: String) -> String {
        // "#ordinal@line:offset rest": keep the offset and the values.
        guard let colon = row.firstIndex(of: ":") else { return row }
        return String(row[colon...])
    }
}
