import Foundation
import Testing
import CZlib
import SluiceFixtures
@testable import Sluice

/// Sluice's decompressors against the system's tools (`gzip -dc`, `igzip -dc`, `bzip2 -dc`, `xz -dc`), which
/// `scripts/install-deps` installs: the same bytes wherever the tool succeeds, an error wherever it fails, and never a
/// byte vouched for by the checks that differs from what was compressed. Each gzip inflater the build has is tried.
@Suite struct DecompressorDifferentialTests {
    /// One way to decompress: a codec's name, its tool, and how Sluice reads it.
    struct Codec: CustomStringConvertible, Sendable {
        let description: String
        let tools: [[String]]
        let compress: @Sendable ([UInt8]) -> [UInt8]
        let open: @Sendable (any ByteSource) throws(SluiceError) -> any ByteSource
    }

    static let codecs: [Codec] = GzipInflater.allCases.map { inflater in
        Codec(description: "gzip (\(inflater))", tools: [["gzip", "-dc"], ["igzip", "-dc"]], compress: Compressor.gzip) { source throws(SluiceError) in
            try inflater.source(decompressing: source)
        }
    } + GzipInflater.allCases.map { inflater in
        Codec(description: "gzip (\(inflater)) on 3 threads", tools: [["gzip", "-dc"], ["igzip", "-dc"]], compress: Compressor.gzip) { source throws(SluiceError) in
            try inflater.source(decompressing: source, threads: 3, memory: 8 << 20)
        }
    } + [
        Codec(description: "bzip2", tools: [["bzip2", "-dc"]], compress: { Compressor.bzip2($0, blockSize: 1) }) { source in
            DecompressingSource(compressed: source, decoder: Bzip2Decoder(), checks: FrameChecks())
        },
        Codec(description: "bzip2 on 3 threads", tools: [["bzip2", "-dc"]], compress: { Compressor.bzip2($0, blockSize: 1) }) { source in
            DecompressingSource(compressed: source, decoder: Bzip2Decoder(threads: 3), checks: FrameChecks())
        },
        Codec(description: "xz", tools: [["xz", "-dc"]], compress: { Compressor.xz($0, blockSize: 20_000) }) { source in
            DecompressingSource(compressed: source, decoder: XzDecoder(maximumMemory: 64 << 20), checks: FrameChecks())
        },
        Codec(description: "xz on 3 threads", tools: [["xz", "-dc"]], compress: { Compressor.xz($0, blockSize: 20_000) }) { source in
            DecompressingSource(compressed: source, decoder: XzDecoder(maximumMemory: 64 << 20, threads: 3), checks: FrameChecks())
        },
    ]

    static let text: [UInt8] = {
        var generator = TweetGenerator(seed: 7)
        return Array((1...700).map { generator.nextRecord(ordinal: $0) + "\n" }.joined().utf8)
    }()

    /// What Sluice made of `compressed`: every byte it delivered, how many of them the checks vouch for, and the
    /// error that ended it. Input arrives in pieces of varying size and output is taken into buffers as small as a
    /// byte, so that every "needs input" and "output full" edge is met.
    static func sluice(_ codec: Codec, _ compressed: [UInt8], seed: UInt64, largestPiece: Int = 9000) -> (bytes: [UInt8], verified: Int, error: SluiceError?) {
        var random = ParquetCase.Generator(state: seed)
        var bytes: [UInt8] = []
        var source: any ByteSource = TrickleSource(bytes: compressed, seed: seed, largestPiece: largestPiece)
        do {
            source = try codec.open(source)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
            defer { buffer.deallocate() }
            while true {
                let room = [1, 7, 4096, 1 << 16][Int(random.next() % 4)]
                let read = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<room]))
                if read == 0 { break }
                bytes += buffer[..<read]
            }
            return (bytes, source.frameChecks?.verifiedLength ?? bytes.count, nil)
        } catch {
            return (bytes, source.frameChecks?.verifiedLength ?? 0, error)
        }
    }

    /// The tool's output and whether it succeeded (gzip's exit status 2 is a warning, such as trailing garbage,
    /// which Sluice treats as damage: it counts as a failure here).
    static func tool(_ command: [String], _ compressed: [UInt8]) throws -> (bytes: [UInt8], succeeded: Bool) {
        let url = try temporaryFile(compressed, name: "differential-input")
        defer { try? FileManager.default.removeItem(at: url) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command + [url.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let bytes = Array(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        return (bytes, process.terminationStatus == 0)
    }

    /// Sluice and every tool agree on `compressed`, which decompresses to a prefix of `original` where it is whole.
    static func expectAgreement(_ codec: Codec, _ compressed: [UInt8], original: [UInt8], _ label: String, largestPiece: Int = 9000) throws {
        let ours = sluice(codec, compressed, seed: UInt64(compressed.count), largestPiece: largestPiece)
        #expect(ours.verified <= ours.bytes.count && ours.bytes[..<ours.verified].elementsEqual(original.prefix(ours.verified)),
                "\(codec) \(label): a byte the checks vouch for differs from what was compressed")
        for command in codec.tools {
            let theirs = try tool(command, compressed)
            if theirs.succeeded {
                #expect(ours.error == nil && ours.bytes == theirs.bytes, "\(codec) \(label): \(command[0]) succeeded, Sluice gave \(ours.bytes.count) bytes and \(ours.error.map { "\($0)" } ?? "no error")")
            } else {
                #expect(ours.error != nil, "\(codec) \(label): \(command[0]) failed and Sluice did not")
            }
        }
        if let error = ours.error {
            #expect("\(error)".contains("<trickle>") && "\(error)".contains(codec.description.prefix(while: { $0 != " " })), "\(error)")
        }
    }

    @Test(arguments: codecs)
    func wholeInputsMatchTheTools(_ codec: Codec) throws {
        let half = Self.text.count / 2
        let cases: [(String, [UInt8], [UInt8])] = [
            ("one unit", codec.compress(Self.text), Self.text),
            ("empty", codec.compress([]), []),
            ("two units", codec.compress(Array(Self.text[..<half])) + codec.compress(Array(Self.text[half...])), Self.text),
            ("an empty unit between two", codec.compress(Array(Self.text[..<half])) + codec.compress([]) + codec.compress(Array(Self.text[half...])), Self.text),
            ("a one-byte unit", codec.compress([0x7B]), [0x7B]),
        ]
        for (label, compressed, original) in cases {
            let ours = Self.sluice(codec, compressed, seed: 1)
            #expect(ours.error == nil && ours.bytes == original && ours.verified == original.count, "\(codec) \(label): \(ours.error.map { "\($0)" } ?? "\(ours.bytes.count) bytes")")
            try Self.expectAgreement(codec, compressed, original: original, label)
        }
    }

    /// gzip members whose headers carry every optional field (extra, name, comment, header checksum), as `gzip FILE`
    /// stores the name, arriving a few bytes at a time, as from a pipe; and one whose header checksum is wrong.
    @Test(arguments: codecs.filter { $0.description.hasPrefix("gzip") })
    func gzipHeadersInPiecesAgreeWithTheTools(_ gzip: Codec) throws {
        func member(_ text: [UInt8], damagingHeaderChecksum: Bool = false) -> [UInt8] {
            let plain = gzip.compress(text)
            var header: [UInt8] = [0x1F, 0x8B, 8, 0x1E, 0, 0, 0, 0, 0, 3, 4, 0] + Array("ab\u{1}x".utf8) + Array("dump.ndjson\u{0}a comment\u{0}".utf8)
            let checksum = UInt32(crc32(0, header, UInt32(header.count)) & 0xFFFF) ^ (damagingHeaderChecksum ? 1 : 0)
            header += [UInt8(checksum & 0xFF), UInt8(checksum >> 8)]
            return header + plain[10...]
        }
        let half = Self.text.count / 2
        let members = member(Array(Self.text[..<half])) + member(Array(Self.text[half...]))
        for largestPiece in [1, 3, 50] {
            let ours = Self.sluice(gzip, members, seed: 9, largestPiece: largestPiece)
            #expect(ours.error == nil && ours.bytes == Self.text, "\(gzip) in pieces of up to \(largestPiece): \(ours.error.map { "\($0)" } ?? "\(ours.bytes.count) bytes")")
            try Self.expectAgreement(gzip, members, original: Self.text, "full headers", largestPiece: largestPiece)
        }
        try Self.expectAgreement(gzip, member(Self.text, damagingHeaderChecksum: true), original: Self.text, "a wrong header checksum", largestPiece: 2)
    }

    /// xz allows NUL bytes between and after streams, four at a time.
    @Test func xzStreamPaddingAgreesWithXz() throws {
        for xz in Self.codecs where xz.description.hasPrefix("xz") {
            let stream = xz.compress(Self.text)
            for padding in [0, 3, 4, 8, 9] {
                let zeros = [UInt8](repeating: 0, count: padding)
                try Self.expectAgreement(xz, stream + zeros, original: Self.text, "\(padding) bytes of padding after")
                try Self.expectAgreement(xz, stream + zeros + xz.compress(Self.text), original: Self.text + Self.text, "\(padding) bytes of padding between")
            }
        }
    }

    /// bzip2 blocks list the byte values they use in 16-bit maps; records whose bytes fill three of them as
    /// 0x3141, 0x5926 and 0x5359 put a block magic number inside every block's data. Each must be passed over.
    @Test func bzip2BlockMagicInsideCompressedData() throws {
        let alphabet = Array("#')/1347=>ACFGIKLO".utf8)
        var random = ParquetCase.Generator(state: 11)
        var text: [UInt8] = []
        while text.count < 350_000 {
            text += Array("{\"x\":\"".utf8) + (0..<60).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] } + Array("\"}\n".utf8)
        }
        let compressed = Compressor.bzip2(text, blockSize: 1)
        var marks: [Bzip2Scanner.Mark] = []
        var scanner = Bzip2Scanner(headerAt: 0)
        compressed.withUnsafeBytes { scanner.scan($0, windowStart: 0, inputEnded: true, into: &marks) }
        let decoder = Bzip2Decoder()
        decoder.logsBlockStarts = true
        let decoded = try Self.readAll(DecompressingSource(compressed: MemorySource(bytes: compressed, name: "magic"), decoder: decoder, checks: FrameChecks()))
        let blocks = decoder.takeBlockStarts().count
        #expect(decoded == text && blocks >= 4)
        #expect(marks.filter { !$0.isEnd }.count >= 2 * blocks, "\(marks.count) magic numbers in \(blocks) blocks: the records no longer put one inside each block")
        for bzip2 in Self.codecs where bzip2.description.hasPrefix("bzip2") {
            let ours = Self.sluice(bzip2, compressed, seed: 3)
            #expect(ours.error == nil && ours.bytes == text && ours.verified == text.count, "\(bzip2): \(ours.error.map { "\($0)" } ?? "\(ours.bytes.count) bytes")")
            try Self.expectAgreement(bzip2, compressed, original: text, "block magic in the data")
        }
    }

    /// A damaged block strewn with block magic numbers is given up after a bounded number of tries, each at the
    /// next magic number, not one try for each.
    @Test func aDamagedBlockFullOfMagicNumbersIsTriedABoundedNumberOfTimes() throws {
        let compressed = Compressor.bzip2(Self.text, blockSize: 1)
        var marks: [Bzip2Scanner.Mark] = []
        var scanner = Bzip2Scanner(headerAt: 0)
        compressed.withUnsafeBytes { scanner.scan($0, windowStart: 0, inputEnded: true, into: &marks) }
        let second = try #require(marks.dropFirst().first { !$0.isEnd })
        // Two hundred magic numbers, byte-aligned, in the middle of the first block's data (which they damage).
        let middle = second.bit / 16
        let magic: [UInt8] = [0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 0x00]
        let damaged = Array(compressed[..<middle]) + Array((0..<200).map { _ in magic }.joined()) + Array(compressed[middle...])
        for threads in [1, 3] {
            let decoder = Bzip2Decoder(threads: threads)
            #expect(throws: SluiceError.self) {
                try Self.readAll(DecompressingSource(compressed: MemorySource(bytes: damaged, name: "strewn"), decoder: decoder, checks: FrameChecks()))
            }
            #expect(decoder.failedTriesInAll > 1 && decoder.failedTriesInAll <= Bzip2Decoder.maximumFailedTries + 1, "\(threads) threads: \(decoder.failedTriesInAll) tries failed")
        }
    }

    /// Each bzip2 block is vouched for as it passes its CRC, not only at its stream's end: imports commit block by
    /// block.
    @Test func bzip2BlocksAreCheckedOneByOne() throws {
        let text = Self.text + Self.text
        try #require(text.count > 400_000)
        let compressed = Compressor.bzip2(text, blockSize: 1)
        for bzip2 in Self.codecs where bzip2.description.hasPrefix("bzip2") {
            let ours = Self.sluice(bzip2, Array(compressed[..<(compressed.count - 5000)]), seed: 4)
            #expect(ours.error != nil && ours.verified >= text.count - 200_000 && text.starts(with: ours.bytes[..<ours.verified]),
                    "\(bzip2): \(ours.verified) bytes vouched for of \(text.count), \(ours.error.map { "\($0)" } ?? "no error")")
        }
    }

    /// The compressed bytes held stay within a few blocks, however large the file and whatever the reads give: the
    /// decoder takes input only while it needs more block ends.
    @Test(arguments: [1, 3])
    func bzip2HoldsAFewBlocksOfInput(threads: Int) throws {
        var generator = TweetGenerator(seed: 5)
        let text = Array((1...12_000).map { generator.nextRecord(ordinal: $0) + "\n" }.joined().utf8)
        let compressed = Compressor.bzip2(text, blockSize: 1)
        try #require(compressed.count > 1_500_000)
        let decoder = Bzip2Decoder(threads: threads)
        let decoded = try Self.readAll(DecompressingSource(compressed: MemorySource(bytes: compressed, name: "large"), decoder: decoder, checks: FrameChecks()))
        #expect(decoded == text)
        #expect(decoder.largestWindow < 1_000_000, "\(decoder.largestWindow) compressed bytes held at once, of \(compressed.count)")
        // Pieces as large as a file's reads, as well as a pipe's.
        for bzip2 in Self.codecs where bzip2.description.hasPrefix("bzip2") {
            let ours = Self.sluice(bzip2, compressed, seed: 6, largestPiece: 1 << 18)
            #expect(ours.error == nil && ours.bytes == text, "\(bzip2)")
        }
    }

    static func readAll(_ source: any ByteSource) throws -> [UInt8] {
        var source = source
        var bytes: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        defer { buffer.deallocate() }
        while case let read = try source.read(into: buffer), read > 0 { bytes += buffer[..<read] }
        return bytes
    }

    /// Cut at random places, a byte changed at random places, garbage after the end.
    @Test(arguments: codecs)
    func damagedInputsAgreeWithTheTools(_ codec: Codec) throws {
        let compressed = codec.compress(Array(Self.text[..<(Self.text.count / 2)])) + codec.compress(Array(Self.text[(Self.text.count / 2)...]))
        var random = ParquetCase.Generator(state: 43)
        for _ in 0..<12 {
            let cut = Int(random.next() % UInt64(compressed.count))
            try Self.expectAgreement(codec, Array(compressed[..<cut]), original: Self.text, "cut at \(cut)")
        }
        for _ in 0..<24 {
            var damaged = compressed
            let place = Int(random.next() % UInt64(compressed.count))
            damaged[place] ^= UInt8(1 + random.next() % 255)
            try Self.expectAgreement(codec, damaged, original: Self.text, "byte \(place) changed")
        }
        // The tools differ on bytes after the last unit (gzip warns, bzip2 and igzip ignore them, xz fails): Sluice
        // delivers every byte, all vouched for, then fails, saying what it found.
        let appended = Self.sluice(codec, compressed + Array("garbage".utf8), seed: 5)
        let message = appended.error.map { "\($0)" } ?? "no error"
        #expect(appended.bytes == Self.text && appended.verified == Self.text.count, "\(codec): \(message)")
        #expect(message.contains("garbage") || message.contains("do not start another"), "\(codec): \(message)")
    }
}

/// Compressed bytes handed out a few at a time, as a pipe gives them.
private struct TrickleSource: ByteSource {
    let name = "<trickle>"
    var size: Int? { nil }
    private let bytes: [UInt8]
    private var position = 0
    private var random: ParquetCase.Generator

    private let largestPiece: Int

    init(bytes: [UInt8], seed: UInt64, largestPiece: Int) {
        self.bytes = bytes
        self.largestPiece = largestPiece
        random = ParquetCase.Generator(state: seed)
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        let count = min(buffer.count, bytes.count - position, 1 + Int(random.next() % UInt64(largestPiece)))
        guard count > 0, let base = buffer.baseAddress else { return 0 }
        bytes.withUnsafeBytes { source in
            if let from = source.baseAddress { base.copyMemory(from: from + position, byteCount: count) }
        }
        position += count
        return count
    }
}
