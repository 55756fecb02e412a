import CZlib

/// Decompresses gzip (or zlib) data as it is read, including several gzip members one after another, which is
/// what concatenated `.gz` dumps are.
final class GzipSource: ByteSource {
    let name: String
    var size: Int? { nil }
    private var compressed: any ByteSource
    private let stream: UnsafeMutablePointer<z_stream>
    private let inputCapacity = 256 << 10
    private let input: UnsafeMutablePointer<UInt8>
    private var inputEnded = false
    /// Between members: the last one ended and the next has not started.
    private var betweenMembers = false
    /// Compressed bytes handed to zlib so far, for error offsets.
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
        stream.initialize(to: z_stream())
        // 15 + 32: the largest window, and detect a gzip or zlib header.
        let status = czlib_inflate_init(stream, 15 + 32)
        // deinit, which runs as the initialiser throws, frees the buffers (inflateEnd is harmless on a failed start).
        guard status == Z_OK else {
            throw .io(source: compressed.name, byteOffset: 0, message: "cannot start gzip decompression (zlib status \(status))")
        }
    }

    deinit {
        inflateEnd(stream)
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
                    stream.pointee.next_in = input
                    stream.pointee.avail_in = UInt32(read)
                }
            }
            if stream.pointee.avail_in == 0 && inputEnded {
                if betweenMembers { return 0 }
                throw .io(source: name, byteOffset: compressedOffset, message: "truncated gzip data: the input ends inside a compressed member")
            }
            if betweenMembers {
                inflateReset(stream)
                betweenMembers = false
            }
            let availableBefore = Int(stream.pointee.avail_in)
            stream.pointee.next_out = base.assumingMemoryBound(to: UInt8.self)
            stream.pointee.avail_out = UInt32(min(buffer.count, Int(UInt32.max)))
            let status = inflate(stream, Z_NO_FLUSH)
            compressedOffset += availableBefore - Int(stream.pointee.avail_in)
            let produced = min(buffer.count, Int(UInt32.max)) - Int(stream.pointee.avail_out)
            producedLength += produced
            switch status {
            case Z_STREAM_END:
                // zlib returns the member's end only once its CRC-32 and length matched.
                betweenMembers = true
                frameChecks?.frameEnded(at: producedLength)
            case Z_OK, Z_BUF_ERROR:
                break
            default:
                let detail = stream.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                let error = SluiceError.io(source: name, byteOffset: compressedOffset, message: "corrupt gzip data: \(detail)")
                // What zlib produced before it found the damage is good data (a bad trailer checksum is found
                // after the whole member): deliver it, then fail.
                guard produced > 0 else { throw error }
                pendingError = error
                return produced
            }
            if produced > 0 { return produced }
        }
    }
}
