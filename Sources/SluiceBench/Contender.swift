import Foundation
import Sluice
import SluiceFixtures

/// A file the contenders read, and what it holds.
public struct BenchInput: Sendable {
    public var path: String
    public var layout: FixtureFile.Layout
    public var compression: FixtureFile.Compression
    /// Bytes of JSON (uncompressed): the MB in MB/s.
    public var bytes: Int
    /// The user's own mapping, when the input is not the generated fixture; only contenders that read any mapping
    /// run then.
    public var schema: MappingSchema?
    /// How the report names the input's shape: the layout generated, or the shape your own input was read as.
    public var shapeName: String
    /// Records of your own input that its mapping rejects: the other readers would read them their own way.
    public var recordsRejected = 0

    public init(path: String, layout: FixtureFile.Layout, compression: FixtureFile.Compression, bytes: Int, schema: MappingSchema? = nil, shapeName: String? = nil) {
        self.path = path
        self.layout = layout
        self.compression = compression
        self.bytes = bytes
        self.schema = schema
        self.shapeName = shapeName ?? layout.rawValue
    }
}

/// What one timed run gave.
public struct RunOutcome: Sendable {
    /// `nil` for the tokenizer ceiling, which maps nothing.
    public var checksum: Checksum?
    /// Set by contenders that time themselves (subprocesses, which exclude their interpreter's start-up).
    public var seconds: Double?
    public var cpuSeconds: Double?
    public var peakResidentBytes: Int?

    public init(checksum: Checksum?, seconds: Double? = nil, cpuSeconds: Double? = nil, peakResidentBytes: Int? = nil) {
        self.checksum = checksum
        self.seconds = seconds
        self.cpuSeconds = cpuSeconds
        self.peakResidentBytes = peakResidentBytes
    }
}

/// One way of reading the input into records.
public struct Contender: Sendable {
    public enum Family: String, Sendable, Codable {
        /// yajl with empty callbacks: what any yajl-based mapper can reach.
        case ceiling
        case sluice
        /// What Swift (and Objective-C) users pick today.
        case foundation
        /// Other ecosystems, run as subprocesses when installed.
        case foreign
        /// The system's decompressor alone (`gzip -dc`), for compressed input: the pace decompression sets.
        case decompressor
    }

    public var name: String
    /// A short machine-readable name (`sluice-columnar-2`), used in `--json` output and to pick contenders.
    public var key: String
    public var family: Family
    /// Worker threads it uses (1 for single-threaded ones).
    public var threads: Int
    let run: @Sendable (BenchInput) throws -> RunOutcome

    public init(name: String, key: String, family: Family, threads: Int, run: @escaping @Sendable (BenchInput) throws -> RunOutcome) {
        self.name = name
        self.key = key
        self.family = family
        self.threads = threads
        self.run = run
    }

    public func callAsFunction(_ input: BenchInput) throws -> RunOutcome { try run(input) }
}

/// Why a run cannot go on: a contender failed, or disagreed with the others.
public struct BenchError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
