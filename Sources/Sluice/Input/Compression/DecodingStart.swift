/// Where decompression of a split file starts: a zstd frame, a bzip2 block or a gzip member. Each is independent of
/// what comes before it, which is what lets shards of one compressed file be read apart.
enum DecodingStart: Sendable, Hashable {
    case zstdFrame(ZstdFrameStart)
    case bzip2Block(Bzip2BlockStart)
    case gzipMember(GzipMemberStart)

    /// The byte of the stored file reading starts at (for a bzip2 block, the byte holding its first bit).
    var storedOffset: Int {
        switch self {
        case .zstdFrame(let frame): frame.storedOffset
        case .bzip2Block(let block): block.storedBit / 8
        case .gzipMember(let member): member.storedOffset
        }
    }

    /// The offset, in the decompressed input, of the first byte decompressed from there.
    var offset: Int {
        switch self {
        case .zstdFrame(let frame): frame.offset
        case .bzip2Block(let block): block.offset
        case .gzipMember(let member): member.offset
        }
    }

    /// How messages call what starts there: `zstd frame`.
    var name: String {
        switch self {
        case .zstdFrame: "zstd frame"
        case .bzip2Block: "bzip2 block"
        case .gzipMember: "gzip member"
        }
    }
}
