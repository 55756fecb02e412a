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
    private var compressedOffset = 0

    init(compressed: any ByteSource) throws(SluiceError) {
        self.compressed = compressed
        name = compressed.name
        guard let context = ZSTD_createDStream() else {
            throw .io(source: compressed.name, byteOffset: 0, message: "cannot start zstd decompression")
        }
        self.context = context
        input = .allocate(capacity: inputCapacity)
    }

    deinit {
        ZSTD_freeDStream(context)
        input.deallocate()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            if inputPosition == inputCount && !inputEnded {
                let read = try compressed.read(into: UnsafeMutableRawBufferPointer(start: input, count: inputCapacity))
                inputPosition = 0
                inputCount = read
                if read == 0 { inputEnded = true }
            }
            if inputPosition == inputCount && inputEnded {
                if atFrameEnd { return 0 }
                throw .io(source: name, byteOffset: compressedOffset, message: "truncated zstd data: the input ends inside a frame")
            }
            var inBuffer = ZSTD_inBuffer(src: UnsafeRawPointer(input), size: inputCount, pos: inputPosition)
            var outBuffer = ZSTD_outBuffer(dst: base, size: buffer.count, pos: 0)
            let hint = ZSTD_decompressStream(context, &outBuffer, &inBuffer)
            compressedOffset += inBuffer.pos - inputPosition
            inputPosition = inBuffer.pos
            if ZSTD_isError(hint) != 0 {
                throw .io(source: name, byteOffset: compressedOffset, message: "corrupt zstd data: " + String(cString: ZSTD_getErrorName(hint)))
            }
            atFrameEnd = hint == 0
            if outBuffer.pos > 0 { return outBuffer.pos }
        }
    }
}
