import Foundation

/// How large the shards of a plan are to be.
public enum ShardSize: Sendable, Hashable {
    /// About this many shards of equal bytes (fewer when the input holds fewer records).
    case parts(Int)
    /// Shards of about this many bytes each.
    case bytes(Int)
}

/// An input split into record-aligned shards, with what each shard needs to be read on its own: its byte range,
/// whether it holds lines or array elements, and the ordinal and line of its first record in the whole input.
///
/// NDJSON is split at line starts; a top-level array, or the array at a wrapper document's records path, at
/// element starts, found by one sequential structural scan of the whole input (which also checks that its
/// brackets pair up). Compressed input cannot be split: its bytes at an offset depend on everything before.
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
    public var shards: [InputShard]

    /// Splits an input (a file, or bytes in memory).
    /// - Parameters:
    ///   - shape: ``InputShape/automatic`` looks at the first bytes; only NDJSON and arrays split.
    ///   - recordsPath: The key path of the records array inside a wrapper document.
    /// - Throws: ``SluiceError/invalidOptions(_:)`` for input that cannot be split (compressed, a stream, a single
    ///   document without records path, records in an object), ``SluiceError/io(source:byteOffset:message:)``
    ///   for a read failure or an array whose structure is broken.
    public init(splitting input: Input, into size: ShardSize, shape: InputShape = .automatic, recordsPath: String? = nil, maximumDepth: Int = 1024) throws(SluiceError) {
        switch size {
        case .parts(let count) where count < 1: throw .invalidOptions("a split needs at least 1 part")
        case .bytes(let count) where count < 1: throw .invalidOptions("a part size must be at least 1 byte")
        default: break
        }
        fingerprint = try FileFingerprint(of: input)
        var source = try input.openRaw()
        self.input = source.name
        self.recordsPath = recordsPath
        var scan = try ShardScan(source: &source, totalBytes: fingerprint.size, size: size, shape: shape, recordsPath: recordsPath, maximumDepth: maximumDepth)
        try scan.run()
        self.shape = scan.readsArray ? InputShape.array.rawValue : InputShape.ndjson.rawValue
        records = scan.records
        shards = scan.shards
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
