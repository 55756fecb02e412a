import CLzma

/// Decompresses xz data as it is read with liblzma, including several streams one after another and the padding
/// between them. Each block is checked against the check its stream names (CRC-32, CRC-64 or SHA-256) as it ends;
/// the bytes count as checked (``FrameChecks``) once the last stream ends with its index and footer verified.
final class XzSource: ByteSource {
    let name: String
    var size: Int? { nil }
    private var compressed: any ByteSource
    private let stream: UnsafeMutablePointer<lzma_stream>
    private let inputCapacity = 256 << 10
    private let input: UnsafeMutablePointer<UInt8>
    private var inputEnded = false
    private var hasEnded = false
    /// The most memory the decoder may use, its dictionary foremost.
    private let maximumMemory: Int
    /// Compressed bytes handed to liblzma so far, for error offsets.
    private var compressedOffset = 0
    /// An error found by the call that also produced bytes: those bytes are returned first, the error next time.
    private var pendingError: SluiceError?
    let frameChecks: FrameChecks?
    /// Decompressed bytes produced so far.
    private var producedLength = 0

    /// - Parameter maximumMemory: The most memory the decoder may use: a file whose dictionary needs more ends the
    ///   run with an error saying how much it needs.
    init(compressed: any ByteSource, maximumMemory: Int, checks: FrameChecks) throws(SluiceError) {
        self.compressed = compressed
        self.maximumMemory = maximumMemory
        frameChecks = checks
        name = compressed.name
        input = .allocate(capacity: inputCapacity)
        stream = .allocate(capacity: 1)
        // All zeros is LZMA_STREAM_INIT.
        stream.initialize(to: lzma_stream())
        let status = lzma_stream_decoder(stream, UInt64(max(maximumMemory, 1)), sluice_lzma_concatenated)
        // deinit, which runs as the initialiser throws, frees the buffers (lzma_end is harmless on a failed start).
        guard status == LZMA_OK else {
            throw .io(source: compressed.name, byteOffset: 0, message: "cannot start xz decompression (liblzma status \(status.rawValue))")
        }
    }

    deinit {
        lzma_end(stream)
        stream.deallocate()
        input.deallocate()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0, !hasEnded else { return 0 }
        if let pendingError { throw pendingError }
        while true {
            if stream.pointee.avail_in == 0 && !inputEnded {
                let read = try compressed.read(into: UnsafeMutableRawBufferPointer(start: input, count: inputCapacity))
                if read == 0 {
                    inputEnded = true
                } else {
                    stream.pointee.next_in = UnsafePointer(input)
                    stream.pointee.avail_in = read
                }
            }
            let availableBefore = stream.pointee.avail_in
            stream.pointee.next_out = base.assumingMemoryBound(to: UInt8.self)
            stream.pointee.avail_out = buffer.count
            // Once the input has ended, liblzma is told so: only then can it tell a last stream from a cut one.
            let status = lzma_code(stream, inputEnded ? LZMA_FINISH : LZMA_RUN)
            compressedOffset += availableBefore - stream.pointee.avail_in
            let produced = buffer.count - stream.pointee.avail_out
            producedLength += produced
            switch status {
            case LZMA_STREAM_END:
                hasEnded = true
                frameChecks?.frameEnded(at: producedLength)
                return produced
            case LZMA_OK:
                if produced > 0 { return produced }
                continue
            default:
                let error = failure(status)
                // What liblzma produced before it found the damage is delivered, then the run fails; imports commit
                // none of it before the checks pass.
                pendingError = error
                guard produced > 0 else { throw error }
                return produced
            }
        }
    }

    private func failure(_ status: lzma_ret) -> SluiceError {
        switch status {
        case LZMA_BUF_ERROR:
            return .io(source: name, byteOffset: compressedOffset, message: "truncated xz data: the input ends inside a compressed stream")
        case LZMA_MEMLIMIT_ERROR:
            let needed = Int(lzma_memusage(stream))
            return .io(source: name, byteOffset: compressedOffset, message:
                "the xz data needs \(needed) bytes of memory to decompress (its dictionary), more than the \(maximumMemory) allowed: raise the limit (--max-window in the command-line tool)")
        case LZMA_FORMAT_ERROR:
            return .io(source: name, byteOffset: compressedOffset, message: "corrupt xz data: not an xz stream where one should start")
        case LZMA_DATA_ERROR:
            return .io(source: name, byteOffset: compressedOffset, message: "corrupt xz data: a block fails its check, or is malformed")
        case LZMA_OPTIONS_ERROR:
            return .io(source: name, byteOffset: compressedOffset, message: "corrupt xz data: it names options liblzma does not support")
        case LZMA_MEM_ERROR:
            return .io(source: name, byteOffset: compressedOffset, message: "not enough memory to decompress xz data")
        default:
            return .io(source: name, byteOffset: compressedOffset, message: "corrupt xz data (liblzma status \(status.rawValue))")
        }
    }
}
