/// Where a bzip2 block starts, both in the stored (compressed) file, to the bit, and in the decompressed input.
/// Blocks are independent, so decompression can start at any of them: this is how one `.bz2` file is split.
public struct Bzip2BlockStart: Sendable, Hashable, Codable {
    /// The bit where the block's magic number starts in the stored file, counted from the file's first bit (the most
    /// significant of byte 0).
    public var storedBit: Int
    /// The block size digit of the block's stream (1 to 9, from its `BZh` header): how large its blocks may be.
    public var blockSize: Int
    /// The offset, in the decompressed input, of the first byte the block decompresses to.
    public var offset: Int

    /// A block whose magic number starts at bit `storedBit` of the stored file, in a stream of block size
    /// `blockSize`, and whose first byte decompressed is at `offset`.
    public init(storedBit: Int, blockSize: Int, offset: Int) {
        self.storedBit = storedBit
        self.blockSize = blockSize
        self.offset = offset
    }
}
