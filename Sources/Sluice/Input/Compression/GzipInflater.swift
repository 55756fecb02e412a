/// Which library inflates gzip input. ISA-L (the `FastGzip` trait, on by default) inflates about four times as
/// fast as zlib; zlib is there without it. Both end a member only once its CRC-32 and length matched, and read the
/// members of a multi-member file one after another.
enum GzipInflater: CaseIterable {
    #if FastGzip
    case isal
    #endif
    case zlib

    /// What both say when a member's trailer does not match what it decoded to, so that runs read alike.
    static let trailerMismatch = "corrupt gzip data: the member's CRC-32 or length does not match its data"

    /// The fewest workers whose runs inflate members ahead. Two workers map about as fast as one ISA-L thread
    /// inflates; on two cores, inflating ahead made such runs 10–15 % slower (docs/benchmarks.md). Three or more map
    /// faster than one thread inflates, which then holds the run back.
    static let fewestThreadsAhead = 3

    /// The part of a run's memory budget that inflating the members of `compressed` ahead on `threads` threads takes:
    /// an eighth, when that is 1 MiB or more, there are ``fewestThreadsAhead`` threads or more, and the input is a
    /// file (none otherwise: ``ParallelGzipInflater`` reads ahead, which would hold a pipe's members back until the
    /// next one arrived).
    static func aheadMemory(for compressed: any ByteSource, threads: Int, within budget: Int) -> Int {
        threads >= fewestThreadsAhead && compressed.size != nil && budget / 8 >= 1 << 20 ? budget / 8 : 0
    }

    /// The fastest the build has.
    static var preferred: GzipInflater {
        #if FastGzip
        .isal
        #else
        .zlib
        #endif
    }

    /// A source that inflates `compressed`, which starts with a gzip member; at `start`, when that member is not the
    /// file's first. `log`, if given, notes where each member starts. Given a share of the memory budget (`memory`,
    /// ``aheadMemory(for:threads:within:)``) and no log, members small enough are inflated ahead on `threads` threads.
    func source(
        decompressing compressed: any ByteSource, startingAt start: GzipMemberStart = GzipMemberStart(storedOffset: 0, offset: 0), log: UnitStartLog? = nil,
        threads: Int = 1, memory: Int = 0
    ) throws(SluiceError) -> any ByteSource {
        let name = compressed.name
        switch self {
        #if FastGzip
        case .isal:
            return try Self.source(decompressing: compressed, startingAt: start, log: log, threads: threads, memory: memory) { IsalInflater() }
        #endif
        case .zlib:
            return try Self.source(decompressing: compressed, startingAt: start, log: log, threads: threads, memory: memory) { () throws(SluiceError) in
                try ZlibInflater(source: name)
            }
        }
    }

    /// The source ``source(decompressing:startingAt:log:threads:memory:)`` describes, with the inflaters `make` makes.
    private static func source<Inflater: StreamDecoder & SendableMetatype>(
        decompressing compressed: any ByteSource, startingAt start: GzipMemberStart, log: UnitStartLog?, threads: Int, memory: Int,
        make: @escaping ParallelGzipInflater<Inflater>.Make
    ) throws(SluiceError) -> any ByteSource {
        let startsAt = (start.storedOffset, start.offset)
        guard memory > 0 && log == nil else {
            return DecompressingSource(compressed: compressed, decoder: try make(), checks: FrameChecks(), startingAt: startsAt, log: log)
        }
        let decoder = try ParallelGzipInflater(threads: threads, memory: memory, startingAt: start.storedOffset, make: make)
        return DecompressingSource(compressed: compressed, decoder: decoder, checks: FrameChecks(), startingAt: startsAt)
    }
}
