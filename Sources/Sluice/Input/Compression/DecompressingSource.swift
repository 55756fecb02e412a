/// One decompression library's streaming step, as ``DecompressingSource`` drives it.
///
/// A conformer owns the library's state (freed in its `deinit`) and knows its format's units: a gzip member, a
/// bzip2 stream, the whole of an xz input. A unit ends only once its checks passed.
protocol StreamDecoder: AnyObject {
    /// How the format is called in messages: `gzip`.
    static var format: String { get }
    /// What its units are called in messages: `member`.
    static var unit: String { get }
    /// Whether the input may end here: no unit is begun.
    var isBetweenUnits: Bool { get }
    /// Decodes from the front of `input` into `output`, advancing `input` past the bytes consumed. `inputEnded`
    /// says that `input` holds the last of the compressed bytes.
    func decode(_ input: inout UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, inputEnded: Bool) -> DecodeStep
}

/// What one ``StreamDecoder/decode(_:into:inputEnded:)`` call did.
struct DecodeStep {
    enum Outcome {
        /// More to come, or more input needed.
        case running
        /// A unit ended with its checks passed, after the bytes produced.
        case unitEnded
        /// The data is damaged, cut or needs too much memory; the message says which, without the source's name.
        case failed(String)
    }

    var produced: Int
    var outcome: Outcome
    /// Where in the compressed input the outcome happened, for a decoder that reads ahead of what it decodes (a
    /// unit's end, or the start of the damaged unit); otherwise where the bytes it consumed end.
    var compressedOffset: Int? = nil
    /// A failure lies in a unit whose start the decoder recognised (a bzip2 block's magic number): the bytes do start
    /// another unit, a damaged one.
    var isInStartedUnit = false
}

/// What one call into a library that counts in 32 bits (zlib, libbz2, ISA-L) may use of a decode step's buffers, and
/// how far what it left moves them on.
struct ThirtyTwoBitCall {
    let inputCount: UInt32
    let room: UInt32

    init(_ input: UnsafeRawBufferPointer, _ output: UnsafeMutableRawBufferPointer) {
        inputCount = UInt32(min(input.count, Int(UInt32.max)))
        room = UInt32(min(output.count, Int(UInt32.max)))
    }

    /// Moves `input` past the bytes the library consumed, given what it left of each count; returns the bytes it
    /// produced.
    func advance(_ input: inout UnsafeRawBufferPointer, inputLeft: UInt32, roomLeft: UInt32) -> Int {
        input = UnsafeRawBufferPointer(rebasing: input[Int(inputCount - inputLeft)...])
        return Int(room - roomLeft)
    }
}

/// Where the units of a decompressed input started, for a scan that cuts the file where one starts: each a stored
/// offset and the decompressed offset of its first byte. Right for a format whose units follow one another with
/// nothing between them (gzip members), where a unit starts wherever the decoder begins one.
final class UnitStartLog {
    private var starts: [(storedOffset: Int, offset: Int)] = []

    func unitStarts(storedOffset: Int, offset: Int) {
        if starts.last?.storedOffset != storedOffset { starts.append((storedOffset, offset)) }
    }

    /// The units that started since the last call, in order (those that decompress to nothing too).
    func take() -> [(storedOffset: Int, offset: Int)] {
        defer { starts.removeAll(keepingCapacity: true) }
        return starts
    }
}

/// Decompresses a compressed source as it is read, through one ``StreamDecoder``: feeds it the compressed bytes,
/// counts the units whose checks passed (``FrameChecks``), and places errors at the compressed offset reached.
final class DecompressingSource<Decoder: StreamDecoder>: ByteSource {
    let name: String
    var size: Int? { nil }
    let frameChecks: FrameChecks?
    private var compressed: any ByteSource
    private let decoder: Decoder
    private let buffer: UnsafeMutableRawBufferPointer
    /// The compressed bytes read and not yet consumed by the decoder.
    private var pending = UnsafeRawBufferPointer(start: nil, count: 0)
    private var inputEnded = false
    /// Compressed bytes read from the source so far.
    private var readLength = 0
    /// Decompressed bytes produced so far.
    private var producedLength = 0
    /// Where the last unit ended in the compressed input, while nothing has been produced since: bytes that fail
    /// from there start no unit.
    private var endOfLastUnit: Int?
    /// Decoder steps in a row that took no input and gave no output.
    private var stalledSteps = 0
    /// An error found by the call that also produced bytes: those bytes are returned first, the error from then on.
    private var pendingError: SluiceError?
    private let log: UnitStartLog?

    /// - Parameter start: Where `compressed` sits: the stored byte it reads from, and the decompressed offset the
    ///   decoder starts at (both 0 at an input's start); offsets count from the input's start.
    /// - Parameter log: Where to note each unit's start, when the units follow one another with nothing between them.
    init(
        compressed: any ByteSource, decoder: Decoder, checks: FrameChecks, startingAt start: (storedOffset: Int, offset: Int) = (0, 0), log: UnitStartLog? = nil
    ) {
        self.compressed = compressed
        self.log = log
        self.decoder = decoder
        frameChecks = checks
        name = compressed.name
        readLength = start.storedOffset
        producedLength = start.offset
        buffer = .allocate(byteCount: 256 << 10, alignment: 16)
    }

    deinit {
        buffer.deallocate()
    }

    /// Compressed bytes the decoder consumed: where an error is found.
    private var compressedOffset: Int { readLength - pending.count }

    func read(into output: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        guard output.count > 0 else { return 0 }
        if let pendingError { throw pendingError }
        while true {
            if pending.isEmpty && !inputEnded {
                let read = try compressed.read(into: buffer)
                readLength += read
                inputEnded = read == 0
                pending = UnsafeRawBufferPointer(rebasing: buffer[..<read])
            }
            if pending.isEmpty && inputEnded && decoder.isBetweenUnits { return 0 }
            if decoder.isBetweenUnits && !pending.isEmpty { log?.unitStarts(storedOffset: compressedOffset, offset: producedLength) }
            let pendingBefore = pending.count
            let step = decoder.decode(&pending, into: output, inputEnded: inputEnded)
            // A running step that neither takes input nor gives output may happen once in a while (a library
            // finishing a header); many in a row would be a hang.
            if case .running = step.outcome, step.produced == 0, pending.count == pendingBefore, pendingBefore > 0 {
                stalledSteps += 1
            } else {
                stalledSteps = 0
            }
            if stalledSteps > 64 {
                return try fail("the \(Decoder.format) decoder stopped taking input (a bug in Sluice: please report it)", produced: 0, at: compressedOffset)
            }
            producedLength += step.produced
            if step.produced > 0 { endOfLastUnit = nil }
            switch step.outcome {
            case .unitEnded:
                endOfLastUnit = step.compressedOffset ?? compressedOffset
                frameChecks?.frameEnded(at: producedLength)
            case .running:
                if step.produced == 0 && pending.isEmpty && inputEnded {
                    return try fail("truncated \(Decoder.format) data: the input ends inside compressed data", produced: 0, at: compressedOffset)
                }
            case .failed(let message):
                // What the library produced before it found the damage is delivered, then the run fails; imports
                // commit none of a unit before its checks pass.
                return try fail(message, produced: step.produced, at: step.compressedOffset ?? compressedOffset, inStartedUnit: step.isInStartedUnit)
            }
            if step.produced > 0 { return step.produced }
        }
    }

    /// Reads on to the end of the unit being read, so that what a shard delivered from it is vouched for by its
    /// check (a bzip2 block is checked whole before any of it is given, but counts as checked once all of it is).
    func readToFrameEnd() throws(SluiceError) {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)
        defer { scratch.deallocate() }
        // Nothing produced since a unit ended is where `endOfLastUnit` is set.
        while endOfLastUnit == nil && producedLength > 0 {
            if try read(into: scratch) == 0 { return }
        }
    }

    /// Keeps the error for every later read; throws it now unless `produced` bytes come first. Bytes that fail
    /// after a whole unit with nothing produced from them start no other: something appended, or the next unit's
    /// header damaged. The tools differ there (gzip warns, bzip2 and igzip say nothing, xz fails); the error says
    /// so, placed where the unit ended.
    private func fail(_ message: String, produced: Int, at offset: Int, inStartedUnit: Bool = false) throws(SluiceError) -> Int {
        var error = SluiceError.io(source: name, byteOffset: offset, message: message)
        if produced == 0, !inStartedUnit, let end = endOfLastUnit {
            error = .io(source: name, byteOffset: end, message: "the bytes after the \(Decoder.format) \(Decoder.unit) that ends at byte \(end) do not start another whole one (damaged, or something else appended): \(message)")
        }
        pendingError = error
        guard produced > 0 else { throw error }
        return produced
    }
}
