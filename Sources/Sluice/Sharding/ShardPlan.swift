import Foundation

/// How large the shards of a plan are to be.
public enum ShardSize: Sendable, Hashable {
    /// About this many shards of equal bytes (fewer when the input holds fewer records).
    case parts(Int)
    /// Shards of about this many bytes each, as stored (compressed bytes, for a compressed file).
    case bytes(Int)

    /// The offsets to cut at: a shard ends at the first record start at or after each.
    func targets(totalBytes: Int, source: String) throws(SluiceError) -> [Int] {
        switch self {
        case .parts(let count):
            guard count >= 1 else { throw .invalidOptions("a split needs at least 1 part") }
            guard count <= 1_000_000 else { throw .invalidOptions("a split makes at most a million shards, not \(count)") }
            return (1..<count).map { Int((Double(totalBytes) * Double($0) / Double(count)).rounded(.up)) }
        case .bytes(let count):
            guard count >= 1 else { throw .invalidOptions("a part size must be at least 1 byte") }
            guard totalBytes / count < 1_000_000 else {
                throw .invalidOptions("parts of \(count) bytes would make over a million shards of \(source): give a larger part size")
            }
            return Array(stride(from: count, to: max(totalBytes, count), by: count))
        }
    }
}

/// An input split into record-aligned shards, with what each shard needs to be read on its own: its byte range,
/// whether it holds lines or array elements, and the ordinal and line of its first record in the whole input.
///
/// NDJSON is split at line starts; a top-level array, or the array at a wrapper document's records path, at
/// element starts, found by one sequential structural scan of the whole input (which also checks that its
/// brackets pair up). A zstd file of several frames is split where frames start (see ``InputShard/zstdFrame``), a
/// gzip file of several members where members start (``InputShard/gzipMember``), a bzip2 file where blocks start
/// (``InputShard/bzip2Block``); inside one zstd frame or gzip member nothing can be cut, as its bytes at an offset
/// depend on everything before; xz is not split yet.
/// Processes given one shard each (``ReaderOptions/shard``) read every record once, numbered as one reader would.
public struct ShardPlan: Sendable, Hashable, Codable {
    /// The input's name, as errors give it.
    public var input: String
    /// The version of the input that was split: shards fit it only.
    public var fingerprint: FileFingerprint
    /// ``InputShape/ndjson`` or ``InputShape/array`` (records inside a wrapper document too).
    public var shape: String
    /// The records path, for a wrapper document.
    public var recordsPath: String?
    /// Records in the whole input.
    public var records: Int
    /// The shards, in file order: together they hold every record once.
    public var shards: [InputShard]
    /// Whether this is an index (``indexing(_:shape:recordsPath:maximumDepth:maximumWindow:)``) rather than a plan to read:
    /// an index is kept to be cut again, and a plan is not taken for one.
    public var isIndex: Bool?
    /// For a zstd file: how many frames it holds (shards can start only where one does).
    public var zstdFrames: Int?
    /// For a bzip2 file: how many blocks it holds (shards can start only where one does).
    public var bzip2Blocks: Int?
    /// For a gzip file: how many members it holds that decompress to some bytes (shards can start only where one
    /// does).
    public var gzipMembers: Int?
    /// For a compressed file: its size decompressed.
    public var decompressedBytes: Int?

    /// Splits an input (a file, or bytes in memory).
    /// - Parameters:
    ///   - input: The input to split: a file, or bytes in memory.
    ///   - size: How the shards are sized: by count or by bytes.
    ///   - shape: ``InputShape/automatic`` looks at the first bytes; only NDJSON and arrays split.
    ///   - recordsPath: The key path of the records array inside a wrapper document.
    ///   - maximumDepth: The deepest nesting a record may have, as ``ReaderOptions/maximumDepth``.
    ///   - maximumWindow: The largest window a zstd frame may ask for, as ``ReaderOptions/maximumDecompressionWindow``.
    /// - Throws: ``SluiceError/invalidOptions(_:)`` for input that cannot be split (xz, a stream, a single
    ///   document without records path, records in an object), ``SluiceError/io(source:byteOffset:message:)``
    ///   for a read failure or an array whose structure is broken.
    public init(
        splitting input: Input, into size: ShardSize, shape: InputShape = .automatic, recordsPath: String? = nil, maximumDepth: Int = 1024,
        maximumWindow: Int = ReaderOptions().maximumDecompressionWindow
    ) throws(SluiceError) {
        fingerprint = try FileFingerprint(of: input)
        var source = try input.openRaw()
        self.input = source.name
        self.recordsPath = recordsPath
        var scan = try ShardScan(source: &source, totalBytes: fingerprint.size, size: size, shape: shape, recordsPath: recordsPath,
                                 maximumDepth: maximumDepth, maximumWindow: maximumWindow)
        try scan.run()
        self.shape = scan.readsArray ? InputShape.array.rawValue : InputShape.ndjson.rawValue
        records = scan.records
        shards = scan.shards
        zstdFrames = scan.zstdFrames
        bzip2Blocks = scan.bzip2Blocks
        gzipMembers = scan.gzipMembers
        decompressedBytes = zstdFrames == nil && bzip2Blocks == nil && gzipMembers == nil ? nil : scan.bytesScanned
    }

    /// A plan cut from an index (a fine plan of the same file, ``indexing(_:shape:recordsPath:maximumDepth:maximumWindow:)``)
    /// without reading the file: each shard is whole shards of the index, ending at the first of the index's cuts
    /// at or after each target offset. So shards are as even as the index is fine, and a size finer than the
    /// index gives fewer shards.
    public init(cutting index: ShardPlan, into size: ShardSize) throws(SluiceError) {
        self = index
        isIndex = nil
        shards = []
        var cuts = ShardCuts(targets: try size.targets(totalBytes: index.fingerprint.size, source: index.input))
        var first = 0
        for (position, piece) in index.shards.enumerated() where position > 0 && cuts.cuts(at: piece.cutOffset, after: index.shards[first].cutOffset) {
            shards.append(Self.joining(index.shards[first..<position]))
            first = position
        }
        if first < index.shards.count { shards.append(Self.joining(index.shards[first...])) }
    }

    /// The index's pieces between two cuts, read as one shard: they are contiguous, so the first one's start,
    /// ordinal, line and zstd frame, gzip member or bzip2 block and the last one's end are the shard's.
    private static func joining(_ pieces: ArraySlice<InputShard>) -> InputShard {
        let head = pieces[pieces.startIndex]
        let last = pieces[pieces.endIndex - 1]
        return InputShard(byteRange: head.byteRange.lowerBound..<last.byteRange.upperBound, content: head.content,
                          firstOrdinal: head.firstOrdinal, firstLine: head.firstLine, records: pieces.reduce(0) { $0 + $1.records },
                          decodingStart: head.decodingStart)
    }

    /// The cuts a plan can be made from again and again (``init(cutting:into:)``): a plan of the input with a
    /// shard for about every 1/4096 of it, kept in a file next to the input so that a later
    /// split of the unchanged file reads no byte of it.
    public static func indexing(
        _ input: Input, shape: InputShape = .automatic, recordsPath: String? = nil, maximumDepth: Int = 1024, maximumWindow: Int = ReaderOptions().maximumDecompressionWindow
    ) throws(SluiceError) -> ShardPlan {
        let size = try FileFingerprint(of: input).size
        var index = try ShardPlan(splitting: input, into: .bytes(max(1, (size + 4095) / 4096)), shape: shape, recordsPath: recordsPath,
                                  maximumDepth: maximumDepth, maximumWindow: maximumWindow)
        index.isIndex = true
        return index
    }

    /// Whether this index can stand for a split of `input` as it is now, read at `recordsPath` as `shape` (an
    /// automatic shape as the input's first bytes show it).
    public func fits(_ input: Input, shape: InputShape, recordsPath: String?, maximumWindow: Int = ReaderOptions().maximumDecompressionWindow) -> Bool {
        guard isIndex == true, (try? checkMatches(input)) != nil, self.recordsPath == recordsPath else { return false }
        if recordsPath != nil { return true }
        if shape != .automatic { return shape.rawValue == self.shape }
        return (try? ShapeDetector.shape(atStartOf: input, maximumWindow: maximumWindow))?.rawValue == self.shape
    }

    /// Reads a plan written by ``jsonText``.
    public init(jsonText: [UInt8], source: String) throws(SluiceError) {
        do {
            self = try JSONDecoder().decode(ShardPlan.self, from: Data(jsonText))
        } catch {
            throw .invalidOptions("\(source) is not a shard plan from `sluice split`: \(error)")
        }
    }

    /// The plan as JSON (what `sluice split` writes).
    public var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain integers and strings cannot fail.
        let data = (try? encoder.encode(self)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Checks that `input` is the version of the input this plan was made from.
    /// - Throws: ``SluiceError/invalidOptions(_:)`` naming what differs.
    public func checkMatches(_ input: Input) throws(SluiceError) {
        let current = try FileFingerprint(of: input)
        var differences: [String] = []
        if current.size != fingerprint.size { differences.append("its size is \(current.size) bytes, not \(fingerprint.size)") }
        if current.modified != fingerprint.modified { differences.append("it was modified since") }
        if current.firstMiBChecksum != fingerprint.firstMiBChecksum { differences.append("its first MiB differs") }
        guard differences.isEmpty else {
            throw .invalidOptions("the shard plan was made from another version of \(self.input) (\(differences.joined(separator: ", "))): split it again")
        }
    }
}
