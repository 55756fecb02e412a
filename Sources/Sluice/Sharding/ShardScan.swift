import Foundation
import CStructuralScan
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One sequential pass over an input that finds where records start and cuts shards at the first record start
/// at or after each target offset, counting records and lines on the way.
///
/// A zstd, gzip or bzip2 file is scanned decompressed, and cut only where a new zstd frame, gzip member or bzip2
/// block starts: a shard's first record is the first at or after the start of the first frame, member or block at
/// or after each target (an offset of the stored file), and the shard keeps the frame, member or block that holds
/// that record, where its reader starts decompressing. A zstd file of one frame, or a gzip file of one member, is
/// therefore one shard.
struct ShardScan {
    private var source: any ByteSource
    private let totalBytes: Int
    private var cuts: ShardCuts
    private let recordsPath: FieldPath?
    private let maximumDepth: Int
    private(set) var readsArray = false
    /// The decompressor of a compressed file, which logs where its frames, members or blocks start.
    private var log: DecodingStartLog?
    /// Frame or block starts logged and not yet passed by the scan, from ``pendingStartIndex`` on.
    private var pendingStarts: [DecodingStart] = []
    private var pendingStartIndex = 0
    /// The frame, member or block holding the latest record start, and the one holding the shard's first byte.
    private var currentStart: DecodingStart?
    private var shardDecodingStart: DecodingStart?
    /// zstd frames or gzip members that decompress to some bytes (skippable frames, which pzstd writes before each
    /// frame, do not).
    private var units: Int?
    private var lastUnitOffset: Int?
    var zstdFrames: Int? { if case .zstd = log { units } else { nil } }
    var gzipMembers: Int? { if case .gzip = log { units } else { nil } }
    /// bzip2 blocks decoded.
    private(set) var bzip2Blocks: Int?
    /// Bytes read so far (decompressed, for a compressed file).
    private(set) var bytesScanned = 0

    private(set) var records = 0
    private(set) var shards: [InputShard] = []
    /// Line feeds before the block being scanned.
    private var lineFeeds = 0
    /// Where the shard being built starts, its first ordinal and line.
    private var shardStart = 0
    private var shardFirstOrdinal = 1
    private var shardFirstLine = 1

    private static let blockSize = 4 << 20

    init(
        source: inout any ByteSource, totalBytes: Int, size: ShardSize, shape: InputShape, recordsPath: String?, maximumDepth: Int, maximumWindow: Int
    ) throws(SluiceError) {
        self.source = source
        self.totalBytes = totalBytes
        self.maximumDepth = maximumDepth
        cuts = ShardCuts(targets: try size.targets(totalBytes: totalBytes, source: source.name))
        if let recordsPath {
            do {
                self.recordsPath = try FieldPath(parsing: recordsPath)
            } catch {
                throw .invalidOptions("records path '\(recordsPath)': \(error.message)")
            }
        } else {
            self.recordsPath = nil
        }
        var prefixed = PrefixedSource(self.source)
        var prefix = try prefixed.peek(64 << 10)
        let format = Compression.detect(prefix)
        let decompressing: (any ByteSource)?
        switch format {
        case .xz:
            throw .invalidOptions("\(source.name) is xz-compressed, which Sluice does not split yet: decompress it, or compress it as zstd frames (pzstd), gzip members (bgzip) or bzip2 to split it")
        case .gzip:
            let members = UnitStartLog()
            log = .gzip(members)
            units = 0
            decompressing = try GzipInflater.preferred.source(decompressing: prefixed, log: members)
        case .zstd:
            let zstd = try ZstdSource(compressed: prefixed, maximumWindow: maximumWindow, checks: FrameChecks())
            zstd.logsFrameStarts = true
            log = .zstd(zstd)
            units = 0
            decompressing = zstd
        case .bzip2:
            // Decoding is nearly all of a bzip2 split's time, and its blocks are independent: every core takes some.
            let bzip2 = Bzip2Decoder(threads: ProcessInfo.processInfo.activeProcessorCount)
            bzip2.logsBlockStarts = true
            log = .bzip2(bzip2)
            bzip2Blocks = 0
            decompressing = DecompressingSource(compressed: prefixed, decoder: bzip2, checks: FrameChecks())
        case nil:
            decompressing = nil
        }
        if let decompressing {
            prefixed = PrefixedSource(decompressing, isDecompressing: true)
            prefix = try prefixed.peek(64 << 10)
        }
        try Compression.refuseUnreadFormat(prefix, name: source.name, compressedWith: format)
        self.source = prefixed
        let chosen = self.recordsPath != nil ? .array : shape == .automatic ? ShapeDetector.detect(fileStart: prefix) : shape
        switch chosen {
        case .ndjson: readsArray = false
        case .array: readsArray = true
        default:
            throw .invalidOptions("\(source.name) holds a single document or concatenated values, which split only at the records inside a wrapper document: give their records path")
        }
    }

    mutating func run() throws(SluiceError) {
        if readsArray { try scanArray() } else { try scanLines() }
        if let last = lastUnitOffset, bytesScanned > last { units? += 1 }
        // A cut at the last line's end (or before blank lines only) leaves a last shard without records: it
        // goes with the one before.
        if shards.count > 1, let last = shards.last, last.records == 0 {
            shards.removeLast()
            shards[shards.count - 1].byteRange = shards[shards.count - 1].byteRange.lowerBound..<last.byteRange.upperBound
        }
    }

    // MARK: - Shards

    /// Cuts the shard being built at a record start `offset`, when a target has been reached there.
    /// `line` is counted only for a cut.
    private mutating func recordStarts(at offset: Int, line: () -> Int) {
        // Compressed, the targets are offsets of the stored file, which only frame starts can be cut at.
        if log != nil { advanceStart(to: offset) }
        let (at, after) = log == nil ? (offset, shardStart) : (currentStart?.storedOffset ?? 0, shardDecodingStart?.storedOffset ?? 0)
        guard cuts.cuts(at: at, after: after) else { return }
        finishShard(end: offset)
        shardDecodingStart = currentStart
        shardStart = offset
        shardFirstOrdinal = records + 1
        shardFirstLine = line()
    }

    /// Makes ``currentStart`` the last frame, member or block that starts at or before decompressed `offset`.
    private mutating func advanceStart(to offset: Int) {
        while pendingStartIndex < pendingStarts.count && pendingStarts[pendingStartIndex].offset <= offset {
            currentStart = pendingStarts[pendingStartIndex]
            pendingStartIndex += 1
        }
    }

    private mutating func finishShard(end: Int) {
        let content: InputShard.Content = !readsArray ? .lines : shards.isEmpty ? .arrayOpening : .arrayElements
        shards.append(InputShard(byteRange: shardStart..<end, content: content, firstOrdinal: shardFirstOrdinal,
                                 firstLine: shardFirstLine, records: records + 1 - shardFirstOrdinal, decodingStart: shardDecodingStart))
    }

    /// Reads the next block into `buffer`; 0 at the end.
    private mutating func readBlock(into buffer: UnsafeMutablePointer<UInt8>) throws(SluiceError) -> Int {
        var filled = 0
        while filled < Self.blockSize {
            let read = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer + filled, count: Self.blockSize - filled))
            if read == 0 { break }
            filled += read
        }
        bytesScanned += filled
        pendingStarts.removeFirst(pendingStartIndex)
        pendingStartIndex = 0
        switch log {
        case .zstd(let zstd):
            for frame in zstd.takeFrameStarts() { unitStarts(.zstdFrame(frame)) }
        case .gzip(let members):
            for member in members.take() { unitStarts(.gzipMember(GzipMemberStart(storedOffset: member.storedOffset, offset: member.offset))) }
        case .bzip2(let bzip2):
            let blocks = bzip2.takeBlockStarts()
            bzip2Blocks? += blocks.count
            for block in blocks { decodingStarts(.bzip2Block(block)) }
        case nil:
            break
        }
        return filled
    }

    /// Notes a zstd frame or gzip member that starts; the one before had content when this one starts further on.
    private mutating func unitStarts(_ start: DecodingStart) {
        if let last = lastUnitOffset, start.offset > last { units? += 1 }
        lastUnitOffset = start.offset
        decodingStarts(start)
    }

    /// Notes where decompression can start; the first shard starts at the first such place, wherever it is.
    private mutating func decodingStarts(_ start: DecodingStart) {
        pendingStarts.append(start)
        if shardDecodingStart == nil {
            shardDecodingStart = start
            currentStart = start
        }
    }

    // MARK: - NDJSON

    /// Lines: a record is a line holding more than white space; a shard starts at a line start.
    private mutating func scanLines() throws(SluiceError) {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.blockSize)
        defer { buffer.deallocate() }
        var base = 0
        var lineHasContent = false
        while case let count = try readBlock(into: buffer), count > 0 {
            // A byte-order mark is no content of the first line.
            var index = base == 0 ? ShapeDetector.byteOrderMarkLength(UnsafeBufferPointer(start: buffer, count: count)) : 0
            while index < count {
                if !lineHasContent {
                    while index < count, buffer[index] == 0x20 || buffer[index] == 0x09 || buffer[index] == 0x0D { index += 1 }
                    guard index < count else { break }
                    if buffer[index] != 0x0A { lineHasContent = true }
                }
                let rest = count - index
                guard let found = memchr(buffer + index, 0x0A, rest) else { break }
                let lineFeed = buffer.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if lineHasContent { records += 1 }
                lineHasContent = false
                lineFeeds += 1
                index = lineFeed + 1
                let linesBefore = lineFeeds
                recordStarts(at: base + index) { linesBefore + 1 }
            }
            base += count
        }
        if lineHasContent { records += 1 }
        finishShard(end: base)
    }

    // MARK: - Arrays

    /// Array elements, found by the array framer (and, for a wrapper, the records-path filter before it): a shard
    /// starts at an element after a comma; the first at the array's `[`, the last ends past its `]`.
    private mutating func scanArray() throws(SluiceError) {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.blockSize)
        let raw = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.blockSize)
        var framer = RecordFramer(maximumDepth: maximumDepth)
        var filter = recordsPath.map { RecordsPathFilter(paths: [$0], maximumDepth: maximumDepth) }
        filter?.handsOverArrays = true
        framer.blanksTrailingContent = filter != nil
        defer {
            buffer.deallocate()
            raw.deallocate()
            framer.deallocate()
            filter?.deallocate()
        }
        var base = 0
        var sawArrayStart = false
        // After an element has ended: the next one's start is still to be found.
        var seekingStart = false
        while case let count = try readBlock(into: buffer), count > 0 {
            if base == 0 {
                // A byte-order mark is no part of the document; the reader skips it as well.
                let mark = ShapeDetector.byteOrderMarkLength(UnsafeBufferPointer(start: buffer, count: count))
                buffer.update(repeating: 0x20, count: mark)
            }
            raw.update(from: buffer, count: count)
            filter?.filter(buffer, count: count, at: base)
            if let failure = filter?.failure { throw RecordsPathFilter.error(failure, source: source.name) }
            if filter?.containers.first?.isObject == true {
                throw .invalidOptions("the records at \(recordsPath?.description ?? "$") are the members of an object, which are not split; only an array of records is")
            }
            let scan = framer.scan(buffer, count: count, at: base)
            if let problem = scan.problem { throw structureError(problem) }
            if !sawArrayStart, let start = framer.lastArrayStart {
                sawArrayStart = true
                shardStart = start
                advanceStart(to: start)
                shardDecodingStart = currentStart
                shardFirstLine = lineFeeds + sluice_count_byte(raw, start - base, 0x0A) + 1
            }
            let ends = framer.takeElementEnds(upTo: .max)
            for end in ends {
                records += 1
                seekingStart = !offerElementStart(buffer, raw: raw, from: end - base, count: count, base: base)
            }
            // The start after an element that ended in an earlier block.
            if seekingStart && ends.isEmpty {
                seekingStart = !offerElementStart(buffer, raw: raw, from: 0, count: count, base: base)
            }
            lineFeeds += sluice_count_byte(raw, count, 0x0A)
            base += count
        }
        let end = framer.finish(at: base)
        if end.lastElementEnd != nil { records += framer.takeElementEnds(upTo: .max).count }
        if let problem = end.problem { throw structureError(problem) }
        if let failure = filter?.finish() { throw RecordsPathFilter.error(failure, source: source.name) }
        guard sawArrayStart, let arrayEnd = framer.lastArrayEnd else {
            throw .invalidInput(source: source.name, message: "no array of records\(recordsPath.map { " at \($0)" } ?? "")")
        }
        finishShard(end: arrayEnd)
    }

    /// Offers the first element start at or after `index` in the block as a cut; whether the block holds one.
    private mutating func offerElementStart(
        _ buffer: UnsafeMutablePointer<UInt8>, raw: UnsafeMutablePointer<UInt8>, from index: Int, count: Int, base: Int
    ) -> Bool {
        guard let start = nextNonBlank(buffer, from: index, to: count) else { return false }
        let linesBefore = lineFeeds
        recordStarts(at: base + start) { linesBefore + sluice_count_byte(raw, start, 0x0A) + 1 }
        return true
    }

    /// The first byte from `start` on that is neither white space nor punctuation the framer blanked.
    private func nextNonBlank(_ bytes: UnsafeMutablePointer<UInt8>, from start: Int, to count: Int) -> Int? {
        var index = start
        while index < count {
            if !ShapeDetector.isWhitespace(bytes[index]) { return index }
            index += 1
        }
        return nil
    }

    private func structureError(_ problem: RecordFramer.Problem) -> SluiceError {
        .io(source: source.name, byteOffset: problem.offset, message: "the array of records is broken there (\(problem.message)), so it cannot be split")
    }
}

/// The decompressor a scan takes frame, member or block starts from.
private enum DecodingStartLog {
    case zstd(ZstdSource)
    case gzip(UnitStartLog)
    case bzip2(Bzip2Decoder)
}
