import Foundation
import Synchronization
import Testing
import SluiceFixtures
@testable import Sluice

/// The parallel pipeline must give exactly what one reader gives: the same records with the same ordinals, lines
/// and offsets, the same rejections and the same ending, for every worker count, chunk size and batch capacity.
@Suite struct ParallelPipelineTests {
    static let workerCounts = [2, 4]
    static let chunkSizes = [1, 5, 64, 1000, 1 << 20]
    static let capacities = [1, 3, 4096]

    static func parallel(_ workers: Int, chunk: Int, capacity: Int, shape: InputShape = .automatic, policy: RejectionPolicy = .collect, maximumRecordSize: Int = 64 << 20) -> ReaderOptions {
        ReaderOptions(shape: shape, batchCapacity: capacity, maximumRecordSize: maximumRecordSize, rejectionPolicy: policy, workers: workers, chunkSize: chunk)
    }

    /// Runs `input` sequentially and then in parallel in every configuration; each must match the first.
    static func expectSameAsSequential(_ input: Input, fields: [FieldSpec], shape: InputShape = .automatic, maximumRecordSize: Int = 64 << 20, chunkSizes: [Int] = chunkSizes, sourceLocation: SourceLocation = #_sourceLocation) throws -> RunTranscript {
        let reference = try transcript(of: input, fields: fields, options: ReaderOptions(shape: shape, maximumRecordSize: maximumRecordSize, rejectionPolicy: .collect))
        for workers in workerCounts {
            for (index, chunk) in chunkSizes.enumerated() {
                let capacity = capacities[(index + workers) % capacities.count]
                let result = try transcript(of: input, fields: fields, options: parallel(workers, chunk: chunk, capacity: capacity, shape: shape, maximumRecordSize: maximumRecordSize))
                #expect(result == reference, "\(workers) workers, chunks of \(chunk), batches of \(capacity):\n\(result)\n--- expected\n\(reference)", sourceLocation: sourceLocation)
            }
        }
        return reference
    }

    @Test(arguments: GoldenTests.cases.filter { ["people-ndjson", "people-array", "tweets-example"].contains($0.name) })
    func goldenInputs(_ testCase: GoldenTests.Case) throws {
        let schema = try MappingSchema(contentsOfFile: GoldenTests.golden.appendingPathComponent(testCase.mapping).path)
        _ = try Self.expectSameAsSequential(.file(testCase.input.path), fields: schema.fields, shape: testCase.shape)
    }

    @Test func realArrayRecordsInBigChunks() throws {
        let testCase = try #require(GoldenTests.cases.first { $0.name == "amazon-arrays" })
        let schema = try MappingSchema(contentsOfFile: GoldenTests.golden.appendingPathComponent(testCase.mapping).path)
        let reference = try Self.expectSameAsSequential(.file(testCase.input.path), fields: schema.fields, chunkSizes: [4096, 1 << 20])
        #expect(reference.rows.count > 500)
    }

    /// Generated tweets with rejections of every kind NDJSON can resume after, blank lines, CRLF and no final
    /// line feed.
    @Test func generatedNDJSONWithRejections() throws {
        var generator = TweetGenerator(seed: 11)
        var lines = (1...60).map { generator.nextRecord(ordinal: $0) }
        lines[5] = "{\"id\": 1, broken"
        lines[9] = lines[9].replacingOccurrences(of: "\"retweet_count\":", with: "\"retweet_count\":\"many\",\"x\":")
        lines[14] = "{\"id\":2} {\"id\":3}"
        lines[20] = ""
        lines[21] = "   "
        lines[30] = lines[30] + "\r"
        lines[44] = "[1, 2"
        let text = "\u{FEFF}" + lines.joined(separator: "\n")
        let reference = try Self.expectSameAsSequential(.bytes(Array(text.utf8)), fields: ReferenceMapping.fields)
        #expect(reference.rejections.count == 4)
        #expect(reference.rows.count == 54)
    }

    /// Pretty-printed arrays: records over several lines, so lines must be counted across chunks.
    @Test func generatedArraysOverSeveralLines() throws {
        var generator = TweetGenerator(seed: 5)
        var records = (1...50).map { generator.nextRecord(ordinal: $0) }
        records[7] = records[7].replacingOccurrences(of: "\"retweet_count\":", with: "\"retweet_count\":\"many\",\"x\":")
        let pretty = records.map { $0.replacingOccurrences(of: ",\"user\":", with: ",\n    \"user\":") }
        let text = "\n[\n  " + pretty.joined(separator: " ,\n\n  ") + "\n]\n\n"
        let reference = try Self.expectSameAsSequential(.bytes(Array(text.utf8)), fields: ReferenceMapping.fields)
        #expect(reference.rows.count == 49)
        #expect(reference.error == nil)
    }

    @Test func arraysOfScalarsAndStrings() throws {
        let fields = [field("value", .json, path: "$")]
        _ = try Self.expectSameAsSequential(.bytes(Array("[1, 2.5 ,\"a,]b\" ,true,null, -3e2,{\"x\":[1,{}]},[] ]".utf8)), fields: fields)
        _ = try Self.expectSameAsSequential(.bytes(Array("[]".utf8)), fields: fields, shape: .array)
        _ = try Self.expectSameAsSequential(.bytes(Array("  [ ]  \n".utf8)), fields: fields, shape: .array)
    }

    /// Elements whose strings hold brackets, quotes, commas and escapes at every position relative to the framer's
    /// eight-byte words: the framer must find exactly the boundaries the parser finds.
    @Test func randomElementsWithTrickyStrings() throws {
        let text = trickyArray(seed: 1234, elements: 300)
        let fields = [field("id", .int64), field("v", .json, optional: true)]
        let reference = try Self.expectSameAsSequential(.bytes(Array(text.utf8)), fields: fields, chunkSizes: [1, 13, 333, 4096])
        #expect(reference.rows.count == 300)
        #expect(reference.error == nil)
    }

    /// Broken arrays end the run at the same record, with the same error, for every worker count and chunk
    /// size, after delivering the records before it.
    @Test(arguments: [
        ("[{\"a\":1} {\"a\":2}]", 1), ("[{\"a\":1},,{\"a\":2}]", 1), ("[{\"a\":1},]", 1), ("[{\"a\":1}] x", 1),
        ("[{\"a\":1},{\"a\":2}", 2), ("[{\"a\":1},{\"a\":[1}]", 1), ("[{\"a\":1},{\"a\":2", 1), ("x", 0), ("[1 2]", 0),
        ("[{\"a\":1},{\"a\":tru}]", 1), ("{\"a\":1}", 0),
    ])
    func brokenArrays(_ text: String, delivered: Int) throws {
        let fields = [field("a", .int64, optional: true)]
        let bytes = Input.bytes(Array(text.utf8))
        let reference = try transcript(of: bytes, fields: fields, options: Self.parallel(2, chunk: 1 << 20, capacity: 4096, shape: .array))
        #expect(reference.rows.count == delivered)
        #expect(reference.error?.contains("cannot read past rejected record") == true, "\(reference)")
        let sequential = try transcript(of: bytes, fields: fields, options: ReaderOptions(shape: .array, rejectionPolicy: .collect))
        #expect(sequential.rows == reference.rows)
        #expect(sequential.statistics.recordsRead == reference.statistics.recordsRead)
        for workers in Self.workerCounts {
            for chunk in [1, 2, 3, 7, 64] {
                #expect(try transcript(of: bytes, fields: fields, options: Self.parallel(workers, chunk: chunk, capacity: 2, shape: .array)) == reference, "\(workers) workers, chunks of \(chunk)")
            }
        }
    }

    @Test func oversizedLinesAreRejectedAndSkipped() throws {
        let lines = ["{\"a\":1}", "{\"a\":\"" + String(repeating: "x", count: 300) + "\"}", "{\"a\":3}", "   {\"a\":\"" + String(repeating: "y", count: 90) + "\"}", "{\"a\":5}"]
        let reference = try Self.expectSameAsSequential(.bytes(Array(lines.joined(separator: "\n").utf8)), fields: [field("a", .json)], maximumRecordSize: 64, chunkSizes: [1, 7, 50, 100, 1000])
        #expect(reference.rows.count == 3)
        #expect(reference.rejections.allSatisfy { $0.contains("at most 64 bytes") })
    }

    @Test func oversizedArrayElementEndsTheRun() throws {
        let text = "[{\"a\":1},{\"a\":\"" + String(repeating: "x", count: 300) + "\"},{\"a\":3}]"
        let fields = [field("a", .json)]
        let reference = try transcript(of: .bytes(Array(text.utf8)), fields: fields, options: Self.parallel(2, chunk: 1, capacity: 3, maximumRecordSize: 100))
        #expect(reference.rows.count == 1)
        #expect(reference.error?.contains("expected at most 100 bytes, found a longer record") == true, "\(reference)")
        for chunk in [5, 64, 99, 4096] {
            #expect(try transcript(of: .bytes(Array(text.utf8)), fields: fields, options: Self.parallel(2, chunk: chunk, capacity: 3, maximumRecordSize: 100)) == reference)
        }
    }

    @Test func stopPolicyStopsAtTheSameRecord() throws {
        var generator = TweetGenerator(seed: 3)
        var lines = (1...40).map { generator.nextRecord(ordinal: $0) }
        lines[23] = lines[23].replacingOccurrences(of: "\"retweet_count\":", with: "\"retweet_count\":\"many\",\"x\":")
        let input = Input.bytes(Array(lines.joined(separator: "\n").utf8))
        let fields = ReferenceMapping.fields
        let reference = try transcript(of: input, fields: fields, options: ReaderOptions(rejectionPolicy: .stop))
        #expect(reference.rows.count == 23)
        for chunk in [1, 3000, 1 << 20] {
            #expect(try transcript(of: input, fields: fields, options: Self.parallel(3, chunk: chunk, capacity: 5, policy: .stop)) == reference)
        }
    }

    // MARK: - Shards

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

    // MARK: - Compressed input

    @Test(arguments: [1, 3])
    func compressedInputsMatchTheirPlainTwins(_ workers: Int) throws {
        var generator = TweetGenerator(seed: 8)
        let lines = (1...300).map { generator.nextRecord(ordinal: $0) }
        let plain = Array((lines.joined(separator: "\n") + "\n").utf8)
        let half = Array((lines[..<150].joined(separator: "\n") + "\n").utf8)
        let rest = Array((lines[150...].joined(separator: "\n") + "\n").utf8)
        let fields = ReferenceMapping.fields
        let options = ReaderOptions(batchCapacity: 64, rejectionPolicy: .collect, workers: workers, chunkSize: 10_000)
        let reference = try transcript(of: .bytes(plain), fields: fields, options: options)
        #expect(reference.rows.count == 300)
        let twins: [(String, [UInt8])] = [
            ("gzip", Compressor.gzip(plain)), ("zstd", Compressor.zstd(plain)),
            ("two gzip members", Compressor.gzip(half) + Compressor.gzip(rest)), ("two zstd frames", Compressor.zstd(half) + Compressor.zstd(rest)),
        ]
        for (name, compressed) in twins {
            #expect(compressed.count > 0 && compressed.count < plain.count / 2)
            let url = try temporaryFile(compressed, name: "twin.\(name.replacingOccurrences(of: " ", with: "-"))")
            let result = try transcript(of: .file(url.path), fields: fields, options: options)
            #expect(result.rows == reference.rows, "\(name)")
            #expect(result.statistics.bytesRead == plain.count, "\(name)")
        }
    }

    @Test(arguments: ["gzip", "zstd"])
    func damagedCompressedInputsNameTheFileAndOffset(_ format: String) throws {
        var generator = TweetGenerator(seed: 9)
        let plain = Array(((1...200).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n") + "\n").utf8)
        let compressed = format == "gzip" ? Compressor.gzip(plain) : Compressor.zstd(plain)
        let truncated = try temporaryFile(Array(compressed[..<(compressed.count * 2 / 3)]), name: "truncated.\(format)")
        // Garbage where a next member or frame would start (a flipped byte inside a zstd frame without a
        // checksum may decode to other bytes without complaint).
        let corrupt = compressed + Array("not compressed at all".utf8)
        let corrupted = try temporaryFile(corrupt, name: "corrupt.\(format)")
        for workers in [1, 2] {
            let options = ReaderOptions(rejectionPolicy: .collect, workers: workers, chunkSize: 4096)
            let cut = try transcript(of: .file(truncated.path), fields: ReferenceMapping.fields, options: options)
            #expect(cut.error?.contains(truncated.path) == true && cut.error?.contains("truncated \(format) data") == true, "\(cut.error ?? "no error")")
            #expect(cut.rows.count > 0 && cut.rows.count < 200)
            #expect(cut.rows == Array(try transcript(of: .bytes(plain), fields: ReferenceMapping.fields).rows.prefix(cut.rows.count)))
            let bad = try transcript(of: .file(corrupted.path), fields: ReferenceMapping.fields, options: options)
            #expect(bad.error?.contains(corrupted.path) == true && bad.error?.contains("corrupt \(format) data") == true, "\(bad.error ?? "no error")")
            #expect(bad.rows.count == 200)
        }
    }

    /// Damage found only after the data it guards (a gzip member's CRC, a zstd frame's checksum) is found in the
    /// call that also decompressed the last of that data: every whole record is delivered, then the run fails,
    /// naming the file and the damage, in both shapes and for any worker count.
    @Test(arguments: ["gzip", "zstd"])
    func damageAfterTheDataDeliversEveryRecordBeforeIt(_ format: String) throws {
        var generator = TweetGenerator(seed: 19)
        let records = (1...300).map { generator.nextRecord(ordinal: $0) }
        for (shape, text) in [("ndjson", records.joined(separator: "\n") + "\n"), ("array", "[" + records.joined(separator: ",\n") + "]")] {
            var compressed = format == "gzip" ? Compressor.gzip(Array(text.utf8)) : Compressor.zstdWithChecksum(Array(text.utf8))
            // gzip ends with CRC-32 then the size; a zstd frame with a checksum ends with it.
            compressed[compressed.count - (format == "gzip" ? 6 : 2)] ^= 0xFF
            let damaged = try temporaryFile(compressed, name: "damaged-\(shape).\(format)")
            for workers in [1, 3] {
                let result = try transcript(of: .file(damaged.path), fields: ReferenceMapping.fields, options: ReaderOptions(rejectionPolicy: .collect, workers: workers, chunkSize: 4096))
                #expect(result.rows.count == 300, "\(shape), \(workers) workers: \(result.rows.count) records")
                #expect(result.error?.contains(damaged.path) == true && result.error?.contains("corrupt \(format) data") == true, "\(result.error ?? "no error")")
            }
        }
    }

    /// A read that fails while a line longer than a chunk is framed ends the run with the failure (it spun for
    /// ever: the chunk was full, so nothing read again to meet the failure a second time).
    @Test(.timeLimit(.minutes(1)), arguments: ["gzip", "zstd"])
    func aReadFailureInsideALongLineEndsTheRun(_ format: String) throws {
        let text = "{\"id\":1}\n{\"id\":2,\"pad\":\"" + String(repeating: "x", count: 300) + "\"}\n"
        var compressed = format == "gzip" ? Compressor.gzip(Array(text.utf8)) : Compressor.zstdWithChecksum(Array(text.utf8))
        compressed[compressed.count - (format == "gzip" ? 6 : 2)] ^= 0xFF
        for workers in [1, 2, 3] {
            for chunk in [1, 7, 64] {
                let options = ReaderOptions(shape: .ndjson, batchCapacity: 3, rejectionPolicy: .collect, workers: workers, chunkSize: chunk)
                let result = try transcript(of: .bytes(compressed), fields: [field("id", .int64)], options: options)
                #expect(result.rows.count == 2, "\(workers) workers, chunks of \(chunk)")
                #expect(result.error?.contains("corrupt \(format) data") == true, "\(result.error ?? "no error")")
            }
        }
    }

    /// An array that goes wrong before its compressed frame's damage: the array's problem comes first, whether one
    /// read delivered the bytes and the damage together or small chunks framed the problem before reaching it.
    @Test(arguments: ["gzip", "zstd"])
    func aProblemBeforeTheDamageIsReportedFirst(_ format: String) throws {
        let text = "[\"a\",\"b\"]\n[\"c\"]\n" + String(repeating: " ", count: 2000)
        var compressed = format == "gzip" ? Compressor.gzip(Array(text.utf8)) : Compressor.zstdWithChecksum(Array(text.utf8))
        compressed[compressed.count - (format == "gzip" ? 6 : 2)] ^= 0xFF
        let result = try expectSameForEveryPipeline { workers, chunk, capacity in
            var options = ReaderOptions(shape: .array, batchCapacity: capacity, rejectionPolicy: .collect, workers: workers)
            options.chunkSize = chunk
            return try transcript(of: .bytes(compressed), fields: [field("id", .int64, optional: true)], options: options)
        }
        #expect(result.error?.contains("trailing garbage") == true, "\(result.error ?? "no error")")
    }

    /// A zstd frame asking for a window beyond the limit is an error that says what it needs and how to allow it;
    /// raised to that, the same file reads like its plain twin.
    @Test(arguments: [1, 2])
    func longWindowZstdNeedsTheWindowAllowed(_ workers: Int) throws {
        var generator = TweetGenerator(seed: 37)
        let plain = Array(((1...100).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n") + "\n").utf8)
        let compressed = Compressor.zstd(plain, windowLog: 28)
        #expect(ZstdFrameHeader.windowSize(Array(compressed.prefix(ZstdFrameHeader.maximumSize))) == 256 << 20)
        let url = try temporaryFile(compressed, name: "long-window.zst")
        var options = ReaderOptions(rejectionPolicy: .collect, workers: workers, chunkSize: 4096)
        // The first bytes are read when the input is opened (to detect its shape), so opening it fails.
        let refusal = #expect(throws: SluiceError.self) {
            try ColumnarReader(input: .file(url.path), schema: MappingSchema(fields: ReferenceMapping.fields), options: options)
        }
        let message = refusal.map { "\($0)" } ?? ""
        #expect(message.contains(url.path))
        #expect(message.contains("this zstd frame needs a window of 256 MiB, more than the 128 MiB allowed"), "\(message)")
        // The limit counts as the power of two within it: 255 MiB allows 128 MiB, and says so.
        options.maximumDecompressionWindow = 255 << 20
        let stillRefused = #expect(throws: SluiceError.self) {
            try ColumnarReader(input: .file(url.path), schema: MappingSchema(fields: ReferenceMapping.fields), options: options)
        }
        #expect(stillRefused.map { "\($0)" }?.contains("needs a window of 256 MiB, more than the 128 MiB allowed") == true)
        options.maximumDecompressionWindow = 256 << 20
        let read = try transcript(of: .file(url.path), fields: ReferenceMapping.fields, options: options)
        #expect(read.error == nil)
        #expect(read.rows == (try transcript(of: .bytes(plain), fields: ReferenceMapping.fields, options: options)).rows)
        #expect(read.rows.count == 100)
    }

    /// Both ways a frame header states its window: a window descriptor, or (a single segment) the content size.
    @Test func zstdFrameHeadersGiveTheirWindow() {
        // Descriptor 0x00: no content size, not single segment; window byte: exponent 18 (2^28), mantissa 0, then 3.
        #expect(ZstdFrameHeader.windowSize([0x28, 0xB5, 0x2F, 0xFD, 0x00, 18 << 3]) == 1 << 28)
        #expect(ZstdFrameHeader.windowSize([0x28, 0xB5, 0x2F, 0xFD, 0x00, 18 << 3 | 3]) == (1 << 28) + 3 * (1 << 25))
        // Single segment (0x20) with a 4-byte content size (0x80) and a one-byte dictionary id (0x01).
        #expect(ZstdFrameHeader.windowSize([0x28, 0xB5, 0x2F, 0xFD, 0xA1, 0x07, 0x00, 0x00, 0xF7, 0x17]) == 0x17F7_0000)
        // Single segment with a 2-byte content size (0x40), which counts from 256.
        #expect(ZstdFrameHeader.windowSize([0x28, 0xB5, 0x2F, 0xFD, 0x60, 0x00, 0x01]) == 256 + 256)
        #expect(ZstdFrameHeader.windowSize([0x28, 0xB5, 0x2F, 0xFD]) == nil)
        #expect(ZstdFrameHeader.windowSize([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00]) == nil)
    }

    /// A file cut or extended while it is read ends the run with an error naming it, never a silent short result,
    /// after every whole record before the point where it changed.
    @Test(arguments: [(1, true), (2, true), (1, false), (2, false)])
    func aFileThatChangesSizeWhileReadIsAnError(_ workers: Int, cut: Bool) throws {
        var generator = TweetGenerator(seed: 23)
        let bytes = Array((1...12_000).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n").utf8)
        let url = try temporaryFile(bytes, name: "changing.ndjson")
        let reader = try ColumnarReader(input: .file(url.path), schema: MappingSchema(fields: ReferenceMapping.fields),
                                        options: ReaderOptions(readBufferSize: 64 << 10, batchCapacity: 100, workers: workers, chunkSize: 64 << 10, memoryBudget: 1 << 20))
        let first = try reader.next()
        try changeSize(of: url, holding: bytes.count, cut: cut)
        var failure: SluiceError?
        var records = first?.count ?? 0
        do {
            while let batch = try reader.next() { records += batch.count }
        } catch {
            failure = error
        }
        #expect(failure?.description.contains("\(url.path): read error") == true, "\(failure.map { "\($0)" } ?? "no error")")
        #expect(failure?.description.contains("the file changed size while being read") == true)
        // The bytes that stayed the file's: the first half of it when cut, all of it when extended.
        let unchanged = cut ? bytes.count / 2 : bytes.count
        #expect(failure?.description.contains("at byte \(unchanged):") == true)
        #expect(records == bytes[..<unchanged].count(where: { $0 == 0x0A }))
    }

    // MARK: - Typed door, progress, cancellation, budget

    @Test func typedReaderInParallelMatchesSequential() throws {
        var generator = TweetGenerator(seed: 13)
        let text = (1...200).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n")
        func models(_ options: ReaderOptions) throws -> [String] {
            let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: ReferenceMapping.richTyped(), options: options)
            var out: [String] = []
            while let batch = try reader.next() {
                for (model, location) in zip(batch.models, batch.locations) { out.append("\(location) \(model)") }
            }
            #expect(reader.statistics.recordsMapped == out.count)
            return out
        }
        let reference = try models(ReaderOptions(rejectionPolicy: .collect))
        #expect(reference.count == 200)
        #expect(try models(ReaderOptions(batchCapacity: 9, rejectionPolicy: .collect, workers: 3, chunkSize: 5000)) == reference)
    }

    @Test func progressReportsTheWholeRun() throws {
        var generator = TweetGenerator(seed: 2)
        let bytes = Array((1...500).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n").utf8)
        let url = try temporaryFile(bytes, name: "progress.ndjson")
        for workers in [1, 2] {
            let reader = try ColumnarReader(input: .file(url.path), schema: MappingSchema(fields: ReferenceMapping.fields), options: ReaderOptions(workers: workers, chunkSize: 20_000))
            let monitor = reader.progress
            #expect(monitor.snapshot.totalBytes == bytes.count)
            #expect(!monitor.snapshot.isFinished)
            while try reader.next() != nil {}
            let done = monitor.snapshot
            #expect(done.isFinished)
            #expect(done.bytesRead == bytes.count)
            #expect(done.fractionDone == 1)
            #expect(done.recordsRead == 500)
            #expect(done.recordsRejected == 0)
        }
    }

    /// A pipeline that reads on the caller's thread (one worker) owns its chunk reader: dropping the reader frees
    /// both, read to the end or not (the reader's budget callback once held the pipeline in a cycle).
    @Test(arguments: [true, false])
    func aPipelineReadingOnTheCallersThreadIsFreed(readsToTheEnd: Bool) throws {
        weak var weakPipeline: ParallelPipeline?
        do {
            let source = try BatchSourceOpener.open(.bytes(Array("{\"id\":1}\n{\"id\":2}\n".utf8)), plan: MappingSchema(fields: [field("id", .int64)]).plan,
                                                    options: ReaderOptions(batchCapacity: 1, workers: 1), keepsRecordText: false, progress: ProgressMonitor())
            let pipeline = try #require(source as? ParallelPipeline)
            weakPipeline = pipeline
            #expect(try pipeline.nextBatch() != nil)
            if readsToTheEnd { while try pipeline.nextBatch() != nil {} }
        }
        #expect(weakPipeline == nil)
    }

    @Test func cancellationStopsTheWorkersAndFreesThePipeline() throws {
        var generator = TweetGenerator(seed: 4)
        let bytes = Array((1...3000).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n").utf8)
        weak var weakPipeline: ParallelPipeline?
        do {
            let source = try BatchSourceOpener.open(.bytes(bytes), plan: MappingSchema(fields: ReferenceMapping.fields).plan,
                                                    options: ReaderOptions(workers: 2, chunkSize: 8192, memoryBudget: 1 << 20),
                                                    keepsRecordText: false, progress: ProgressMonitor())
            let pipeline = try #require(source as? ParallelPipeline)
            weakPipeline = pipeline
            #expect(try pipeline.nextBatch() != nil)
            pipeline.cancel()
            pipeline.waitUntilStopped()
            #expect(try pipeline.nextBatch() == nil)
        }
        // The threads let go of the pipeline as their last blocks return.
        for _ in 0..<100 where weakPipeline != nil { usleep(10_000) }
        #expect(weakPipeline == nil)
    }

    @Test(arguments: [1, 3])
    func asyncBatchesMatchTheSynchronousOnes(_ workers: Int) async throws {
        var generator = TweetGenerator(seed: 17)
        let bytes = Array((1...700).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n").utf8)
        let schema = try MappingSchema(fields: ReferenceMapping.fields)
        let options = ReaderOptions(batchCapacity: 50, rejectionPolicy: .collect, workers: workers, chunkSize: 30_000)
        let expected = try transcript(of: .bytes(bytes), fields: ReferenceMapping.fields, options: options).rows
        let reader = try ColumnarReader(input: .bytes(bytes), schema: schema, options: options)
        var rows: [String] = []
        for try await batch in reader.batches {
            for row in 0..<batch.count { rows.append(render(batch, row: row)) }
        }
        #expect(rows == expected)

        let typed = try TypedReader(input: .bytes(bytes), mapping: ReferenceMapping.typed(), options: options)
        var models = 0
        for try await batch in typed.batches { models += batch.models.count }
        #expect(models == 700)

        // One model at a time: the same models, in the same order, as the synchronous nextModel().
        let synchronous = try TypedReader(input: .bytes(bytes), mapping: ReferenceMapping.typed(), options: options)
        var expectedModels: [String] = []
        while let model = try synchronous.nextModel() { expectedModels.append("\(model)") }
        let oneByOne = try TypedReader(input: .bytes(bytes), mapping: ReferenceMapping.typed(), options: options)
        var seen: [String] = []
        for try await model in oneByOne.models { seen.append("\(model)") }
        #expect(seen.count == 700)
        #expect(seen == expectedModels)
    }

    /// Under the default policy the model sequence throws the first rejection, after the models before it.
    @Test func asyncModelsThrowTheFirstRejection() async throws {
        var generator = TweetGenerator(seed: 31)
        var lines = (1...300).map { generator.nextRecord(ordinal: $0) }
        lines[120] = "{\"id\": \"not a number\"}"
        let reader = try TypedReader(input: .bytes(Array(lines.joined(separator: "\n").utf8)), mapping: ReferenceMapping.typed(),
                                     options: ReaderOptions(batchCapacity: 16, workers: 2, chunkSize: 8192))
        var seen = 0
        var failure: SluiceError?
        do {
            for try await _ in reader.models { seen += 1 }
        } catch let error as SluiceError {
            failure = error
        }
        #expect(seen == 120)
        guard case .rejected(let rejection) = failure else {
            Issue.record("expected the rejection, got \(failure.map { "\($0)" } ?? "no error")")
            return
        }
        #expect(rejection.location.ordinal == 121)
        #expect(rejection.location.line == 121)
    }

    @Test func cancellingTheTaskStopsTheReader() async throws {
        var generator = TweetGenerator(seed: 19)
        let bytes = Array((1...20_000).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n").utf8)
        let reader = try ColumnarReader(input: .bytes(bytes), schema: MappingSchema(fields: ReferenceMapping.fields),
                                        options: ReaderOptions(batchCapacity: 100, workers: 2, chunkSize: 64 << 10))
        let batches = reader.batches
        let task = Task {
            var seen = 0
            for try await batch in batches {
                seen += batch.count
                if seen >= 500 { try await Task.sleep(for: .seconds(30)) }
            }
            return seen
        }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        // The sleep throws on cancellation; what matters is that the run ends now, long before the input does.
        let outcome = await task.result
        if case .success(let seen) = outcome { #expect(seen < 20_000) }
        #expect(reader.statistics.recordsRead < 20_000)
    }

    /// Whitespace between an array's elements, and a wrapper's members outside the records (which the filter blanks),
    /// are dropped as they stream past: the reader's buffer does not grow to hold a long run of them, and the line
    /// feeds in it still count for the lines of the records after it.
    @Test(arguments: [1, 2])
    func longRunsOutsideTheRecordsAreNotHeld(_ workers: Int) throws {
        let run = 4 << 20
        let blank = [UInt8](repeating: 0x20, count: run - 1) + [0x0A]
        let inputs: [(bytes: [UInt8], recordsPath: String?, rows: [String])] = [
            (Array("[{\"id\":1},".utf8) + blank + blank + Array("{\"id\":2}]".utf8), nil, ["1@1", "2@3"]),
            (Array("{\"meta\":\"".utf8) + [UInt8](repeating: 0x61, count: run) + Array("\",\n\"data\":[{\"id\":1},\n{\"id\":2}]}".utf8), "data", ["1@2", "2@3"]),
        ]
        for input in inputs {
            let schema = try MappingSchema(fields: [field("id", .int64)], options: MappingOptions(recordsPath: input.recordsPath))
            let source = try BatchSourceOpener.open(.bytes(input.bytes), plan: schema.plan,
                                                    options: ReaderOptions(shape: .array, workers: workers, chunkSize: 64 << 10),
                                                    keepsRecordText: false, progress: ProgressMonitor())
            let pipeline = try #require(source as? ParallelPipeline)
            var rows: [String] = []
            while let batch = try pipeline.nextBatch() {
                for row in 0..<batch.count { rows.append("\(batch.column(0).int64(row) ?? -1)@\(batch.location(ofRow: row).line)") }
            }
            #expect(rows == input.rows, "records path \(input.recordsPath ?? "none")")
            // Chunks of 64 KiB, each reserving twice its size, a few in flight: far below the run's 4 MiB.
            #expect(pipeline.peakBudgetInUse < run / 2, "records path \(input.recordsPath ?? "none"): \(pipeline.peakBudgetInUse) bytes held")
        }
    }

    /// Batches are sized by the mapping's width: a 2,000-field mapping over one-key records keeps each batch, and
    /// what the pipeline holds, within the budget (batches of 4,096 rows would take over 200 MB each), for NDJSON
    /// and arrays, and every record comes through.
    @Test(arguments: [1, 2])
    func wideMappingsKeepTheirBatchesWithinTheBudget(_ workers: Int) throws {
        let fieldCount = 2000
        let fields = (0..<fieldCount).map { field("f\($0)", .string, optional: true) }
        let keys = (0..<3000).map { ($0 * 7919) % fieldCount }
        let records = keys.map { "{\"f\($0)\":\"v\($0)\"}" }
        let budget = 16 << 20
        for (shape, text) in [(InputShape.ndjson, records.joined(separator: "\n")), (.array, "[" + records.joined(separator: ",") + "]")] {
            let source = try BatchSourceOpener.open(.bytes(Array(text.utf8)), plan: MappingSchema(fields: fields).plan,
                                                    options: ReaderOptions(shape: shape, workers: workers, memoryBudget: budget),
                                                    keepsRecordText: false, progress: ProgressMonitor())
            let pipeline = try #require(source as? ParallelPipeline)
            var read: [Int] = []
            while let batch = try pipeline.nextBatch() {
                let bytes = ColumnarBatch.bytes(of: fields, capacity: batch.capacity, keepsRecordText: false)
                #expect(bytes <= budget / 8, "\(shape): a batch of \(batch.capacity) rows takes about \(bytes) bytes")
                for row in 0..<batch.count {
                    let present = (0..<fieldCount).filter { batch.column($0).string(row) != nil }
                    read.append(present.count == 1 && batch.column(present[0]).string(row) == "v\(present[0])" ? present[0] : -1)
                }
            }
            #expect(read == keys, "\(shape)")
            #expect(pipeline.peakBudgetInUse <= budget, "\(shape): \(pipeline.peakBudgetInUse) bytes held")
        }
    }

    /// A consumer slower than the workers holds the pipeline to its budget: the reader waits.
    @Test func aSlowConsumerKeepsTheBudget() throws {
        var generator = TweetGenerator(seed: 6)
        let bytes = Array((1...4000).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n").utf8)
        let budget = 1 << 20
        let source = try BatchSourceOpener.open(.bytes(bytes), plan: MappingSchema(fields: ReferenceMapping.fields).plan,
                                                options: ReaderOptions(batchCapacity: 100, workers: 2, chunkSize: 64 << 10, memoryBudget: budget),
                                                keepsRecordText: false, progress: ProgressMonitor())
        let pipeline = try #require(source as? ParallelPipeline)
        var records = 0
        while let batch = try pipeline.nextBatch() {
            records += batch.count
            usleep(200)
        }
        #expect(records == 4000)
        #expect(pipeline.peakBudgetInUse <= budget)
        #expect(pipeline.peakBudgetInUse > 0)
    }

    /// A record larger than the whole budget still passes (alone), and the reader never waits behind its own chunk.
    @Test func aRecordLargerThanTheBudgetDoesNotStallTheReader() throws {
        var generator = TweetGenerator(seed: 29)
        var lines = (1...300).map { generator.nextRecord(ordinal: $0) }
        // Two in a row: the second's start is carried past the first's end, more than the budget holds.
        lines[100] = "{\"id\": 1, \"blob\": \"" + String(repeating: "x", count: 3 << 20) + "\"}"
        lines[101] = "{\"id\": 2, \"blob\": \"" + String(repeating: "y", count: 5 << 20) + "\"}"
        let bytes = Array(lines.joined(separator: "\n").utf8)
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<RunTranscript?>(nil)
        let thread = Thread {
            let result = try? transcript(of: .bytes(bytes), fields: [field("id", .int64)],
                                         options: ReaderOptions(rejectionPolicy: .collect, workers: 2, chunkSize: 64 << 10, memoryBudget: 1 << 20))
            outcome.withLock { $0 = result }
            done.signal()
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 60) == .success, "the reader stalled")
        let result = outcome.withLock { $0 }
        #expect(result?.rows.count == 300)
    }

    /// An input smaller than four chunks per worker is cut into four chunks per worker, of 64 KiB at least.
    @Test func smallInputsAreSharedAmongTheWorkers() throws {
        let options = ReaderOptions(workers: 2, chunkSize: 1 << 20)
        #expect(ParallelPipeline.fittedChunkSize(options, inputBytes: 100 << 20) == 1 << 20)
        #expect(ParallelPipeline.fittedChunkSize(options, inputBytes: 8 << 20) == 1 << 20)
        #expect(ParallelPipeline.fittedChunkSize(options, inputBytes: 2 << 20) == 256 << 10)
        #expect(ParallelPipeline.fittedChunkSize(options, inputBytes: (2 << 20) + 1) == (256 << 10) + 1)
        #expect(ParallelPipeline.fittedChunkSize(options, inputBytes: 300 << 10) == 64 << 10)
        #expect(ParallelPipeline.fittedChunkSize(options, inputBytes: 0) == 64 << 10)
        #expect(ParallelPipeline.fittedChunkSize(ReaderOptions(workers: 2, chunkSize: 1000), inputBytes: 2 << 20) == 1000)

        var generator = TweetGenerator(seed: 8)
        let bytes = Array((1...500).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n").utf8)
        #expect(bytes.count > 600 << 10 && bytes.count < 1 << 20)
        let plan = try MappingSchema(fields: ReferenceMapping.fields).plan
        for input in [Input.bytes(bytes), .file(try temporaryFile(bytes, name: "small.ndjson").path)] {
            let source = try BatchSourceOpener.open(input, plan: plan, options: ReaderOptions(workers: 2), keepsRecordText: false, progress: ProgressMonitor())
            let pipeline = try #require(source as? ParallelPipeline)
            var records = 0
            while let batch = try pipeline.nextBatch() { records += batch.count }
            #expect(records == 500)
            #expect(pipeline.chunksRead >= 8)
        }
        // A document of several record types, read in one pass, is shared out the same way.
        let document = Array(("{\"first\": [" + String(decoding: bytes, as: UTF8.self).split(separator: "\n").joined(separator: ",") + "], \"second\": []}").utf8)
        let plans = try ["first", "second"].map { try MappingSchema(fields: ReferenceMapping.fields, options: MappingOptions(recordsPath: $0)).plan }
        let several = try BatchSourceOpener.openSeveral(.bytes(document), plans: plans, options: ReaderOptions(workers: 2), progress: ProgressMonitor())
        var severalRecords = 0
        while let batch = try several.nextBatch() { severalRecords += batch.count }
        #expect(severalRecords == 500)
        #expect(several.chunksRead >= 8)
        // Compressed input has no size to share out before it is read: its chunks keep their size.
        let gz = try temporaryFile(Compressor.gzip(bytes), name: "small.ndjson.gz")
        let compressed = try #require(try BatchSourceOpener.open(.file(gz.path), plan: plan, options: ReaderOptions(workers: 2), keepsRecordText: false, progress: ProgressMonitor()) as? ParallelPipeline)
        while try compressed.nextBatch() != nil {}
        #expect(compressed.chunksRead == 1)
    }

    /// More workers than Dispatch's pool has threads (about 255 on Linux): each worker and the reader run on a
    /// thread of their own, so none waits for a pool thread that never comes. Waited for with a time limit, so that
    /// a regression fails instead of hanging the suite.
    @Test func moreWorkersThanDispatchHasThreads() throws {
        let schema = try MappingSchema(fields: [field("a", .int64)])
        let text = (1...600).map { "{\"a\":\($0)}" }.joined(separator: "\n")
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<(rows: Int, error: String?)>((0, nil))
        let thread = Thread {
            do {
                let reader = try ColumnarReader(input: .bytes(Array(text.utf8)), schema: schema, options: ReaderOptions(workers: 300, chunkSize: 8))
                while let batch = try reader.next() { outcome.withLock { $0.rows += batch.count } }
            } catch {
                outcome.withLock { $0.error = "\(error)" }
            }
            done.signal()
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 60) == .success, "300 workers did not finish within a minute")
        #expect(outcome.withLock { $0.rows } == 600)
        #expect(outcome.withLock { $0.error } == nil)
    }

    @Test func invalidParallelOptionsAreReported() throws {
        let schema = try MappingSchema(fields: [field("a", .int64)])
        #expect(throws: SluiceError.self) { try ColumnarReader(input: .bytes([]), schema: schema, options: ReaderOptions(workers: 0)) }
        #expect(throws: SluiceError.self) { try ColumnarReader(input: .bytes([]), schema: schema, options: ReaderOptions(memoryBudget: 1000)) }
        let url = try temporaryFile(Array("[{\"a\":1}]".utf8), name: "array.json")
        #expect(throws: SluiceError.self) { try ColumnarReader(input: .file(url.path), schema: schema, options: ReaderOptions(shape: .array, byteRange: 0..<3)) }
        let gz = try temporaryFile(Compressor.gzip(Array("{\"a\":1}\n".utf8)), name: "one.gz")
        #expect(throws: SluiceError.self) { try ColumnarReader(input: .file(gz.path), schema: schema, options: ReaderOptions(byteRange: 0..<3)) }
    }
}

/// A top-level array whose elements' strings hold brackets, quotes, commas and escapes in every arrangement.
func trickyArray(seed: UInt64, elements count: Int) -> String {
    var random = SplitMix(seed: seed)
    let pieces = ["{", "}", "[", "]", "\\\"", "\\\\", ",", ":", "x", "é", "東", " ", "\\n", "\\u005B"]
    func string() -> String {
        "\"" + (0..<random.below(20)).map { _ in pieces[random.below(pieces.count)] }.joined() + "\""
    }
    func value(_ depth: Int) -> String {
        switch depth > 3 ? random.below(3) : random.below(6) {
        case 0: return string()
        case 1: return String(random.below(100_000))
        case 2: return ["true", "false", "null"][random.below(3)]
        case 3: return "[" + (0..<random.below(4)).map { _ in value(depth + 1) }.joined(separator: ",") + "]"
        default: return "{" + (0..<random.below(5)).map { _ in string() + ":" + value(depth + 1) }.joined(separator: ", ") + "}"
        }
    }
    let elements = (0..<count).map { _ in "{\"id\":\(random.below(1000)),\"v\":" + value(0) + "}" }
    return "[" + elements.joined(separator: random.below(2) == 0 ? "," : " ,\n ") + "]"
}

/// A small seeded generator for split points.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

