/// Where a zstd frame starts, both in the stored (compressed) file and in the decompressed input. Frames are
/// independent, so decompression can start at any of them: this is how a file of several frames (written by
/// `pzstd`, or by joining separately compressed pieces) is split.
public struct ZstdFrameStart: Sendable, Hashable, Codable {
    /// The offset of the frame's first byte in the stored file.
    public var storedOffset: Int
    /// The offset, in the decompressed input, of the first byte the frame decompresses to.
    public var offset: Int

    /// A frame starting at `storedOffset` of the stored file, whose first byte decompressed is at `offset`.
    public init(storedOffset: Int, offset: Int) {
        self.storedOffset = storedOffset
        self.offset = offset
    }
}
