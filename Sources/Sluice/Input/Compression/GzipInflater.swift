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

    /// The fastest the build has.
    static var preferred: GzipInflater {
        #if FastGzip
        .isal
        #else
        .zlib
        #endif
    }

    /// A source that inflates `compressed`, which starts with a gzip member; at `start`, when that member is not the
    /// file's first. `log`, if given, notes where each member starts.
    func source(
        decompressing compressed: any ByteSource, startingAt start: GzipMemberStart = GzipMemberStart(storedOffset: 0, offset: 0), log: UnitStartLog? = nil
    ) throws(SluiceError) -> any ByteSource {
        let start = (start.storedOffset, start.offset)
        switch self {
        #if FastGzip
        case .isal:
            return DecompressingSource(compressed: compressed, decoder: IsalInflater(), checks: FrameChecks(), startingAt: start, log: log)
        #endif
        case .zlib:
            return DecompressingSource(compressed: compressed, decoder: try ZlibInflater(source: compressed.name), checks: FrameChecks(), startingAt: start, log: log)
        }
    }
}
