import CZlib

/// Inflates gzip members with zlib, one after another (`cat a.gz b.gz`, a day of hourly dumps). zlib ends a member
/// only once its CRC-32 and length matched.
final class ZlibInflater: StreamDecoder {
    static let unit = "member"
    static let format = "gzip"
    private let stream: UnsafeMutablePointer<z_stream>
    /// The last member ended and the next has not started.
    private(set) var isBetweenUnits = true

    init(source: String) throws(SluiceError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 15 + 16: the largest window, and a gzip header only: a zlib stream after a member is damage, as for gzip -dc.
        let status = czlib_inflate_init(stream, 15 + 16)
        // deinit, which runs as the initialiser throws, frees the stream (inflateEnd is harmless on a failed start).
        guard status == Z_OK else {
            throw .io(source: source, byteOffset: 0, message: "cannot start gzip decompression (zlib status \(status))")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    func decode(_ input: inout UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, inputEnded: Bool) -> DecodeStep {
        if isBetweenUnits && !input.isEmpty {
            inflateReset(stream)
            isBetweenUnits = false
        }
        let call = ThirtyTwoBitCall(input, output)
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.pointee.avail_in = call.inputCount
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = call.room
        let status = inflate(stream, Z_NO_FLUSH)
        let produced = call.advance(&input, inputLeft: stream.pointee.avail_in, roomLeft: stream.pointee.avail_out)
        switch status {
        case Z_STREAM_END:
            isBetweenUnits = true
            return DecodeStep(produced: produced, outcome: .unitEnded)
        case Z_OK, Z_BUF_ERROR:
            return DecodeStep(produced: produced, outcome: .running)
        default:
            let detail = stream.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)"
            if detail == "incorrect data check" || detail == "incorrect length check" {
                return DecodeStep(produced: produced, outcome: .failed(GzipInflater.trailerMismatch))
            }
            return DecodeStep(produced: produced, outcome: .failed("corrupt gzip data: \(detail)"))
        }
    }
}
