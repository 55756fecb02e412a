import Foundation
import Testing
import SluiceFixtures
@testable import Sluice

/// gzip members inflated ahead on several threads (``ParallelGzipInflater``) against the same input inflated on one:
/// the same bytes, the same checks and the same error at the same place, whatever the members' sizes, whether their
/// headers give their lengths (BGZF) or not, with bytes that read as a gzip header inside compressed data, and with
/// damage anywhere.
@Suite struct ParallelGzipTests {
    /// What one way of inflating made of an input: every byte delivered, how many the checks vouch for, the error.
    struct Outcome: Equatable, CustomStringConvertible {
        var bytes: [UInt8] = []
        var verified = 0
        var error: String?

        var description: String { "\(bytes.count) bytes (\(verified) vouched for), \(error ?? "no error")" }
    }

    /// How many members were inflated ahead, the most compressed bytes held at once, and the most bytes of members
    /// inflated ahead.
    struct Work {
        var membersInflatedAhead = 0
        var largestWindow = 0
        var mostInflatedAhead = 0
    }

    static let text = DecompressorDifferentialTests.text

    /// Reads all of `compressed` through `decoder`, in reads of varying size.
    static func read<Decoder: StreamDecoder>(_ compressed: [UInt8], _ decoder: Decoder) -> Outcome {
        var outcome = Outcome()
        let source = DecompressingSource(compressed: MemorySource(bytes: compressed, name: "members"), decoder: decoder, checks: FrameChecks())
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        defer { buffer.deallocate() }
        var room = 1
        do {
            while case let read = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<room])), read > 0 {
                outcome.bytes += buffer[..<read]
                room = room * 7 % (1 << 16) + 1
            }
        } catch {
            outcome.error = "\(error)"
        }
        outcome.verified = source.frameChecks?.verifiedLength ?? 0
        return outcome
    }

    /// `compressed` inflated on one thread, and on three with `memory` to hold members ahead.
    static func inflate(_ compressed: [UInt8], _ inflater: GzipInflater, memory: Int) throws -> (one: Outcome, three: Outcome, work: Work) {
        func both<Streaming>(_ make: @escaping ParallelGzipInflater<Streaming>.Make) throws -> (Outcome, Outcome, Work) {
            let parallel = try ParallelGzipInflater(threads: 3, memory: memory, make: make)
            let three = read(compressed, parallel)
            return (read(compressed, try make()), three, Work(membersInflatedAhead: parallel.membersInflatedAhead, largestWindow: parallel.largestWindow,
                                                        mostInflatedAhead: parallel.mostInflatedAhead))
        }
        switch inflater {
        #if FastGzip
        case .isal: return try both { IsalInflater() }
        #endif
        case .zlib: return try both { () throws(SluiceError) in try ZlibInflater(source: "members") }
        }
    }

    @Test(arguments: GzipInflater.allCases)
    func membersOfEverySizeReadAsOnOneThread(_ inflater: GzipInflater) throws {
        // With 1 MiB, members up to 128 KiB are inflated ahead; the 200 kB ones stream.
        let plain = Compressor.gzipMembers(Self.text, sizes: [0, 1, 700, 5_000, 200_000, 40_000, 0, 90_000])
        let cases: [(String, [UInt8], Int)] = [
            ("members of every size", plain.compressed, plain.count),
            ("BGZF", Compressor.bgzf(Self.text, pieceSize: 65_280), Self.text.count / 65_280 + 2),
            ("one member", Compressor.gzip(Self.text), 1),
        ]
        for (label, compressed, count) in cases {
            let (one, three, work) = try Self.inflate(compressed, inflater, memory: 1 << 20)
            #expect(one == Outcome(bytes: Self.text, verified: Self.text.count), "\(inflater) \(label): on one thread \(one)")
            #expect(three == one, "\(inflater) \(label): on three threads \(three), on one \(one)")
            switch label {
            case "one member": #expect(work.membersInflatedAhead == 0, "\(label): \(work.membersInflatedAhead) inflated ahead")
            case "BGZF": #expect(work.membersInflatedAhead == count, "\(label): \(work.membersInflatedAhead) of \(count) inflated ahead")
            default: #expect(work.membersInflatedAhead > count / 2 && work.membersInflatedAhead < count, "\(label): \(work.membersInflatedAhead) of \(count) inflated ahead")
            }
        }
    }

    /// Data stored as it is (level 0) keeps the bytes that read as a gzip header inside it: each is a guess at the
    /// next member's start that does not hold. The member is read to its real end, and the members after it ahead
    /// again.
    @Test(arguments: GzipInflater.allCases)
    func gzipHeadersInsideCompressedDataArePassedOver(_ inflater: GzipInflater) throws {
        var random = ParquetCase.Generator(state: 17)
        var data: [UInt8] = []
        while data.count < 300_000 {
            data += (0..<7_000).map { _ in UInt8(truncatingIfNeeded: random.next()) } + [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]
        }
        let (compressed, count) = Compressor.gzipMembers(data, sizes: [30_000, 1_000, 2_000, 50_000, 3_000], level: 0)
        let marks = (0..<(compressed.count - 3)).filter { compressed[$0] == 0x1F && compressed[$0 + 1] == 0x8B && compressed[$0 + 2] == 8 && compressed[$0 + 3] & 0xE0 == 0 }
        #expect(marks.count > count + 30, "\(marks.count) gzip headers in \(count) members: the data no longer holds headers")
        let (one, three, work) = try Self.inflate(compressed, inflater, memory: 1 << 20)
        #expect(one == Outcome(bytes: data, verified: data.count), "\(one)")
        #expect(three == one, "on three threads \(three), on one \(one)")
        // Members whose next member's header is the first gzip header after them are inflated ahead.
        #expect(work.membersInflatedAhead > count / 3 && work.membersInflatedAhead < count, "\(work.membersInflatedAhead) of \(count) inflated ahead")
        for gzip in DecompressorDifferentialTests.codecs where gzip.description.hasSuffix("on 3 threads") {
            try DecompressorDifferentialTests.expectAgreement(gzip, compressed, original: data, "gzip headers inside stored data")
        }
    }

    /// Damage anywhere, in members of every kind: the same bytes, checks and error as on one thread.
    @Test(arguments: GzipInflater.allCases)
    func damagedMembersFailAsOnOneThread(_ inflater: GzipInflater) throws {
        let half = Array(Self.text.prefix(Self.text.count / 2))
        // Bytes between two members that start none (the first one's trailer, twice): the guess that the second
        // starts where the first ends fails, though the length before the guess is the first's.
        let first = Compressor.gzip(Array(half[..<5_000]))
        let between = first + first.suffix(8) + Compressor.gzip(Array(half[5_000...]))
        let (one, three, _) = try Self.inflate(between, inflater, memory: 1 << 20)
        #expect(three == one && one.bytes.count == 5_000 && one.error?.contains("do not start another whole one") == true, "\(inflater) garbage between members: on three threads \(three), on one \(one)")
        // The last is read in several reads, with members that stream (300 kB) between those inflated ahead.
        let inputs = [Compressor.gzipMembers(half, sizes: [3_000, 0, 20_000, 500]).compressed, Compressor.bgzf(half, pieceSize: 20_000),
                      Compressor.gzipMembers(Self.text + Self.text, sizes: [300_000, 20_000]).compressed]
        var random = ParquetCase.Generator(state: 23)
        for (index, compressed) in inputs.enumerated() {
            for round in 0..<40 {
                var damaged = compressed
                let place = Int(random.next() % UInt64(compressed.count))
                switch round % 4 {
                case 0: damaged = Array(damaged[..<place])
                case 1: damaged += Array("garbage".utf8)
                default: damaged[place] ^= UInt8(1 + random.next() % 255)
                }
                let (one, three, _) = try Self.inflate(damaged, inflater, memory: 1 << 20)
                // ISA-L's last bytes before an invalid back-reference depend on how its input was cut: they are
                // not vouched for, and are compared by their count only.
                #expect(three.bytes.count == one.bytes.count && three.verified == one.verified && three.error == one.error
                        && three.bytes[..<three.verified] == one.bytes[..<one.verified],
                        "\(inflater) input \(index), round \(round) at \(place): on three threads \(three), on one \(one)")
            }
        }
    }

    /// However large the input, the compressed bytes held and the members inflated ahead stay within their parts of
    /// the share of memory given (a sixth read ahead, a third inflated ahead), whether members are inflated ahead or
    /// one large member streams.
    @Test func theBytesHeldStayWithinTheShare() throws {
        var generator = TweetGenerator(seed: 5)
        let text = Array((1...6_000).map { generator.nextRecord(ordinal: $0) + "\n" }.joined().utf8)
        for (label, compressed) in [("BGZF", Compressor.bgzf(text, pieceSize: 65_280)), ("one member", Compressor.gzip(text))] {
            let (one, three, work) = try Self.inflate(compressed, GzipInflater.preferred, memory: 1 << 20)
            #expect(one.bytes == text && three == one, "\(label): on three threads \(three), on one \(one)")
            // A sixth of the share read ahead, and as much again passed and not yet let go.
            #expect(work.largestWindow <= 2 * ((1 << 20) / 6), "\(label): \(work.largestWindow) compressed bytes held of \(compressed.count)")
            #expect(work.mostInflatedAhead <= (1 << 20) / 3 && (label == "one member") == (work.mostInflatedAhead == 0),
                    "\(label): \(work.mostInflatedAhead) bytes inflated ahead")
        }
    }
}
