import CZstd

/// Decompresses zstd data as it is read; several frames one after another (concatenated dumps) read as one.
final class ZstdSource: ByteSource {
    let name: String
    var size: Int? { nil }
    private var compressed: any ByteSource
    private let context: OpaquePointer
    private let inputCapacity = ZSTD_DStreamInSize()
    private let input: UnsafeMutablePointer<UInt8>
    private var inputPosition = 0
    private var inputCount = 0
    private var inputEnded = false
    /// Whether the last frame was complete and flushed (zstd's hint was 0).
    private var atFrameEnd = true
    /// A read returns at the end of a frame, even with no bytes, instead of going on into the next one.
    private var returnsAtFrameEnd = false
    private var compressedOffset = 0
    /// The window allowed: the largest power of two within the limit asked for, as zstd takes it.
    private let maximumWindow: Int
    /// The first bytes of the frame being decompressed, kept to say what window it asked for if it asks too much.
    private var frameHeader: [UInt8] = []
    private var frameOffset = 0
    /// An error found by the call that also produced bytes: those bytes are returned first, the error next time.
    private var pendingError: SluiceError?
    /// The last call filled the output: libzstd may hold more decoded bytes.
    private var hasPendingOutput = false
    /// The input libzstd asked for next (the rest of a header, or one block and the next block's header).
    private var nextInputSize = ZstdFrameHeader.maximumSize
    let frameChecks: FrameChecks?
    /// Decompressed bytes produced so far (from the input's start, when reading starts at a later frame).
    private var producedLength = 0
    /// Where frames started, kept only when ``logsFrameStarts`` is set, until taken.
    private var frameStarts: [ZstdFrameStart] = []
    /// Whether to keep where each frame starts (``takeFrameStarts()``), for a scan that cuts at frames.
    var logsFrameStarts = false

    /// - Parameter start: The frame that `compressed` starts at, when it is not the input's first: decompressed
    ///   offsets and the offsets in errors count from the input's start.
    init(compressed: any ByteSource, maximumWindow: Int, checks: FrameChecks, startingAt start: ZstdFrameStart = ZstdFrameStart(storedOffset: 0, offset: 0)) throws(SluiceError) {
        self.compressed = compressed
        frameChecks = checks
        name = compressed.name
        compressedOffset = start.storedOffset
        producedLength = start.offset
        guard let context = ZSTD_createDStream() else {
            throw .io(source: compressed.name, byteOffset: 0, message: "cannot start zstd decompression")
        }
        self.context = context
        // zstd takes the limit as a power of two: the largest one within `maximumWindow`, from 1 KiB to 2 GiB.
        let windowLog = min(max(Int.bitWidth - 1 - max(maximumWindow, 1).leadingZeroBitCount, 10), 31)
        self.maximumWindow = 1 << windowLog
        ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, Int32(windowLog))
        input = .allocate(capacity: inputCapacity)
    }

    deinit {
        ZSTD_freeDStream(context)
        input.deallocate()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        if let pendingError { throw pendingError }
        while true {
            if inputPosition == inputCount && !inputEnded && !hasPendingOutput {
                let read = try compressed.read(into: UnsafeMutableRawBufferPointer(start: input, count: inputCapacity))
                inputPosition = 0
                inputCount = read
                if read == 0 { inputEnded = true }
            }
            if inputPosition == inputCount && inputEnded && !hasPendingOutput {
                if atFrameEnd { return 0 }
                throw .io(source: name, byteOffset: compressedOffset, message: "truncated zstd data: the input ends inside a frame")
            }
            if atFrameEnd {
                frameOffset = compressedOffset
                frameHeader.removeAll()
                nextInputSize = ZstdFrameHeader.maximumSize
                if logsFrameStarts && frameStarts.last?.storedOffset != compressedOffset {
                    frameStarts.append(ZstdFrameStart(storedOffset: compressedOffset, offset: producedLength))
                }
            }
            if frameHeader.count < ZstdFrameHeader.maximumSize {
                // The header may come in pieces (the magic number alone, when it was peeked at).
                let count = min(inputCount - inputPosition, ZstdFrameHeader.maximumSize - frameHeader.count)
                frameHeader += UnsafeBufferPointer(start: input + inputPosition, count: count)
            }
            // libzstd leaves the output position where it was when a call fails, though it may have written the
            // end of the previous block in that call: each call therefore either flushes what is pending or is
            // given the input of one block (libzstd's hint), never both, so that a damaged block costs nothing
            // before it.
            let given = hasPendingOutput ? 0 : min(inputCount - inputPosition, nextInputSize)
            var inBuffer = ZSTD_inBuffer(src: UnsafeRawPointer(input), size: inputPosition + given, pos: inputPosition)
            var outBuffer = ZSTD_outBuffer(dst: base, size: buffer.count, pos: 0)
            let hint = ZSTD_decompressStream(context, &outBuffer, &inBuffer)
            compressedOffset += inBuffer.pos - inputPosition
            inputPosition = inBuffer.pos
            if ZSTD_isError(hint) != 0 {
                let error: SluiceError = ZSTD_getErrorCode(hint) == ZSTD_error_frameParameter_windowTooLarge
                    ? .io(source: name, byteOffset: frameOffset, message: windowTooLargeMessage())
                    : .io(source: name, byteOffset: compressedOffset, message: "corrupt zstd data: " + String(cString: ZSTD_getErrorName(hint)))
                guard outBuffer.pos > 0 else { throw error }
                pendingError = error
                return outBuffer.pos
            }
            hasPendingOutput = outBuffer.pos == outBuffer.size
            atFrameEnd = hint == 0 && !hasPendingOutput
            producedLength += outBuffer.pos
            // libzstd says a frame is done (0) only after its content checksum, if it has one, matched.
            if atFrameEnd { frameChecks?.frameEnded(at: producedLength) }
            nextInputSize = max(hint, 1)
            if outBuffer.pos > 0 || atFrameEnd && returnsAtFrameEnd { return outBuffer.pos }
        }
    }

    func readToFrameEnd() throws(SluiceError) {
        guard !atFrameEnd else { return }
        // A frame that ends with no bytes left to give (its checksum) would otherwise let the read run on into
        // the frames after it, to the end of the file.
        returnsAtFrameEnd = true
        defer { returnsAtFrameEnd = false }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)
        defer { scratch.deallocate() }
        // Each read gives bytes of this frame, ends it, or throws (a damaged or cut-off frame).
        while !atFrameEnd { _ = try read(into: scratch) }
    }

    /// The frames that started since the last call, in order (skippable frames too, which decompress to nothing).
    func takeFrameStarts() -> [ZstdFrameStart] {
        defer { frameStarts.removeAll(keepingCapacity: true) }
        return frameStarts
    }

    private func windowTooLargeMessage() -> String {
        let needed = ZstdFrameHeader.windowSize(frameHeader).map { "a window of " + Compression.describe(memory: $0) } ?? "a larger window"
        return "this zstd frame needs \(needed), more than the \(Compression.describe(memory: maximumWindow)) allowed (written with zstd --long?); "
            + "raise ReaderOptions.maximumDecompressionWindow (sluice map --max-window MiB)"
    }
}

/// The window a zstd frame declares, read from its header (RFC 8878, 3.1.1.1), which the public libzstd
/// interface does not expose.
enum ZstdFrameHeader {
    /// Magic number, descriptor, window descriptor, dictionary id and content size at their longest.
    static let maximumSize = 18

    /// The window size the frame asks for, or `nil` when the bytes are not a whole frame header.
    static func windowSize(_ header: [UInt8]) -> Int? {
        guard header.count >= 6, header[0] == 0x28, header[1] == 0xB5, header[2] == 0x2F, header[3] == 0xFD else { return nil }
        let descriptor = header[4]
        let isSingleSegment = descriptor & 0x20 != 0
        if !isSingleSegment {
            let exponent = Int(header[5] >> 3), mantissa = Int(header[5] & 7)
            let base = 1 << (10 + exponent)
            return base + base / 8 * mantissa
        }
        // A single segment's window is its content size, which follows the dictionary id.
        let dictionaryIDSize = [0, 1, 2, 4][Int(descriptor & 3)]
        let contentSizeSize = [1, 2, 4, 8][Int(descriptor >> 6)]
        let start = 5 + dictionaryIDSize
        guard header.count >= start + contentSizeSize else { return nil }
        var size: UInt64 = 0
        for index in (0..<contentSizeSize).reversed() { size = size << 8 | UInt64(header[start + index]) }
        if contentSizeSize == 2 { size += 256 }
        return size > UInt64(Int.max) ? nil : Int(size)
    }
}
