import Foundation
import Testing
import SluiceFixtures
@testable import Sluice

/// Compressed input through the pipeline: the same records as the plain twin, damage named by file and offset after
/// every record before it, zstd windows, and a file that changes size while it is read.
extension ParallelPipelineTests {
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
}
