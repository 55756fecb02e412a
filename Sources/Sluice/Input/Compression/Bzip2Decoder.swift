import CBzip2

/// Decompresses bzip2 streams with libbz2, one after another (`cat a.bz2 b.bz2`, and what `pbzip2` writes). Each
/// block is checked against its CRC as it is decoded, and each stream against its combined CRC at its end, which is
/// when libbz2 ends it.
final class Bzip2Decoder: StreamDecoder {
    static let unit = "stream"
    static let format = "bzip2"
    private let stream: UnsafeMutablePointer<bz_stream>
    /// The last stream ended (and its decoder was freed) and the next has not started.
    private(set) var isBetweenUnits = true

    init() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: bz_stream())
    }

    deinit {
        if !isBetweenUnits { BZ2_bzDecompressEnd(stream) }
        stream.deallocate()
    }

    func decode(_ input: inout UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, inputEnded: Bool) -> DecodeStep {
        if isBetweenUnits {
            guard !input.isEmpty else { return DecodeStep(produced: 0, outcome: .running) }
            // Each stream needs a decoder of its own.
            stream.pointee = bz_stream()
            let status = BZ2_bzDecompressInit(stream, 0, 0)
            guard status == BZ_OK else {
                return DecodeStep(produced: 0, outcome: .failed("cannot start bzip2 decompression (libbz2 status \(status))"))
            }
            isBetweenUnits = false
        }
        let call = ThirtyTwoBitCall(input, output)
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: CChar.self))
        stream.pointee.avail_in = call.inputCount
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: CChar.self)
        stream.pointee.avail_out = call.room
        let status = BZ2_bzDecompress(stream)
        let produced = call.advance(&input, inputLeft: stream.pointee.avail_in, roomLeft: stream.pointee.avail_out)
        switch status {
        case BZ_STREAM_END:
            BZ2_bzDecompressEnd(stream)
            isBetweenUnits = true
            return DecodeStep(produced: produced, outcome: .unitEnded)
        case BZ_OK:
            return DecodeStep(produced: produced, outcome: .running)
        default:
            return DecodeStep(produced: produced, outcome: .failed("corrupt bzip2 data: \(Self.describe(status))"))
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
