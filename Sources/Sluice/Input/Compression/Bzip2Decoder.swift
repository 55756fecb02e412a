/// Decompresses bzip2 input block by block: one stream after another (`cat a.bz2 b.bz2`, and what `pbzip2`
/// writes), each a sequence of blocks of up to 900 kB of text.
///
/// Blocks are found by their magic numbers ahead of decoding (``Bzip2Scanner``) and decoded each on its own
/// (``Bzip2Block``), on up to `threads` threads at once, and handed out in order. A block is confirmed when it
/// decodes with its CRC right and ends exactly where the next magic number starts; a magic number that turns out to
/// be compressed data is passed over and the block tried up to the one after it. Each block is a unit: its bytes
/// are vouched for once its CRC passed, so that imports commit block by block. Each stream's combined CRC is checked
/// against its blocks' at its end.
final class Bzip2Decoder: StreamDecoder {
    static let unit = "block"
    static let format = "bzip2"

    private let pool: DecodingPool<Bzip2Block.Decoded>?
    /// Blocks decoded or being decoded ahead of the one to hand out next, at most.
    private let blocksAhead: Int
    private var scanner = Bzip2Scanner(headerAt: 0)
    /// The compressed bytes from input byte `windowStart` on.
    private var window: [UInt8] = []
    private var windowStart = 0
    private var inputEnded = false
    /// Magic numbers found from where the next block (or the stream's end) must start on.
    private var marks: [Bzip2Scanner.Mark] = []
    /// The block decoded from each block mark (by its bit) to the mark after it.
    private var jobs: [Int: DecodingPool<Bzip2Block.Decoded>.Job] = [:]
    /// Where a stream header must start; `nil` inside a stream.
    private var expectedHeader: Int? = 0
    /// Inside a stream, the bit where its next block or its end must start.
    private var nextBit = 0
    private var level: UInt8 = 9
    private var combinedCRC: UInt32 = 0
    /// The last block decoded, as far as it has been handed out.
    private var decoded = DecodedUnit()
    /// Why the first try at the next block failed, for when no later mark makes it whole.
    private var firstFailure: String?
    /// Tries at the next block that failed: each passed over a mark, which real data almost never holds.
    private var failedTries = 0
    /// How many failed tries end a block: each decodes up to a block's length again, so that a damaged block
    /// strewn with magic numbers would otherwise cost time in the square of their count.
    static let maximumFailedTries = 32
    /// Failed tries over the whole input, for tests of their bound.
    private(set) var failedTriesInAll = 0
    /// The most compressed bytes held at once, for tests of the memory bound.
    private(set) var largestWindow = 0
    /// Decompressed bytes of the blocks before the next, counted from the input's start.
    private var decodedLength = 0
    /// Whether the current stream's combined CRC can be checked: not when decoding started inside it.
    private var checksCombinedCRC = true
    /// Where blocks started, kept only when ``logsBlockStarts`` is set, until taken.
    private var blockStarts: [Bzip2BlockStart] = []
    /// Whether to keep where each block starts (``takeBlockStarts()``), for a scan that cuts at blocks.
    var logsBlockStarts = false

    /// - Parameters:
    ///   - threads: How many blocks may be decoded at once; with one, each is decoded as it is needed, on the
    ///     reading thread.
    ///   - start: The block to start at, of an input whose bytes are read from the byte that holds its first bit on;
    ///     the input's start when `nil`. Offsets count from the input's start either way.
    init(threads: Int = 1, startingAt start: Bzip2BlockStart? = nil) {
        pool = threads > 1 ? DecodingPool(threads: threads, name: "sluice-bzip2") : nil
        blocksAhead = threads > 1 ? threads + 1 : 1
        if let start {
            windowStart = start.storedBit / 8
            expectedHeader = nil
            nextBit = start.storedBit
            level = UInt8(clamping: start.blockSize)
            decodedLength = start.offset
            checksCombinedCRC = false
            scanner.restart(from: start.storedBit, level: level)
        }
    }

    /// The block starts logged since the last call.
    func takeBlockStarts() -> [Bzip2BlockStart] {
        defer { blockStarts.removeAll(keepingCapacity: true) }
        return blockStarts
    }

    deinit {
        pool?.stop()
    }

    private var windowEnd: Int { windowStart + window.count }

    var isBetweenUnits: Bool { expectedHeader == windowEnd && decoded.isHandedOut }

    func decode(_ input: inout UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, inputEnded: Bool) -> DecodeStep {
        if !decoded.isHandedOut { return decoded.handOut(into: output) }
        // Input is taken only while the blocks to decode ahead lack their ends: a read taken whenever a thread is
        // free adds more bytes than a block uses, and the window would come to hold the file.
        if marks.count <= blocksAhead && (windowEnd - nextBit / 8) * 8 <= (blocksAhead + 1) * Bzip2Block.largestLength(level: level) {
            window.append(contentsOf: input)
            input = UnsafeRawBufferPointer(rebasing: input[input.count...])
            largestWindow = max(largestWindow, window.count)
        }
        self.inputEnded = inputEnded && input.isEmpty
        scan()
        return advance(into: output, mayWait: !input.isEmpty || self.inputEnded)
    }

    private func scan() {
        window.withUnsafeBytes { scanner.scan($0, windowStart: windowStart, inputEnded: inputEnded, into: &marks) }
    }

    private func bits(at bit: Int, count: Int) -> UInt64 {
        window.withUnsafeBytes { Bzip2Block.bits($0, at: bit - windowStart * 8, count: count) }
    }

    /// Moves on as far as the bytes at hand allow: through a stream header or a stream's end, or to the next block,
    /// which it waits for when `mayWait` (more input cannot be taken, or there is none).
    private func advance(into output: UnsafeMutableRawBufferPointer, mayWait: Bool) -> DecodeStep {
        let needsInput = DecodeStep(produced: 0, outcome: .running)
        while true {
            if let header = expectedHeader {
                guard let found = window.withUnsafeBytes({ Bzip2Scanner.header(in: $0, at: header, windowStart: windowStart) }) else {
                    guard inputEnded else { return needsInput }
                    return failure("truncated bzip2 data: the input ends inside a stream header", at: header)
                }
                guard let streamLevel = found else {
                    return failure("corrupt bzip2 data: not a bzip2 stream where one should start", at: header)
                }
                level = streamLevel
                combinedCRC = 0
                checksCombinedCRC = true
                nextBit = (header + 4) * 8
                expectedHeader = nil
            }
            guard let head = marks.first, head.bit == nextBit else {
                if !marks.isEmpty || windowEnd * 8 - nextBit >= 48 {
                    return failure("corrupt bzip2 data: no block starts where one should", at: nextBit / 8)
                }
                guard inputEnded else { return needsInput }
                return failure("truncated bzip2 data: the input ends inside compressed data", at: nextBit / 8)
            }
            if head.isEnd {
                guard windowEnd * 8 >= head.bit + 80 else {
                    guard inputEnded else { return needsInput }
                    return failure("truncated bzip2 data: the input ends inside a stream's end", at: head.bit / 8, inBlock: true)
                }
                guard !checksCombinedCRC || UInt32(bits(at: head.bit + 48, count: 32)) == combinedCRC else {
                    return failure("corrupt bzip2 data: the stream's combined CRC does not match its blocks'", at: head.bit / 8, inBlock: true)
                }
                let next = (head.bit + 80 + 7) / 8
                marks.removeFirst()
                expectedHeader = next
                if head.nextHeader == nil {
                    // The scanner took the end for data: it starts again at the header that must follow.
                    dropSpeculation()
                    marks.removeAll()
                    scanner = Bzip2Scanner(headerAt: next)
                    scan()
                }
                trimWindow()
                return DecodeStep(produced: 0, outcome: .unitEnded, compressedOffset: next)
            }
            guard marks.count < 2 || marks[1].bit - head.bit <= Bzip2Block.largestLength(level: level), failedTries <= Self.maximumFailedTries else {
                return failure(firstFailure ?? "corrupt bzip2 data: a block is longer than a block can be", at: head.bit / 8, inBlock: true)
            }
            dispatch()
            guard let job = jobs[head.bit] else {
                if windowEnd * 8 - head.bit > Bzip2Block.largestLength(level: level) + 48 {
                    return failure(firstFailure ?? "corrupt bzip2 data: a block is longer than a block can be", at: head.bit / 8, inBlock: true)
                }
                guard inputEnded else { return needsInput }
                return failure(firstFailure ?? "truncated bzip2 data: the input ends inside compressed data", at: head.bit / 8, inBlock: true)
            }
            let result: Bzip2Block.Decoded
            if let pool {
                guard let done = pool.result(of: job, waiting: mayWait) else { return needsInput }
                result = done
            } else {
                result = job.decode()
            }
            jobs[head.bit] = nil
            switch result {
            case .bytes(let bytes):
                let blockCRC = UInt32(bits(at: head.bit + 48, count: 32))
                combinedCRC = (combinedCRC << 1 | combinedCRC >> 31) ^ blockCRC
                if logsBlockStarts { blockStarts.append(Bzip2BlockStart(storedBit: head.bit, blockSize: Int(level), offset: decodedLength)) }
                decodedLength += bytes.count
                nextBit = marks[1].bit
                marks.removeFirst()
                firstFailure = nil
                failedTries = 0
                decoded.start(bytes, endingAt: (nextBit + 7) / 8)
                trimWindow()
                return decoded.handOut(into: output)
            case .failed(let message):
                // The mark after the block may lie inside its data: try again up to the mark after that one.
                if firstFailure == nil { firstFailure = message }
                failedTries += 1
                failedTriesInAll += 1
                let passedOver = marks[1]
                dropSpeculation()
                marks.removeSubrange(1...)
                scanner.restart(from: passedOver.bit + 1, level: head.level)
                scan()
            }
        }
    }

    /// Starts decoding the blocks whose ends are known, in order, up to `blocksAhead`.
    private func dispatch() {
        var index = 0
        while index + 1 < marks.count && jobs.count < blocksAhead {
            let mark = marks[index]
            let end = marks[index + 1].bit
            if !mark.isEnd && jobs[mark.bit] == nil && end - mark.bit <= Bzip2Block.largestLength(level: mark.level) {
                let stream = window.withUnsafeBytes { Bzip2Block.stream($0, from: mark.bit - windowStart * 8, to: end - windowStart * 8, level: mark.level) }
                let level = mark.level
                let job = DecodingPool<Bzip2Block.Decoded>.Job { Bzip2Block.decode(stream, level: level) }
                jobs[mark.bit] = job
                pool?.submit(job)
            }
            index += 1
        }
    }

    /// Forgets the blocks decoded or queued ahead: the marks they were cut at are being looked for again.
    private func dropSpeculation() {
        pool?.cancel(Array(jobs.values))
        jobs.removeAll()
    }

    /// - Parameter inBlock: The failure lies in a block or stream end whose magic number was found where one should
    ///   start.
    private func failure(_ message: String, at offset: Int, inBlock: Bool = false) -> DecodeStep {
        DecodeStep(produced: 0, outcome: .failed(message), compressedOffset: offset, isInStartedUnit: inBlock)
    }

    /// Lets go of the bytes before where the next block, end or header starts, once they are half the window.
    private func trimWindow() {
        let keep = min(expectedHeader ?? Int.max, (marks.first?.bit ?? nextBit) / 8, nextBit / 8)
        let drop = keep - windowStart
        guard drop > 0 && drop >= window.count / 2 else { return }
        window.removeFirst(drop)
        windowStart = keep
    }
}
