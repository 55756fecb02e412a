import Foundation
import Testing
import SluiceFixtures
@testable import Sluice

/// bzip2 and xz read like their plain twins (several blocks, several streams, any worker count), damage named by
/// file and offset after the records before it, xz's memory limit, and the formats Sluice does not read refused at
/// once by name instead of being read as text.
@Suite struct CompressionFormatTests {
    static let lines: [String] = {
        var generator = TweetGenerator(seed: 41)
        return (1...600).map { generator.nextRecord(ordinal: $0) }
    }()
    static let plain = Array((lines.joined(separator: "\n") + "\n").utf8)

    static func reference() throws -> RunTranscript {
        try transcript(of: .bytes(plain), fields: ReferenceMapping.fields, options: ReaderOptions(rejectionPolicy: .collect))
    }

    @Test(arguments: [1, 3])
    func bzip2AndXzMatchTheirPlainTwins(_ workers: Int) throws {
        let half = Array((Self.lines[..<300].joined(separator: "\n") + "\n").utf8)
        let rest = Array((Self.lines[300...].joined(separator: "\n") + "\n").utf8)
        let reference = try Self.reference()
        #expect(reference.rows.count == 600)
        let twins: [(String, [UInt8])] = [
            ("bzip2", Compressor.bzip2(Self.plain)), ("bzip2 in 100 kB blocks", Compressor.bzip2(Self.plain, blockSize: 1)),
            ("two bzip2 streams", Compressor.bzip2(half) + Compressor.bzip2(rest)),
            ("xz", Compressor.xz(Self.plain)), ("xz in 16 KiB blocks", Compressor.xz(Self.plain, blockSize: 16 << 10)),
            ("two xz streams", Compressor.xz(half) + Compressor.xz(rest)),
            ("two xz streams with padding between", Compressor.xz(half) + [0, 0, 0, 0] + Compressor.xz(rest)),
        ]
        let options = ReaderOptions(batchCapacity: 64, rejectionPolicy: .collect, workers: workers, chunkSize: 10_000)
        for (name, compressed) in twins {
            #expect(compressed.count > 0 && compressed.count < Self.plain.count / 2, "\(name)")
            let url = try temporaryFile(compressed, name: "twin-\(name.replacingOccurrences(of: " ", with: "-"))")
            let result = try transcript(of: .file(url.path), fields: ReferenceMapping.fields, options: options)
            #expect(result.error == nil && result.rows == reference.rows, "\(name): \(result.error ?? "\(result.rows.count) rows")")
            #expect(result.statistics.bytesRead == Self.plain.count, "\(name)")
        }
        // Empty input compressed is no records and no error.
        for empty in [Compressor.bzip2([]), Compressor.xz([])] {
            let result = try transcript(of: .bytes(empty), fields: ReferenceMapping.fields, options: options)
            #expect(result.error == nil && result.rows.isEmpty)
        }
    }

    /// Cut short, or followed by garbage where a next stream would start: the records before are delivered (all of
    /// them before garbage), then the run fails naming the file, the format and the damage.
    @Test(arguments: ["bzip2", "xz"])
    func damagedBzip2AndXzNameTheFileAndOffset(_ format: String) throws {
        let compressed = format == "bzip2" ? Compressor.bzip2(Self.plain, blockSize: 1) : Compressor.xz(Self.plain)
        let truncated = try temporaryFile(Array(compressed[..<(compressed.count * 2 / 3)]), name: "truncated.\(format)")
        let corrupted = try temporaryFile(compressed + Array("not compressed at all".utf8), name: "corrupt.\(format)")
        let reference = try Self.reference()
        for workers in [1, 2] {
            let options = ReaderOptions(rejectionPolicy: .collect, workers: workers, chunkSize: 4096)
            let cut = try transcript(of: .file(truncated.path), fields: ReferenceMapping.fields, options: options)
            #expect(cut.error?.contains(truncated.path) == true && cut.error?.contains("truncated \(format) data") == true, "\(cut.error ?? "no error")")
            #expect(cut.rows.count > 0 && cut.rows.count < 600, "\(cut.rows.count)")
            #expect(cut.rows == Array(reference.rows.prefix(cut.rows.count)))
            let bad = try transcript(of: .file(corrupted.path), fields: ReferenceMapping.fields, options: options)
            #expect(bad.error?.contains(corrupted.path) == true && bad.error?.contains("corrupt \(format) data") == true, "\(bad.error ?? "no error")")
            #expect(bad.rows == reference.rows)
        }
    }

    /// An xz file whose dictionary needs more memory than allowed says how much it needs; allowed, it reads.
    @Test func xzNeedsItsDictionaryAllowed() throws {
        let url = try temporaryFile(Compressor.xz(Self.plain), name: "dictionary.xz")
        var options = ReaderOptions(rejectionPolicy: .collect)
        options.maximumDecompressionWindow = 1 << 20
        let refusal = #expect(throws: SluiceError.self) {
            try transcript(of: .file(url.path), fields: ReferenceMapping.fields, options: options)
        }
        let message = refusal.map { "\($0)" } ?? ""
        #expect(message.contains(url.path) && message.contains("needs 8.1 MiB of memory to decompress (its dictionary), more than the 1 MiB allowed"), "\(message)")
        // On two workers the blocks' threads are refused alike.
        options.workers = 2
        let threaded = #expect(throws: SluiceError.self) {
            try transcript(of: .file(url.path), fields: ReferenceMapping.fields, options: options)
        }
        #expect(threaded.map { "\($0)" }?.contains("of memory to decompress (its dictionary), more than the 1 MiB allowed") == true, "\(threaded.map { "\($0)" } ?? "")")
        options.workers = 1
        options.maximumDecompressionWindow = 64 << 20
        #expect(try transcript(of: .file(url.path), fields: ReferenceMapping.fields, options: options).rows == Self.reference().rows)
    }

    /// What xz's threads take of the budget is what the pipeline's chunks and batches go without.
    @Test func thePipelineKeepsWithinWhatTheXzThreadsLeave() throws {
        let blocks = Compressor.xz(Self.plain, blockSize: 16 << 10)
        let plan = try MappingSchema(fields: ReferenceMapping.fields).plan
        for (budget, workers) in [(128 << 20, 2), (8 << 20, 3), (2 << 20, 2), (128 << 20, 1)] {
            let options = ReaderOptions(workers: workers, memoryBudget: budget)
            let source = try BatchSourceOpener.open(.bytes(blocks), plan: plan, options: options, keepsRecordText: false, progress: ProgressMonitor())
            let pipeline = try #require(source as? ParallelPipeline)
            let taken = workers > 1 ? XzDecoder.threadingMemory(within: budget, maximumMemory: options.maximumDecompressionWindow) : 0
            #expect(pipeline.memoryBudget == budget - taken, "\(budget) with \(workers) workers")
        }
        // Plain input leaves the pipeline the whole budget.
        let plain = try BatchSourceOpener.open(.bytes(Self.plain), plan: plan, options: ReaderOptions(workers: 2, memoryBudget: 8 << 20),
                                               keepsRecordText: false, progress: ProgressMonitor())
        #expect(try #require(plain as? ParallelPipeline).memoryBudget == 8 << 20)
    }

    /// xz blocks decoded on several threads are held within the memory budget: they take five eighths of it (at
    /// most the decoder's memory limit), and a budget too small for two blocks still reads every record.
    @Test func xzThreadsTakeTheirShareOfTheMemoryBudget() throws {
        let blocks = Compressor.xz(Self.plain, blockSize: 16 << 10)
        func share(_ compressed: [UInt8], threads: Int, budget: Int, window: Int = 128 << 20) throws -> Int {
            try Compression.decompressing(MemorySource(bytes: compressed), maximumWindow: window, threads: threads, memoryBudget: budget).budgetedMemory
        }
        #expect(try share(blocks, threads: 2, budget: 128 << 20) == 80 << 20)
        #expect(try share(blocks, threads: 2, budget: 128 << 20, window: 64 << 20) == 64 << 20)
        #expect(try share(blocks, threads: 1, budget: 128 << 20) == 0)
        #expect(try share(Compressor.bzip2(Self.plain), threads: 2, budget: 128 << 20) == 0)
        // At least the 1 MiB a budget must be is left to the pipeline.
        #expect(try share(blocks, threads: 2, budget: 2 << 20) == 1 << 20)
        #expect(try share(blocks, threads: 2, budget: 1 << 20) == 0)
        let reference = try Self.reference()
        for budget in [1 << 20, 2 << 20, 8 << 20] {
            let options = ReaderOptions(rejectionPolicy: .collect, workers: 3, chunkSize: 4096, memoryBudget: budget)
            let result = try transcript(of: .bytes(blocks), fields: ReferenceMapping.fields, options: options)
            #expect(result.error == nil && result.rows == reference.rows, "\(budget): \(result.error ?? "\(result.rows.count) rows")")
            // A single document is read by one engine, which checks the budget left to it again.
            let document = Compressor.xz(Array(#"{"id": 1, "text": "one"}"#.utf8), blockSize: 8)
            var single = options
            single.shape = .document
            let one = try transcript(of: .bytes(document), fields: [FieldSpec(name: "id", type: .int64)], options: single)
            #expect(one.error == nil && one.rows.count == 1, "\(budget): \(one.error ?? "\(one.rows.count) rows")")
        }
    }

    /// gzip members inflated ahead for three workers or more take an eighth of the memory budget (when that is 1 MiB
    /// or more), and map as on one thread: every record, or the same records before the same error when a byte is
    /// damaged.
    @Test func gzipMembersInflatedAheadTakeTheirShareAndMapAsOnOneThread() throws {
        let members = Compressor.bgzf(Self.plain, pieceSize: 4_000)
        func share(threads: Int, budget: Int) throws -> Int {
            try Compression.decompressing(MemorySource(bytes: members), threads: threads, memoryBudget: budget).budgetedMemory
        }
        #expect(try share(threads: 3, budget: 128 << 20) == 16 << 20)
        #expect(try share(threads: 2, budget: 128 << 20) == 0)
        #expect(try share(threads: 3, budget: 4 << 20) == 0)
        // A pipe's members are not read ahead: each would wait for the next one's header.
        var descriptors: [Int32] = [0, 0]
        try #require(pipe(&descriptors) == 0)
        defer { close(descriptors[0]); close(descriptors[1]) }
        #expect(GzipInflater.aheadMemory(for: FileSource(descriptor: descriptors[0], name: "<pipe>"), threads: 3, within: 128 << 20) == 0)
        let plan = try MappingSchema(fields: ReferenceMapping.fields).plan
        let pipeline = try BatchSourceOpener.open(.bytes(members), plan: plan, options: ReaderOptions(workers: 3, memoryBudget: 64 << 20),
                                                  keepsRecordText: false, progress: ProgressMonitor())
        #expect(try #require(pipeline as? ParallelPipeline).memoryBudget == 56 << 20)
        var damaged = members
        damaged[members.count / 2] ^= 0x55
        let reference = try Self.reference().rows
        for input in [members, damaged] {
            let one = try transcript(of: .bytes(input), fields: ReferenceMapping.fields, options: ReaderOptions(rejectionPolicy: .collect))
            #expect(input == damaged ? one.error != nil && !one.rows.isEmpty : one.error == nil && one.rows == reference, "\(one.error ?? "no error"), \(one.rows.count) rows")
            for workers in [2, 3] {
                let options = ReaderOptions(rejectionPolicy: .collect, workers: workers, chunkSize: 4096, memoryBudget: 16 << 20)
                let several = try transcript(of: .bytes(input), fields: ReferenceMapping.fields, options: options)
                #expect(several.rows == one.rows && several.error == one.error, "\(workers) workers: \(several.error ?? "no error"), \(several.rows.count) rows of \(one.rows.count)")
            }
        }
    }

    /// Where each gzip member starts, as a split logs it, with either inflater: members of any size, an empty one
    /// among them, one after another.
    @Test(arguments: GzipInflater.allCases)
    func gzipMemberStartsAreLoggedWhereTheyAre(_ inflater: GzipInflater) throws {
        var compressed: [UInt8] = []
        var expected: [(storedOffset: Int, offset: Int)] = []
        var offset = 0
        for size in [5_000, 0, 1, 70_000, 300] {
            let piece = Array(Self.plain.prefix(size))
            expected.append((compressed.count, offset))
            compressed += Compressor.gzip(piece)
            offset += piece.count
        }
        let log = UnitStartLog()
        var source = try inflater.source(decompressing: MemorySource(bytes: compressed), log: log)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 777, alignment: 1)
        defer { buffer.deallocate() }
        var total = 0
        while case let read = try source.read(into: buffer), read > 0 { total += read }
        let logged = log.take()
        #expect(total == offset)
        #expect(logged.map(\.storedOffset) == expected.map(\.storedOffset) && logged.map(\.offset) == expected.map(\.offset), "\(logged)")
    }

    /// Archives and codecs Sluice does not read are refused when the input is opened, naming the format and how to
    /// get the JSON out, instead of rejecting every line as malformed.
    @Test func formatsSluiceDoesNotReadAreRefusedByName() throws {
        let json = Array("{\"id\": 1}\n".utf8)
        var tar = [UInt8](repeating: 0, count: 512)
        tar.replaceSubrange(0..<9, with: Array("dump.json".utf8))
        tar.replaceSubrange(257..<263, with: Array("ustar\u{0}".utf8))
        let cases: [(String, [UInt8], String)] = [
            ("dump.zip", [0x50, 0x4B, 0x03, 0x04, 20, 0, 0, 0] + json, "it is a zip archive, which Sluice does not read: extract the JSON file from it"),
            ("dump.7z", [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C, 0, 4] + json, "it is a 7z archive, which Sluice does not read"),
            ("dump.lz4", [0x04, 0x22, 0x4D, 0x18, 0x64, 0x40, 0xA7] + json, "it is lz4-compressed, which Sluice does not read"),
            ("dump.lz", Array("LZIP".utf8) + [1, 12] + json, "it is lzip-compressed, which Sluice does not read"),
            ("dump.Z", [0x1F, 0x9D, 0x90] + json, "it is compressed by Unix compress (.Z), which Sluice does not read"),
            ("dump.tar", tar + json, "it is a tar archive, which Sluice does not read: extract the JSON file from it"),
            ("dump.json.br", [0x1B, 0x2F, 0x00, 0x00] + json, "it is brotli-compressed (by its name), which Sluice does not read"),
        ]
        for (name, bytes, expected) in cases {
            let url = try temporaryFile(bytes, name: name)
            let refusal = #expect(throws: SluiceError.self, "\(name)") {
                try ColumnarReader(input: .file(url.path), schema: MappingSchema(fields: [FieldSpec(name: "id", type: .int64)]))
            }
            let message = refusal.map { "\($0)" } ?? ""
            #expect(message.hasPrefix(url.path) && message.contains(expected), "\(name): \(message)")
            if case .invalidInput? = refusal {} else { Issue.record("\(name): \(message) is not an input error") }
        }
        // Compressed, and through a pipe, a tar archive is refused alike.
        let compressors: [(String, Compression, ([UInt8]) -> [UInt8])] = [
            ("gz", .gzip, Compressor.gzip), ("bz2", .bzip2, { Compressor.bzip2($0) }), ("xz", .xz, { Compressor.xz($0) }), ("zst", .zstd, Compressor.zstd),
        ]
        for (suffix, compression, compress) in compressors {
            let url = try temporaryFile(compress(tar + json), name: "dump.tar.\(suffix)")
            let refusal = #expect(throws: SluiceError.self, "\(suffix)") {
                try ColumnarReader(input: .file(url.path), schema: MappingSchema(fields: [FieldSpec(name: "id", type: .int64)]))
            }
            let message = refusal.map { "\($0)" } ?? ""
            #expect(message.contains("it is a tar archive compressed with \(compression.name), which Sluice does not read: extract the JSON file"), "\(message)")
            let plain = try temporaryFile(compress(json), name: "dump.json.\(suffix)")
            #expect(try transcript(of: .file(plain.path), fields: [FieldSpec(name: "id", type: .int64)]).rows.count == 1, "\(suffix)")
        }
        for bytes in [tar + json, Compressor.gzip(tar + json)] {
            let pipe = Pipe()
            try pipe.fileHandleForWriting.write(contentsOf: Data(bytes))
            try pipe.fileHandleForWriting.close()
            let piped = FileSource(descriptor: pipe.fileHandleForReading.fileDescriptor, name: "<pipe>")
            let refusal = #expect(throws: SluiceError.self) { try Compression.decompressing(piped) }
            #expect(refusal.map { "\($0)" }?.contains("it is a tar archive") == true, "\(refusal.map { "\($0)" } ?? "no error")")
        }
        // JSON that only carries such a name is JSON, after a byte order mark too, and so is JSON that holds
        // "ustar" where a tar header's magic would be.
        for bytes in [json, [0xEF, 0xBB, 0xBF] + json] {
            let named = try temporaryFile(bytes, name: "plain.json.br")
            #expect(try transcript(of: .file(named.path), fields: [FieldSpec(name: "id", type: .int64)]).rows.count == 1)
        }
        let start = "{\"id\": 1, \"pad\": \""
        let custard = Array((start + String(repeating: "x", count: 257 - start.utf8.count) + "ustar  \"}\n").utf8)
        #expect(custard[257..<262].elementsEqual("ustar".utf8))
        let named = try temporaryFile(custard, name: "custard.json")
        #expect(try transcript(of: .file(named.path), fields: [FieldSpec(name: "id", type: .int64)]).rows.count == 1)
    }
}
