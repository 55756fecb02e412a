import Foundation
import Testing
@testable import Sluice

/// Shard plans: every record read once across the shards, numbered as one reader of the whole input numbers it,
/// for NDJSON, arrays and wrapper documents; and what cannot be split says so.
@Suite struct ShardPlanTests {
    static let fields = [FieldSpec(name: "id", type: .int64), FieldSpec(name: "name", type: .string)]

    /// Records with a few that are rejected, spread over the input (one holds a bracket and a comma in a string).
    static let records: [String] = (1...600).map { index in
        index % 97 == 0 ? #"{"id":"bad","name":"n\#(index)"}"# : index == 300 ? #"{"id":300,"name":"], {"}"# : #"{"id":\#(index),"name":"n\#(index)"}"#
    }
    static let ndjson = records.enumerated().map { $1 + ($0 % 9 == 0 ? "\n\n" : "\n") }.joined()
    static let array = "[\n" + records.joined(separator: ",\n") + "\n]\n"
    static let wrapper = #"{"meta": {"ids": [1, 2], "note": "[x"},"# + "\n \"data\": [\n" + records.joined(separator: ",\n") + "\n ],\n \"more\": {\"a\": \"]\"}}\n"

    func run(_ text: String, shard: InputShard? = nil, workers: Int = 1, recordsPath: String? = nil) throws -> RunTranscript {
        try run(Array(text.utf8), shard: shard, workers: workers, recordsPath: recordsPath)
    }

    func run(_ bytes: [UInt8], shard: InputShard? = nil, workers: Int = 1, recordsPath: String? = nil) throws -> RunTranscript {
        var options = ReaderOptions(rejectionPolicy: .collect, workers: workers, chunkSize: 1_000)
        options.shard = shard
        return try transcript(of: .bytes(bytes), fields: Self.fields, options: options, schemaOptions: MappingOptions(recordsPath: recordsPath))
    }

    /// `bytes` as independent zstd frames of `pieceSize` bytes each, cut anywhere (inside records too), each after
    /// a skippable frame holding its compressed size, as `pzstd` writes them.
    static func zstdFrames(_ bytes: [UInt8], pieceSize: Int) -> [UInt8] {
        stride(from: 0, to: bytes.count, by: pieceSize).flatMap { start in
            let frame = Compressor.zstd(Array(bytes[start..<min(start + pieceSize, bytes.count)]))
            let size = UInt32(frame.count)
            return [0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0] + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } + frame
        }
    }

    /// A file compressed in independent pieces, cut anywhere (inside records too): zstd frames or gzip members.
    enum Pieces {
        case zstd(Int)
        case gzip(Int)

        var size: Int {
            switch self {
            case .zstd(let size), .gzip(let size): size
            }
        }

        func compress(_ bytes: [UInt8]) -> [UInt8] {
            switch self {
            case .zstd(let size): ShardPlanTests.zstdFrames(bytes, pieceSize: size)
            case .gzip(let size): ShardPlanTests.gzipMembers(bytes, pieceSize: size)
            }
        }

        /// The pieces the plan counted.
        func count(in plan: ShardPlan) -> Int? {
            switch self {
            case .zstd: plan.zstdFrames
            case .gzip: plan.gzipMembers
            }
        }
    }

    /// `bytes` as gzip members of `pieceSize` bytes each, cut anywhere (inside records too), with an empty member
    /// after the first, as joining files with `cat` may give.
    static func gzipMembers(_ bytes: [UInt8], pieceSize: Int) -> [UInt8] {
        stride(from: 0, to: bytes.count, by: pieceSize).flatMap { start in
            Compressor.gzip(Array(bytes[start..<min(start + pieceSize, bytes.count)])) + (start == 0 ? Compressor.gzip([]) : [])
        }
    }

    /// Splits `text` into each of several part counts, scanning it, or cutting its index when `fromIndex` is set.
    /// With `indexPieces`, the index is cut into pieces of that many bytes, each holding many records. With
    /// `pieces`, the input is `text` compressed in those pieces, which shards can start in only.
    func expectShardsReadAsTheWhole(
        _ text: String, recordsPath: String? = nil, fromIndex: Bool = false, indexPieces: Int? = nil, pieces: Pieces? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let whole = try run(text, recordsPath: recordsPath)
        #expect(whole.rows.count == 594 && whole.rejections.count == 6, sourceLocation: sourceLocation)
        let bytes = pieces.map { $0.compress(Array(text.utf8)) } ?? Array(text.utf8)
        let index = try indexPieces.map { try ShardPlan(splitting: .bytes(bytes), into: .bytes($0), recordsPath: recordsPath) }
            ?? (fromIndex ? ShardPlan.indexing(.bytes(bytes), recordsPath: recordsPath) : nil)
        for parts in indexPieces == nil ? [1, 2, 3, 7, 40] : [1, 2, 3] {
            let plan = try index.map { try ShardPlan(cutting: $0, into: .parts(parts)) }
                ?? ShardPlan(splitting: .bytes(bytes), into: .parts(parts), recordsPath: recordsPath)
            if let pieces {
                // Only where a piece starts can be cut at: as many shards as pieces hold record starts, at most.
                let count = (text.utf8.count + pieces.size - 1) / pieces.size
                #expect(pieces.count(in: plan) == count && plan.shards.count <= min(parts, count) && plan.records == 600, sourceLocation: sourceLocation)
                #expect(plan.shards.allSatisfy { shard in shard.decodingStart.map { $0.offset <= shard.byteRange.lowerBound } == true }, sourceLocation: sourceLocation)
                #expect(parts == 1 || plan.shards.count > 1, "\(parts) parts", sourceLocation: sourceLocation)
                if fromIndex {
                    // The index has a piece at every frame or member, so a plan cut from it is the plan a scan makes.
                    let scanned = try ShardPlan(splitting: .bytes(bytes), into: .parts(parts), recordsPath: recordsPath)
                    #expect(plan.shards == scanned.shards, "\(parts) parts", sourceLocation: sourceLocation)
                }
            } else {
                #expect(plan.shards.count == parts && plan.records == 600, sourceLocation: sourceLocation)
            }
            for workers in [1, 3] {
                var rows: [String] = []
                var rejections: [String] = []
                for shard in plan.shards {
                    let part = try run(bytes, shard: shard, workers: workers, recordsPath: recordsPath)
                    #expect(part.error == nil, sourceLocation: sourceLocation)
                    #expect(part.rows.count + part.rejections.count == shard.records, sourceLocation: sourceLocation)
                    rows += part.rows
                    rejections += part.rejections
                }
                #expect(rows == whole.rows, "\(parts) parts, \(workers) workers", sourceLocation: sourceLocation)
                #expect(rejections == whole.rejections, "\(parts) parts, \(workers) workers", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func shardsOfLinesReadEveryRecordOnceNumberedAsTheWholeFile() throws {
        try expectShardsReadAsTheWhole(Self.ndjson)
    }

    @Test func shardsOfAnArrayReadEveryRecordOnceNumberedAsTheWholeFile() throws {
        try expectShardsReadAsTheWhole(Self.array)
    }

    @Test func shardsOfAWrapperDocumentReadEveryRecordOnceNumberedAsTheWholeFile() throws {
        try expectShardsReadAsTheWhole(Self.wrapper, recordsPath: "data")
    }

    @Test func shardsCutFromAnIndexReadEveryRecordOnceNumberedAsTheWholeFile() throws {
        try expectShardsReadAsTheWhole(Self.ndjson, fromIndex: true)
        try expectShardsReadAsTheWhole(Self.array, fromIndex: true)
        try expectShardsReadAsTheWhole(Self.wrapper, recordsPath: "data", fromIndex: true)
        try expectShardsReadAsTheWhole("\u{FEFF}" + Self.array, fromIndex: true)
        // Pieces of many records each, joined into shards.
        try expectShardsReadAsTheWhole(Self.ndjson, indexPieces: 2_000)
        try expectShardsReadAsTheWhole(Self.wrapper, recordsPath: "data", indexPieces: 2_000)
    }

    /// A shard cut from an index is whole pieces of it, ending at the first of its cuts at or after each target;
    /// asking for more shards than the index has pieces gives as many as it has.
    @Test func anIndexIsCutAtItsOwnCuts() throws {
        let bytes = Array(Self.array.utf8)
        let index = try ShardPlan(splitting: .bytes(bytes), into: .bytes(2_000))
        let cuts = Set(index.shards.map(\.byteRange.lowerBound))
        let plan = try ShardPlan(cutting: index, into: .parts(4))
        #expect(plan.shards.count == 4 && plan.records == 600 && plan.fingerprint == index.fingerprint)
        #expect(plan.shards.allSatisfy { cuts.contains($0.byteRange.lowerBound) })
        #expect(plan.shards.first?.content == .arrayOpening && plan.shards.last?.byteRange.upperBound == index.shards.last?.byteRange.upperBound)
        for (position, shard) in plan.shards.enumerated().dropFirst() {
            let target = Int((Double(bytes.count) * Double(position) / 4).rounded(.up))
            #expect(shard.byteRange.lowerBound == index.shards.first { $0.byteRange.lowerBound >= target }?.byteRange.lowerBound)
        }
        let most = try ShardPlan(cutting: index, into: .parts(1_000))
        #expect(most.shards == index.shards)
        #expect(throws: SluiceError.self) { try ShardPlan(cutting: index, into: .parts(0)) }
    }

    /// A zstd file of several frames, cut inside records, splits where frames start; each shard decompresses from
    /// the frame holding its first record. Frames smaller than a record too.
    @Test func shardsOfZstdFramesReadEveryRecordOnceNumberedAsTheWholeFile() throws {
        try expectShardsReadAsTheWhole(Self.ndjson, pieces: .zstd(700))
        try expectShardsReadAsTheWhole(Self.array, pieces: .zstd(1_111))
        try expectShardsReadAsTheWhole(Self.wrapper, recordsPath: "data", pieces: .zstd(900))
        try expectShardsReadAsTheWhole(Self.ndjson, pieces: .zstd(7))
        try expectShardsReadAsTheWhole("\u{FEFF}" + Self.array, fromIndex: true, pieces: .zstd(500))
        try expectShardsReadAsTheWhole(Self.ndjson, fromIndex: true, pieces: .zstd(400))
        try expectShardsReadAsTheWhole(Self.ndjson, indexPieces: 2_000, pieces: .zstd(300))
    }

    /// A gzip file of several members (an empty one among them), cut inside records, splits where members start,
    /// as a zstd file at its frames.
    @Test func shardsOfGzipMembersReadEveryRecordOnceNumberedAsTheWholeFile() throws {
        try expectShardsReadAsTheWhole(Self.ndjson, pieces: .gzip(700))
        try expectShardsReadAsTheWhole(Self.array, pieces: .gzip(1_111))
        try expectShardsReadAsTheWhole(Self.wrapper, recordsPath: "data", pieces: .gzip(900))
        try expectShardsReadAsTheWhole(Self.ndjson, pieces: .gzip(7))
        try expectShardsReadAsTheWhole("\u{FEFF}" + Self.array, fromIndex: true, pieces: .gzip(500))
        try expectShardsReadAsTheWhole(Self.ndjson, indexPieces: 2_000, pieces: .gzip(300))
    }

    /// A shard ends inside a zstd frame or gzip member and reads it to its end, so that its checksum covers the
    /// shard's last records: damage in the frame after them is found, not passed over.
    @Test(arguments: ["zstd", "gzip"])
    func aShardChecksTheFrameItEndsIn(_ codec: String) throws {
        let text = Array(Self.ndjson.utf8)
        var bytes: [UInt8] = []
        var frameEnds: [Int] = []
        for start in stride(from: 0, to: text.count, by: 2_000) {
            let piece = Array(text[start..<min(start + 2_000, text.count)])
            bytes += codec == "zstd" ? Compressor.zstdWithChecksum(piece) : Compressor.gzip(piece)
            frameEnds.append(bytes.count)
        }
        let plan = try ShardPlan(splitting: .bytes(bytes), into: .parts(3))
        try #require(plan.shards.count == 3)
        let first = plan.shards[0], second = plan.shards[1]
        let frame = try #require(second.decodingStart)
        #expect(frame.offset < second.byteRange.lowerBound)
        let frameEnd = try #require(frameEnds.first { $0 > frame.storedOffset })
        var damaged = bytes
        damaged[frameEnd - 1] ^= 0xFF  // the frame's checksum or the member's length, after the first shard's last record
        // Damage in the file's last frame lies past that frame: the shard stops reading at the frame's end.
        var damagedLater = bytes
        damagedLater[bytes.count - 1] ^= 0xFF
        #expect(frameEnd < bytes.count)
        for workers in [1, 3] {
            #expect(try run(bytes, shard: first, workers: workers).error == nil)
            #expect(try run(damagedLater, shard: first, workers: workers).error == nil)
            let error = try run(damaged, shard: first, workers: workers).error
            #expect(error?.contains("corrupt \(codec) data") == true, "\(error ?? "no error")")
        }
    }

    /// One frame, or one gzip member, is one shard, whatever was asked.
    @Test func aSingleZstdFrameOrGzipMemberIsOneShard() throws {
        let member = try ShardPlan(splitting: .bytes(Compressor.gzip(Array(Self.ndjson.utf8))), into: .parts(4))
        #expect(member.shards.count == 1 && member.gzipMembers == 1 && member.records == 600 && member.decompressedBytes == Self.ndjson.utf8.count)
        #expect(member.shards.first?.gzipMember == GzipMemberStart(storedOffset: 0, offset: 0))
        let plan = try ShardPlan(splitting: .bytes(Compressor.zstd(Array(Self.ndjson.utf8))), into: .parts(4))
        #expect(plan.shards.count == 1 && plan.zstdFrames == 1 && plan.records == 600 && plan.decompressedBytes == Self.ndjson.utf8.count)
        // A skippable frame after the one frame (as the seekable format writes) is no second frame.
        let trailed = try ShardPlan(splitting: .bytes(Compressor.zstd(Array(Self.ndjson.utf8)) + [0x5E, 0x2A, 0x4D, 0x18, 2, 0, 0, 0, 7, 7]), into: .parts(4))
        #expect(trailed.shards.count == 1 && trailed.zstdFrames == 1)
        #expect(plan.shards.first?.zstdFrame == ZstdFrameStart(storedOffset: 0, offset: 0))
    }

    /// A bzip2 file splits where its blocks start: inside a stream at any bit (as `bzip2` writes, many blocks to a
    /// stream), and at the start of a later stream; each shard decodes from its block, and the shards together read
    /// every record once, numbered as the whole file.
    @Test(arguments: [false, true])
    func shardsOfBzip2BlocksReadEveryRecordOnceNumberedAsTheWholeFile(asArray: Bool) throws {
        let records = (1...14_000).map { index in index % 97 == 0 ? #"{"id":"bad","name":"n\#(index)"}"# : #"{"id":\#(index),"name":"n\#(index)"}"# }
        let text = Array((asArray ? "[\n" + records.joined(separator: ",\n") + "\n]\n" : records.map { $0 + "\n" }.joined()).utf8)
        let whole = try run(text)
        #expect(whole.rows.count + whole.rejections.count == 14_000 && whole.error == nil)
        let half = text.count / 2
        let oneStream = Compressor.bzip2(text, blockSize: 1)
        let twoStreams = Compressor.bzip2(Array(text[..<half]), blockSize: 1) + Compressor.bzip2(Array(text[half...]), blockSize: 1)
        for bytes in [oneStream, twoStreams] {
            for parts in [1, 2, 3, 7] {
                let plan = try ShardPlan(splitting: .bytes(bytes), into: .parts(parts))
                let blocks = plan.bzip2Blocks ?? 0
                #expect(plan.records == 14_000 && blocks >= 4 && plan.shards.count <= min(parts, blocks) && plan.decompressedBytes == text.count)
                #expect(parts == 1 || plan.shards.count > 1, "\(parts) parts")
                #expect(plan.shards.allSatisfy { shard in shard.bzip2Block.map { $0.offset <= shard.byteRange.lowerBound } == true })
                let decoded = try JSONDecoder().decode(ShardPlan.self, from: Data(plan.jsonText.utf8))
                #expect(decoded.shards == plan.shards)
                for workers in [1, 3] {
                    var rows: [String] = []
                    var rejections: [String] = []
                    for shard in plan.shards {
                        let part = try run(bytes, shard: shard, workers: workers)
                        #expect(part.error == nil, "\(part.error.map { "\($0)" } ?? "")")
                        #expect(part.rows.count + part.rejections.count == shard.records)
                        rows += part.rows
                        rejections += part.rejections
                    }
                    #expect(rows == whole.rows, "\(parts) parts, \(workers) workers")
                    #expect(rejections == whole.rejections, "\(parts) parts, \(workers) workers")
                }
            }
        }
        // Each shard's records lie in blocks that passed their CRC, the last block's too.
        for shard in try ShardPlan(splitting: .bytes(oneStream), into: .parts(3)).shards {
            var options = ReaderOptions(rejectionPolicy: .collect, chunkSize: 1_000)
            options.shard = shard
            let reader = try ColumnarReader(input: .bytes(oneStream), schema: MappingSchema(fields: Self.fields), options: options)
            while try reader.next() != nil {}
            #expect(reader.isDeliveredInputVerified && reader.statistics.recordsRead == shard.records)
        }
        // A shard of this file read from another says so.
        let last = try #require(ShardPlan(splitting: .bytes(oneStream), into: .parts(3)).shards.last?.bzip2Block)
        var shard = try #require(ShardPlan(splitting: .bytes(oneStream), into: .parts(3)).shards.last)
        shard.bzip2Block = Bzip2BlockStart(storedBit: last.storedBit + 3, blockSize: last.blockSize, offset: last.offset)
        let refusal = #expect(throws: SluiceError.self) { try run(oneStream, shard: shard) }
        #expect(refusal.map { "\($0)" } == "invalid options: no bzip2 block starts at bit \(last.storedBit + 3) of <memory>, where the shard says one does: the shard comes from another file")
    }

    /// A shard of a zstd or gzip file read from another file says so.
    @Test(arguments: [Pieces.zstd(2_000), .gzip(2_000)])
    func aCompressedShardOfAnotherFileIsRefused(_ pieces: Pieces) throws {
        let text = Array(Self.ndjson.utf8)
        let plan = try ShardPlan(splitting: .bytes(pieces.compress(text)), into: .parts(3))
        let first = try #require(plan.shards.first), last = try #require(plan.shards.last)
        let start = try #require(last.decodingStart)
        let what = start.name, stored = start.storedOffset
        for (other, shard, message) in [
            (text, first, "invalid options: no \(what) starts at byte 0 of <memory>, where the shard says one does: the shard comes from another file"),
            (text, last, "invalid options: no \(what) starts at byte \(stored) of <memory>, where the shard says one does: the shard comes from another file"),
            (Array(text[..<stored]), last, "invalid options: the shard's \(what) starts at byte \(stored), past the end of <memory>: it comes from another file"),
        ] {
            do {
                _ = try run(other, shard: shard)
                Issue.record("a shard of another file was read")
            } catch {
                #expect("\(error)" == message)
            }
        }
    }

    /// A shard whose zstd frame cannot hold its start is refused, by the reader options and when a plan is read,
    /// with the same words.
    @Test func aZstdFrameAfterItsShardIsRefused() throws {
        let bad = [
            ZstdFrameStart(storedOffset: 100, offset: 5_000), ZstdFrameStart(storedOffset: -1, offset: 0),
            ZstdFrameStart(storedOffset: 0, offset: 10), ZstdFrameStart(storedOffset: (1 << 48) + 1, offset: 0),
        ]
        for frame in bad {
            let shard = InputShard(byteRange: 4_000..<9_000, content: .lines, firstOrdinal: 1, firstLine: 1, records: 1, zstdFrame: frame)
            var options = ReaderOptions()
            options.shard = shard
            do {
                _ = try options.validated()
                Issue.record("a shard with its zstd frame at \(frame) was taken")
            } catch {
                #expect("\(error)" == "invalid options: " + InputShard.decodingStartRule)
            }
            let text = #"{"start":4000,"end":9000,"content":"lines","firstOrdinal":1,"firstLine":1,"records":1,"zstdFrame":{"storedOffset":\#(frame.storedOffset),"offset":\#(frame.offset)}}"#
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(InputShard.self, from: Data(text.utf8)) }
        }
        var fitting = ReaderOptions()
        fitting.shard = InputShard(byteRange: 4_000..<9_000, content: .lines, firstOrdinal: 1, firstLine: 1, records: 1,
                                   zstdFrame: ZstdFrameStart(storedOffset: 100, offset: 4_000))
        _ = try fitting.validated()
    }

    @Test func aByteOrderMarkIsNoRecord() throws {
        let mark = "\u{FEFF}"
        try expectShardsReadAsTheWhole(mark + Self.array)
        try expectShardsReadAsTheWhole(mark + "\n" + Self.ndjson)
    }

    @Test func shardsAreContiguousAndCutAtRecordStarts() throws {
        let bytes = Array(Self.array.utf8)
        let plan = try ShardPlan(splitting: .bytes(bytes), into: .bytes(1_000))
        #expect(plan.shards.first?.byteRange.lowerBound == 0 && plan.shards.last?.byteRange.upperBound == bytes.count - 1)
        #expect(plan.shards.first?.content == .arrayOpening && plan.shards.dropFirst().allSatisfy { $0.content == .arrayElements })
        for (shard, next) in zip(plan.shards, plan.shards.dropFirst()) {
            #expect(shard.byteRange.upperBound == next.byteRange.lowerBound)
            #expect(bytes[next.byteRange.lowerBound] == UInt8(ascii: "{"))
            #expect(next.firstOrdinal == shard.firstOrdinal + shard.records)
        }
        #expect(plan.shards.count > 10 && plan.shards.reduce(0) { $0 + $1.records } == 600)
    }

    /// A cut after the last record (before blank lines, or at the end) would leave a shard of no records.
    @Test func noShardIsLeftWithoutRecords() throws {
        let text = #"{"id":1}"# + "\n" + #"{"id":2,"name":""# + String(repeating: "x", count: 500) + "\"}\n\n\n"
        let plan = try ShardPlan(splitting: .bytes(Array(text.utf8)), into: .parts(2))
        #expect(plan.shards.count == 1 && plan.shards.first?.records == 2 && plan.shards.first?.byteRange == 0..<text.utf8.count)
    }

    @Test func aPlanRoundTripsThroughItsJSON() throws {
        let plan = try ShardPlan(splitting: .bytes(Array(Self.wrapper.utf8)), into: .parts(3), recordsPath: "data")
        #expect(try ShardPlan(jsonText: Array(plan.jsonText.utf8), source: "plan.json") == plan)
    }

    @Test func aPlanRefusesAnotherVersionOfItsFile() throws {
        let plan = try ShardPlan(splitting: .bytes(Array(Self.ndjson.utf8)), into: .parts(2))
        #expect(throws: Never.self) { try plan.checkMatches(.bytes(Array(Self.ndjson.utf8))) }
        let changed = Array(Self.ndjson.replacingOccurrences(of: "n1\"", with: "m1\"").utf8)
        do {
            try plan.checkMatches(.bytes(changed))
            Issue.record("a changed file matched the plan")
        } catch {
            #expect(error.description == "invalid options: the shard plan was made from another version of <memory> (its first MiB differs): split it again")
        }
    }

    @Test func whatCannotBeSplitSaysWhy() {
        func error(_ text: [UInt8], recordsPath: String? = nil) -> String {
            do {
                _ = try ShardPlan(splitting: .bytes(text), into: .parts(2), recordsPath: recordsPath)
                return "split"
            } catch {
                return error.description
            }
        }
        #expect(error([0x50, 0x4B, 0x03, 0x04] + Array(Self.ndjson.utf8)).hasPrefix("<memory>: it is a zip archive, which Sluice does not read"))
        #expect(error(Compressor.xz(Array(Self.ndjson.utf8))) == "invalid options: <memory> is xz-compressed, which Sluice does not split yet: decompress it, or compress it as zstd frames (pzstd), gzip members (bgzip) or bzip2 to split it")
        var tar = [UInt8](repeating: 0, count: 512)
        tar.replaceSubrange(257..<263, with: Array("ustar\u{0}".utf8))
        #expect(error(Compressor.bzip2(tar + Array(Self.ndjson.utf8))).hasPrefix("<memory>: it is a tar archive compressed with bzip2, which Sluice does not read"))
        #expect(error(Array(#"{"a": [1, 2],\#n "b": 3}"#.utf8)) == "invalid options: <memory> holds a single document or concatenated values, which split only at the records inside a wrapper document: give their records path")
        #expect(error(Array(#"{"data": {"1": {"id": 1}, "2": {"id": 2}}}"#.utf8), recordsPath: "data") == "invalid options: the records at $.data are the members of an object, which are not split; only an array of records is")
        #expect(error(Array("[{\"id\": 1}, {\"id\": [2}]".utf8)) == "<memory>: read error at byte 21: the array of records is broken there (mismatched bracket), so it cannot be split")
    }

    @Test func aByteRangeOfAnArrayIsRefusedNotReadAsLines() throws {
        do {
            _ = try transcript(of: Self.array, fields: Self.fields, options: ReaderOptions(rejectionPolicy: .collect, byteRange: 100..<2_000))
            Issue.record("an array was read by a byte range")
        } catch {
            #expect("\(error)" == "invalid options: a byte range splits NDJSON only, and <memory> holds an array; split arrays and wrapper documents with `sluice split` and read the shards it gives (ReaderOptions.shard)")
        }
    }
}
