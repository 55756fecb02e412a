import CZlib

/// A gzip member's header (RFC 1952, 2.3), read by Sluice rather than by ISA-L, whose parser loses the header's
/// flags when the header's optional fields arrive in more than one piece (a pipe's reads, a member at a buffer's end).
struct GzipHeader {
    /// The header's bytes so far.
    private var bytes: [UInt8] = []
    /// A name or comment longer than this is taken for damage, not waited for.
    static let maximumLength = 64 << 10

    enum Progress {
        /// The header ended; the bytes after it in the last piece are the member's data.
        case complete(dataStart: Int)
        case needsMore
        case invalid(String)
    }

    /// Adds `piece` and says whether the header is whole, and where in `piece` it ended.
    mutating func add(_ piece: UnsafeRawBufferPointer) -> Progress {
        let before = bytes.count
        bytes += piece.prefix(Self.maximumLength + 1 - before)
        switch Self.length(of: bytes) {
        case .complete(let length): return .complete(dataStart: length - before)
        case .needsMore where bytes.count > Self.maximumLength: return .invalid("a gzip header longer than 64 KiB")
        case let other: return other
        }
    }

    /// Whether the four bytes at `index` may start a member: the magic number, deflate, and no reserved flags. Inside
    /// compressed data they may also occur by chance.
    static func mayStart<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at index: Int) -> Bool where Bytes.Index == Int {
        bytes[index] == 0x1F && bytes[index + 1] == 0x8B && bytes[index + 2] == 8 && bytes[index + 3] & 0xE0 == 0
    }

    /// The header's length in `bytes`, if it is whole there.
    private static func length(of bytes: [UInt8]) -> Progress {
        guard bytes.count >= 10 else {
            return bytes.starts(with: [0x1F, 0x8B, 0x08].prefix(bytes.count)) ? .needsMore : .invalid("invalid gzip header")
        }
        guard bytes[0] == 0x1F, bytes[1] == 0x8B else { return .invalid("invalid gzip header") }
        guard bytes[2] == 8 else { return .invalid("the header names a method other than deflate") }
        let flags = bytes[3]
        // Reserved flags must be zero: a reader cannot know what they announce.
        guard flags & 0xE0 == 0 else { return .invalid("the header sets reserved flags") }
        var end = 10
        if flags & 0x04 != 0 {
            guard bytes.count >= end + 2 else { return .needsMore }
            end += 2 + Int(bytes[end]) | Int(bytes[end + 1]) << 8
        }
        for field: UInt8 in [0x08, 0x10] where flags & field != 0 {
            guard end < bytes.count, let terminator = bytes[end...].firstIndex(of: 0) else { return .needsMore }
            end = terminator + 1
        }
        if flags & 0x02 != 0 {
            guard bytes.count >= end + 2 else { return .needsMore }
            let stored = UInt32(bytes[end]) | UInt32(bytes[end + 1]) << 8
            let computed = bytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32(end)) } & 0xFFFF
            guard stored == UInt32(computed) else { return .invalid("the header's checksum does not match") }
            end += 2
        }
        return bytes.count >= end ? .complete(dataStart: end) : .needsMore
    }
}
