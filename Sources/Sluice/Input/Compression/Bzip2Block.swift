import CBzip2

/// One block of a bzip2 stream, cut out of the stream's bits and decoded on its own.
///
/// A bzip2 stream is `BZh` and a block-size digit, then blocks that each start with the 48-bit magic number
/// 0x314159265359 at any bit offset (blocks are not byte-aligned), then the end-of-stream magic 0x177245385090, the
/// stream's combined CRC and padding to a byte. Blocks are independent, so each can be decoded apart from the others,
/// but libbz2 reads only whole streams: a block's bits are wrapped in a stream of their own, shifted to a byte
/// boundary, and decoded by libbz2, which checks the block's CRC against its data and that the end-of-stream magic
/// follows the block's last bit exactly. A candidate block that passes is thereby confirmed to start and end where
/// the magic numbers were found; a magic number that occurred inside compressed data fails there.
enum Bzip2Block {
    static let blockMagic: UInt64 = 0x3141_5926_5359
    static let endMagic: UInt64 = 0x1772_4538_5090

    /// The most bits a block of `level` (1 to 9, the stream's block size in 100 kB) can take: at most
    /// `level` × 100 000 symbols of at most 20 bits each, and the tables before them (libbz2 reads up to 32,767
    /// selectors, about 200,000 bits, and 6 coding tables). A candidate block longer than that is damaged, whatever
    /// magic numbers follow.
    static func largestLength(level: UInt8) -> Int {
        Int(level) * 100_000 * 20 + 300_000
    }

    /// `count` bits (at most 56) of `bytes` from bit `bit` on, most significant first, as the low bits of the result;
    /// bits past the end read as zeros.
    static func bits(_ bytes: UnsafeRawBufferPointer, at bit: Int, count: Int) -> UInt64 {
        let first = bit >> 3
        var word: UInt64 = 0
        for index in first..<(first + 8) {
            word = word << 8 | UInt64(index < bytes.count ? bytes[index] : 0)
        }
        return (word << UInt64(bit & 7)) >> UInt64(64 - count)
    }

    /// A one-block stream holding bits `start..<end` of `bytes` (the block, from its magic number on), for libbz2.
    /// Its combined CRC is the block's own, which is what one block combines to.
    static func stream(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int, level: UInt8) -> [UInt8] {
        var writer = BitWriter(capacity: (end - start) / 8 + 20)
        writer.write(UInt64(0x425A_6830 + UInt32(level)), count: 32)
        // Whole bytes shifted into place, two input bytes to one: the block's bits are as long as a block is.
        let shift = start & 7
        let wholeBytes = (end - start) / 8
        let first = start >> 3
        writer.append(count: wholeBytes) { index in
            let at = first + index
            return shift == 0 ? bytes[at] : bytes[at] << UInt8(shift) | bytes[at + 1] >> UInt8(8 - shift)
        }
        let bit = start + wholeBytes * 8
        if end > bit { writer.write(bits(bytes, at: bit, count: end - bit), count: end - bit) }
        writer.write(endMagic, count: 48)
        writer.write(bits(bytes, at: start + 48, count: 32), count: 32)
        return writer.finish()
    }

    /// What decoding one block gave.
    enum Decoded: Sendable {
        case bytes([UInt8])
        case failed(String)
    }

    /// Decodes a stream built by ``stream(_:from:to:level:)`` with libbz2 to its end.
    static func decode(_ stream: [UInt8], level: UInt8) -> Decoded {
        // libbz2 keeps the stream's address and checks it on every call: it lives at one place until the end.
        let state = UnsafeMutablePointer<bz_stream>.allocate(capacity: 1)
        state.initialize(to: bz_stream())
        defer { state.deallocate() }
        guard BZ2_bzDecompressInit(state, 0, 0) == BZ_OK else { return .failed("not enough memory to decompress bzip2 data") }
        defer { BZ2_bzDecompressEnd(state) }
        // Text rarely grows past its block size; runs of one byte can (libbz2 stores up to 255 in five bytes).
        var output = [UInt8](repeating: 0, count: Int(level) * 100_000 + 4096)
        var produced = 0
        // libbz2 only reads its input; its pointer type is not const.
        return stream.withUnsafeBytes { inputBytes -> Decoded in
            state.pointee.next_in = UnsafeMutablePointer(mutating: inputBytes.baseAddress?.assumingMemoryBound(to: CChar.self))
            state.pointee.avail_in = UInt32(inputBytes.count)
            while true {
                if produced == output.count { output += repeatElement(0, count: output.count) }
                let status = output.withUnsafeMutableBytes { outputBytes in
                    state.pointee.next_out = outputBytes.baseAddress.map { ($0 + produced).assumingMemoryBound(to: CChar.self) }
                    state.pointee.avail_out = UInt32(outputBytes.count - produced)
                    let status = BZ2_bzDecompress(state)
                    produced = outputBytes.count - Int(state.pointee.avail_out)
                    return status
                }
                switch status {
                case BZ_STREAM_END:
                    output.removeLast(output.count - produced)
                    return .bytes(output)
                case BZ_OK where state.pointee.avail_in > 0 || produced == output.count:
                    continue
                case BZ_OK:
                    return .failed("corrupt bzip2 data: a block runs past where the next one starts")
                case BZ_DATA_ERROR:
                    return .failed("corrupt bzip2 data: a block fails its CRC, or is malformed")
                case BZ_MEM_ERROR:
                    return .failed("not enough memory to decompress bzip2 data")
                default:
                    return .failed("corrupt bzip2 data (libbz2 status \(status))")
                }
            }
        }
    }
}

/// Bits appended most significant first, as bzip2 writes them.
private struct BitWriter {
    private var bytes: [UInt8] = []
    private var pending: UInt64 = 0
    private var pendingCount = 0

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends the low `count` bits of `value` (at most 56).
    mutating func write(_ value: UInt64, count: Int) {
        pending = pending << UInt64(count) | (value & ((1 << UInt64(count)) - 1))
        pendingCount += count
        while pendingCount >= 8 {
            pendingCount -= 8
            bytes.append(UInt8(truncatingIfNeeded: pending >> UInt64(pendingCount)))
        }
        pending &= (1 << UInt64(pendingCount)) - 1
    }

    /// Appends `count` whole bytes, `byte(i)` the i-th; the writer must be at a byte boundary.
    mutating func append(count: Int, _ byte: (Int) -> UInt8) {
        precondition(pendingCount == 0, "bytes appended between bytes")
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: count))
        bytes.withUnsafeMutableBufferPointer { buffer in
            for index in 0..<count { buffer[start + index] = byte(index) }
        }
    }

    /// The bytes written, the last padded with zero bits.
    mutating func finish() -> [UInt8] {
        if pendingCount > 0 { bytes.append(UInt8(truncatingIfNeeded: pending << UInt64(8 - pendingCount))) }
        pendingCount = 0
        return bytes
    }
}
