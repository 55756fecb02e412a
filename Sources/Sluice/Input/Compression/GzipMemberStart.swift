/// Where a gzip member starts, both in the stored (compressed) file and in the decompressed input. Members are
/// independent, so decompression can start at any of them: this is how a file of several members (written by
/// `bgzip`, or by joining separately compressed pieces, as a day of hourly dumps) is split.
public struct GzipMemberStart: Sendable, Hashable, Codable {
    /// The offset of the member's first byte (its header's) in the stored file.
    public var storedOffset: Int
    /// The offset, in the decompressed input, of the first byte the member decompresses to.
    public var offset: Int

    /// A member starting at `storedOffset` of the stored file, whose first byte decompressed is at `offset`.
    public init(storedOffset: Int, offset: Int) {
        self.storedOffset = storedOffset
        self.offset = offset
    }
}
