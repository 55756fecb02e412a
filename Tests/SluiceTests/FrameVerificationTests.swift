import Foundation
import Testing
@testable import Sluice
@testable import SluiceImport

/// Compressed input whose frames carry checksums: a reader says whether what it delivered has passed them, and a
/// database import commits only what has.
@Suite struct FrameVerificationTests {
    static let recordsPerFrame = 400
    static let frames = 6
    /// The frame whose checksum is damaged (counting from 0): every record in it decodes as written.
    static let damagedFrame = 3

    static func frameText(_ frame: Int) -> [UInt8] {
        let first = frame * recordsPerFrame + 1
        return Array((first..<first + recordsPerFrame).map { #"{"id":\#($0),"name":"n\#($0)"}"# + "\n" }.joined().utf8)
    }

    /// Several gzip members or zstd frames, one after another; with `damaged`, that frame's checksum is wrong.
    static func input(_ format: String, damaged: Int? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        for frame in 0..<frames {
            var compressed = format == "gz" ? Compressor.gzip(frameText(frame)) : Compressor.zstdWithChecksum(frameText(frame))
            if frame == damaged {
                // gzip ends a member with its CRC-32 and length, zstd a frame with its checksum: damage the check.
                compressed[compressed.count - (format == "gz" ? 8 : 4)] ^= 0xFF
            }
            bytes += compressed
        }
        return bytes
    }

    static func schema() throws -> MappingSchema { try MappingSchema(fields: [field("id", .int64), field("name", .string)]) }

    /// Whenever the reader says its records are verified, none comes from the damaged frame; with every frame
    /// intact it says so at the end. Uncompressed input is always verified.
    @Test(arguments: ["gz", "zst"], [1, 2])
    func aReaderSaysWhetherItsRecordsPassedTheirChecksums(_ format: String, workers: Int) throws {
        let options = ReaderOptions(batchCapacity: 50, rejectionPolicy: .collect, workers: workers, chunkSize: 4096, memoryBudget: 1 << 20)
        let firstDamaged = Self.damagedFrame * Self.recordsPerFrame + 1
        let damaged = try temporaryFile(Self.input(format, damaged: Self.damagedFrame), name: "damaged-check.ndjson.\(format)")
        defer { try? FileManager.default.removeItem(at: damaged) }
        let reader = try ColumnarReader(input: .file(damaged.path), schema: try Self.schema(), options: options)
        var delivered = 0
        var claimsOfDamagedRecords = 0
        var failure: SluiceError?
        do {
            while let batch = try reader.next() {
                for row in 0..<batch.count { delivered = max(delivered, batch.location(ofRow: row).ordinal) }
                if reader.isDeliveredInputVerified && delivered >= firstDamaged { claimsOfDamagedRecords += 1 }
            }
        } catch {
            failure = error
        }
        if reader.isDeliveredInputVerified && delivered >= firstDamaged { claimsOfDamagedRecords += 1 }
        #expect(claimsOfDamagedRecords == 0)
        // The damaged frame decodes whole before its check fails: its records were delivered, unverified.
        #expect(delivered == firstDamaged + Self.recordsPerFrame - 1)
        #expect(failure.map { "\($0)" }?.contains(format == "gz" ? "CRC-32 or length does not match" : "checksum") == true, "\(failure.map { "\($0)" } ?? "no error")")

        let intact = try temporaryFile(Self.input(format), name: "intact-check.ndjson.\(format)")
        defer { try? FileManager.default.removeItem(at: intact) }
        let whole = try ColumnarReader(input: .file(intact.path), schema: try Self.schema(), options: options)
        while try whole.next() != nil {}
        #expect(whole.isDeliveredInputVerified)
        #expect(whole.statistics.recordsMapped == Self.frames * Self.recordsPerFrame)

        let plain = try ColumnarReader(input: .bytes(Self.frameText(0)), schema: try Self.schema(), options: options)
        while try plain.next() != nil { #expect(plain.isDeliveredInputVerified) }
    }

    /// A database import commits only records whose frame passed its checksum: a frame that fails leaves none of
    /// its records, and the summary counts what stayed. Streaming the frames instead commits them.
    @Test(arguments: ["gz", "zst"], [1, 2])
    func aDatabaseKeepsOnlyRecordsOfCheckedFrames(_ format: String, workers: Int) throws {
        let directory = scratchPath("frames")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("dump.ndjson.\(format)").path
        try Data(Self.input(format, damaged: Self.damagedFrame)).write(to: URL(fileURLWithPath: input))
        let firstDamaged = Self.damagedFrame * Self.recordsPerFrame + 1

        func run(verifying: Bool) throws -> (summary: ImportSummary, ids: [Int64]) {
            let database = directory.appendingPathComponent("\(verifying).db").path
            let schema = try Self.schema()
            var job = ImportJob(inputs: [input], schemas: [schema], tables: [TableLayout(name: "t", fields: schema.fields)],
                                destination: .sqlite(path: database))
            job.readerOptions = ReaderOptions(batchCapacity: 50, workers: workers, chunkSize: 4096, memoryBudget: 1 << 20)
            job.recordsPerCommit = 1
            job.verifiesFrames = verifying
            let summary = Importer(job).run()
            let ids = try SQLiteRows.query(database, "SELECT id FROM t ORDER BY id").compactMap { row -> Int64? in
                if case .integer(let id) = row[0] { return id }
                return nil
            }
            return (summary, ids)
        }

        let verified = try run(verifying: true)
        guard case .failed(let message) = verified.summary.outcome else {
            Issue.record("a damaged frame did not fail the import")
            return
        }
        #expect(message.contains("rolled back to the last commit (their compressed frame had not passed its checksum)"), "\(message)")
        #expect(verified.ids.allSatisfy { $0 < firstDamaged })
        #expect(verified.ids == (1...Int64(verified.ids.count)).map { $0 })
        #expect(verified.summary.recordsWritten == verified.ids.count)
        // Frames are committed as their checks pass: the first frames are in.
        #expect(verified.ids.count >= Self.recordsPerFrame)

        let streamed = try run(verifying: false)
        #expect(streamed.ids.contains { $0 >= firstDamaged })
    }

    /// A plain bzip2 file is one stream, but each of its blocks is checked against its own CRC: an import commits
    /// block by block, and a block whose CRC fails leaves none of its records, nor any after it.
    @Test(arguments: [1, 2])
    func aBzip2ImportCommitsBlockByBlock(workers: Int) throws {
        let text = Array((1...24_000).map { #"{"id":\#($0),"name":"n\#($0)"}"# + "\n" }.joined().utf8)
        var compressed = Compressor.bzip2(text, blockSize: 1)
        var marks: [Bzip2Scanner.Mark] = []
        var scanner = Bzip2Scanner(headerAt: 0)
        compressed.withUnsafeBytes { scanner.scan($0, windowStart: 0, inputEnded: true, into: &marks) }
        let blocks = marks.filter { !$0.isEnd }
        try #require(blocks.count >= 5, "\(blocks.count) blocks")
        // The records wholly inside the three blocks before the damaged one.
        var checkedBytes = 0
        for index in 0..<3 {
            let stream = compressed.withUnsafeBytes { Bzip2Block.stream($0, from: blocks[index].bit, to: blocks[index + 1].bit, level: 1) }
            guard case .bytes(let block) = Bzip2Block.decode(stream, level: 1) else { throw SluiceError.invalidOptions("block \(index) does not decode") }
            checkedBytes += block.count
        }
        let checkedRecords = text[..<checkedBytes].filter { $0 == 0x0A }.count
        let crcBit = blocks[3].bit + 48 + 5
        compressed[crcBit / 8] ^= UInt8(0x80 >> (crcBit % 8))

        let directory = scratchPath("bzip2-blocks")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("dump.ndjson.bz2").path
        try Data(compressed).write(to: URL(fileURLWithPath: input))
        let database = directory.appendingPathComponent("blocks.db").path
        let schema = try Self.schema()
        var job = ImportJob(inputs: [input], schemas: [schema], tables: [TableLayout(name: "t", fields: schema.fields)], destination: .sqlite(path: database))
        job.readerOptions = ReaderOptions(batchCapacity: 50, workers: workers, chunkSize: 4096, memoryBudget: 1 << 20)
        job.recordsPerCommit = 100
        let summary = Importer(job).run()
        let ids = try SQLiteRows.query(database, "SELECT id FROM t ORDER BY id").compactMap { row -> Int64? in
            if case .integer(let id) = row[0] { return id }
            return nil
        }
        guard case .failed(let message) = summary.outcome else {
            Issue.record("a damaged block did not fail the import")
            return
        }
        #expect(message.contains("a block fails its CRC"), "\(message)")
        #expect(ids.enumerated().allSatisfy { $0.element == Int64($0.offset + 1) })
        #expect(ids.count > checkedRecords / 2 && ids.count <= checkedRecords, "\(ids.count) records committed, \(checkedRecords) in checked blocks")
    }
}
