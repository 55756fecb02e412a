import CBzip2

/// Decompresses bzip2 data as it is read with libbz2, including several streams one after another (`cat a.bz2
/// b.bz2`, and what `pbzip2` writes). Each block is checked against its CRC as it is decoded, and each stream
/// against its combined CRC at its end, which is when the stream's bytes count as checked (``FrameChecks``).
final class Bzip2Source: ByteSource {
    let name: String
    var size: Int? { nil }
    private var compressed: any ByteSource
    private let stream: UnsafeMutablePointer<bz_stream>
    private let inputCapacity = 256 << 10
    private let input: UnsafeMutablePointer<UInt8>
    private var inputEnded = false
    /// Between streams: the last one ended (and its decoder was freed) and the next has not started.
    private var betweenStreams = false
    /// Compressed bytes handed to libbz2 so far, for error offsets.
    private var compressedOffset = 0
    /// An error found by the call that also produced bytes: those bytes are returned first, the error next time.
    private var pendingError: SluiceError?
    let frameChecks: FrameChecks?
    /// Decompressed bytes produced so far.
    private var producedLength = 0

    init(compressed: any ByteSource, checks: FrameChecks) throws(SluiceError) {
        self.compressed = compressed
        frameChecks = checks
        name = compressed.name
        input = .allocate(capacity: inputCapacity)
        stream = .allocate(capacity: 1)
        stream.initialize(to: bz_stream())
        let status = BZ2_bzDecompressInit(stream, 0, 0)
        guard status == BZ_OK else {
            // No decoder to end: deinit, which runs as the initialiser throws, frees the buffers alone.
            betweenStreams = true
            throw .io(source: compressed.name, byteOffset: 0, message: "cannot start bzip2 decompression (libbz2 status \(status))")
        }
    }

    deinit {
        if !betweenStreams { BZ2_bzDecompressEnd(stream) }
        stream.deallocate()
        input.deallocate()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        if let pendingError { throw pendingError }
        while true {
            if stream.pointee.avail_in == 0 && !inputEnded {
                let read = try compressed.read(into: UnsafeMutableRawBufferPointer(start: input, count: inputCapacity))
                if read == 0 {
                    inputEnded = true
                } else {
                    stream.pointee.next_in = UnsafeMutableRawPointer(input).assumingMemoryBound(to: CChar.self)
                    stream.pointee.avail_in = UInt32(read)
                }
            }
            if stream.pointee.avail_in == 0 && inputEnded {
                if betweenStreams { return 0 }
                throw .io(source: name, byteOffset: compressedOffset, message: "truncated bzip2 data: the input ends inside a compressed stream")
            }
            if betweenStreams {
                // The next stream needs a decoder of its own; what carried over in `next_in` is kept.
                let (pending, count) = (stream.pointee.next_in, stream.pointee.avail_in)
                stream.pointee = bz_stream()
                stream.pointee.next_in = pending
                stream.pointee.avail_in = count
                let status = BZ2_bzDecompressInit(stream, 0, 0)
                guard status == BZ_OK else {
                    throw .io(source: name, byteOffset: compressedOffset, message: "cannot start bzip2 decompression (libbz2 status \(status))")
                }
                betweenStreams = false
            }
            let availableBefore = Int(stream.pointee.avail_in)
            let room = min(buffer.count, Int(UInt32.max))
            stream.pointee.next_out = base.assumingMemoryBound(to: CChar.self)
            stream.pointee.avail_out = UInt32(room)
            let status = BZ2_bzDecompress(stream)
            compressedOffset += availableBefore - Int(stream.pointee.avail_in)
            let produced = room - Int(stream.pointee.avail_out)
            producedLength += produced
            switch status {
            case BZ_STREAM_END:
                // libbz2 ends a stream only once its combined CRC matched.
                BZ2_bzDecompressEnd(stream)
                betweenStreams = true
                frameChecks?.frameEnded(at: producedLength)
            case BZ_OK:
                break
            default:
                let error = SluiceError.io(source: name, byteOffset: compressedOffset, message: "corrupt bzip2 data: \(Self.describe(status))")
                // What libbz2 produced before it found the damage is delivered, then the run fails; a block is checked
                // only once it is all out, so imports commit no byte of a stream before the stream's check passes.
                pendingError = error
                guard produced > 0 else { throw error }
                return produced
            }
            if produced > 0 { return produced }
        }
    }

    private static func describe(_ status: Int32) -> String {
        switch status {
        case BZ_DATA_ERROR_MAGIC: "not a bzip2 stream where one should start"
        case BZ_DATA_ERROR: "a block or stream fails its CRC, or is malformed"
        case BZ_MEM_ERROR: "not enough memory to decompress"
        default: "libbz2 status \(status)"
        }
    }
}
