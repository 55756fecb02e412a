/// One record-aligned piece of a file (uncompressed, zstd of several frames, gzip of several members, or bzip2), as ``ShardPlan`` finds them: N
/// processes, each given one shard of the same file, read every record exactly once, and number records, lines and
/// byte offsets as one reader of the whole file would.
public struct InputShard: Sendable, Hashable, Codable {
    /// What the shard's bytes hold.
    public enum Content: String, Sendable, Hashable, Codable {
        /// Whole lines of an NDJSON file.
        case lines
        /// The first elements of the records array (a top-level array, or the array at a wrapper's records
        /// path), from the array's `[` to the first byte of the next shard's first element (or past the array's
        /// `]`, when one shard holds it all).
        case arrayOpening
        /// Further elements of the records array, from an element's first byte to the first byte of the next
        /// shard's first element (or past the array's `]`, for the last shard).
        case arrayElements
    }

    /// Where the shard sits in the file (in the decompressed input, for a shard of a compressed file).
    public var byteRange: Range<Int>
    /// What the shard's bytes hold: lines, or an array's elements.
    public var content: Content
    /// The ordinal of the shard's first record in the whole file (1 for the first record).
    public var firstOrdinal: Int
    /// The line on which the shard's first byte lies (1 for the file's first line).
    public var firstLine: Int
    /// How many records the shard holds.
    public var records: Int
    /// For a zstd file of several frames: the frame that holds the shard's first byte, where decompression
    /// starts. The byte range, ordinals and lines are then the decompressed input's.
    public var zstdFrame: ZstdFrameStart?
    /// For a bzip2 file: the block that holds the shard's first byte, where decompression starts. The byte range,
    /// ordinals and lines are then the decompressed input's.
    public var bzip2Block: Bzip2BlockStart?
    /// For a gzip file of several members: the member that holds the shard's first byte, where decompression
    /// starts. The byte range, ordinals and lines are then the decompressed input's.
    public var gzipMember: GzipMemberStart?

    /// Creates a shard; ``ShardPlan`` makes them for a file, which is where shards normally come from.
    public init(
        byteRange: Range<Int>, content: Content, firstOrdinal: Int, firstLine: Int, records: Int, zstdFrame: ZstdFrameStart? = nil,
        bzip2Block: Bzip2BlockStart? = nil, gzipMember: GzipMemberStart? = nil
    ) {
        self.byteRange = byteRange
        self.content = content
        self.firstOrdinal = firstOrdinal
        self.firstLine = firstLine
        self.records = records
        self.zstdFrame = zstdFrame
        self.bzip2Block = bzip2Block
        self.gzipMember = gzipMember
    }

    /// A shard of a compressed file, from where its decompression starts.
    init(byteRange: Range<Int>, content: Content, firstOrdinal: Int, firstLine: Int, records: Int, decodingStart: DecodingStart?) {
        self.init(byteRange: byteRange, content: content, firstOrdinal: firstOrdinal, firstLine: firstLine, records: records)
        switch decodingStart {
        case .zstdFrame(let frame): zstdFrame = frame
        case .bzip2Block(let block): bzip2Block = block
        case .gzipMember(let member): gzipMember = member
        case nil: break
        }
    }

    /// Where the shard's decompression starts, for a shard of a compressed file.
    var decodingStart: DecodingStart? {
        zstdFrame.map(DecodingStart.zstdFrame) ?? bzip2Block.map(DecodingStart.bzip2Block) ?? gzipMember.map(DecodingStart.gzipMember)
    }

    private enum CodingKeys: String, CodingKey {
        case start, end, content, firstOrdinal, firstLine, records, zstdFrame, bzip2Block, gzipMember
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let start = try container.decode(Int.self, forKey: .start)
        let end = try container.decode(Int.self, forKey: .end)
        guard start >= 0, end >= start else {
            throw DecodingError.dataCorruptedError(forKey: .end, in: container, debugDescription: "a shard ends before it starts")
        }
        byteRange = start..<end
        content = try container.decode(Content.self, forKey: .content)
        firstOrdinal = try container.decode(Int.self, forKey: .firstOrdinal)
        firstLine = try container.decode(Int.self, forKey: .firstLine)
        records = try container.decode(Int.self, forKey: .records)
        zstdFrame = try container.decodeIfPresent(ZstdFrameStart.self, forKey: .zstdFrame)
        bzip2Block = try container.decodeIfPresent(Bzip2BlockStart.self, forKey: .bzip2Block)
        gzipMember = try container.decodeIfPresent(GzipMemberStart.self, forKey: .gzipMember)
        guard decodingStartFits else {
            let key: CodingKeys = gzipMember != nil ? .gzipMember : bzip2Block != nil ? .bzip2Block : .zstdFrame
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: Self.decodingStartRule)
        }
    }

    /// Whether the shard's zstd frame, bzip2 block or gzip member, if it names one, can hold its start (see
    /// ``decodingStartRule``).
    var decodingStartFits: Bool {
        if [zstdFrame != nil, bzip2Block != nil, gzipMember != nil].filter({ $0 }).count > 1 { return false }
        if let block = bzip2Block, !(32...(1 << 51)).contains(block.storedBit) || !(1...9).contains(block.blockSize) { return false }
        guard let start = decodingStart else { return true }
        return start.storedOffset >= 0 && start.storedOffset <= 1 << 48 && start.offset >= 0 && start.offset <= byteRange.lowerBound
            && (start.storedOffset != 0 || start.offset == 0)
    }

    static let decodingStartRule = "a shard names one zstd frame, bzip2 block (block size 1 to 9, after the file's header) or gzip member, not several; it starts at byte 0 or later (up to 2^48), at or before the shard, and the first frame or member decompresses from offset 0"

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(byteRange.lowerBound, forKey: .start)
        try container.encode(byteRange.upperBound, forKey: .end)
        try container.encode(content, forKey: .content)
        try container.encode(firstOrdinal, forKey: .firstOrdinal)
        try container.encode(firstLine, forKey: .firstLine)
        try container.encode(records, forKey: .records)
        try container.encodeIfPresent(zstdFrame, forKey: .zstdFrame)
        try container.encodeIfPresent(bzip2Block, forKey: .bzip2Block)
        try container.encodeIfPresent(gzipMember, forKey: .gzipMember)
    }
}
