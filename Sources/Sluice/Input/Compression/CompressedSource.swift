/// The compressed formats recognised by their first bytes.
enum Compression: Sendable, Equatable {
    case gzip
    case zstd
    case bzip2
    case xz

    /// How the format is called in messages.
    var name: String {
        switch self {
        case .gzip: "gzip"
        case .zstd: "zstd"
        case .bzip2: "bzip2"
        case .xz: "xz"
        }
    }

    /// Bytes to peek at to recognise every format, those read and those refused (a tar header's magic sits at
    /// byte 257).
    static let recognisedPrefix = 265

    /// gzip members start with 1F 8B; zstd frames with the little-endian magic number FD2FB528, or a skippable
    /// frame's, 184D2A50 to 184D2A5F (`pzstd` writes one before each frame); bzip2 streams with `BZh` and the block
    /// size, 1 to 9; xz streams with FD `7zXZ` 00.
    static func detect(_ prefix: [UInt8]) -> Compression? {
        if prefix.starts(with: [0x1F, 0x8B]) { return .gzip }
        if prefix.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) { return .zstd }
        if prefix.count >= 4 && prefix[0] & 0xF0 == 0x50 && prefix[1] == 0x2A && prefix[2] == 0x4D && prefix[3] == 0x18 { return .zstd }
        if prefix.count >= 4 && prefix.starts(with: Array("BZh".utf8)) && (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(prefix[3]) { return .bzip2 }
        if prefix.starts(with: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .xz }
        return nil
    }

    /// Throws ``SluiceError/invalidInput(source:message:)`` naming the format Sluice does not read that `prefix` (the
    /// input's first bytes) or `name` shows, and how to get the JSON out of it.
    static func refuseUnreadFormat(_ prefix: [UInt8], name: String, compressedWith compression: Compression? = nil) throws(SluiceError) {
        if let (format, advice) = unreadFormat(prefix, name: compression == nil ? name : "") {
            let compressed = compression.map { " compressed with \($0.name)" } ?? ""
            throw .invalidInput(source: name, message: "it is \(format)\(compressed), which Sluice does not read: \(advice)")
        }
    }

    /// Whether `prefix`, the first bytes of an input read so far, is enough to tell what the input is. A NUL byte,
    /// which JSON text never holds raw, may be part of an archive's header: then bytes are read as far as a tar
    /// header's magic.
    static func tellsTheFormat(_ prefix: [UInt8]) -> Bool {
        !prefix.isEmpty && (!prefix.contains(0) || prefix.count >= recognisedPrefix)
    }

    /// The name of a format Sluice does not read that `prefix` (the input's first bytes) or `name` shows, and how
    /// to get the JSON out of it; `nil` for anything else. Such an input is refused at once instead of being read
    /// as text, which would reject every "record" of it.
    private static func unreadFormat(_ prefix: [UInt8], name: String) -> (format: String, advice: String)? {
        if prefix.starts(with: [0x50, 0x4B, 0x03, 0x04]) || prefix.starts(with: [0x50, 0x4B, 0x05, 0x06]) || prefix.starts(with: [0x50, 0x4B, 0x07, 0x08]) {
            return ("a zip archive", "extract the JSON file from it (unzip -p ARCHIVE FILE | sluice ... -)")
        }
        if prefix.starts(with: [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]) { return ("a 7z archive", "extract the JSON file from it (7z x)") }
        if prefix.starts(with: [0x04, 0x22, 0x4D, 0x18]) || prefix.starts(with: [0x02, 0x21, 0x4C, 0x18]) {
            return ("lz4-compressed", "decompress it (lz4 -dc FILE | sluice ... -), or compress it with zstd")
        }
        if prefix.starts(with: Array("LZIP".utf8)) { return ("lzip-compressed", "decompress it (lzip -dc FILE | sluice ... -), or compress it with xz or zstd") }
        if prefix.starts(with: [0x1F, 0x9D]) { return ("compressed by Unix compress (.Z)", "decompress it (gzip -dc FILE | sluice ... -)") }
        // POSIX `ustar\0`, or GNU `ustar  \0`: with a NUL byte, which JSON text never holds raw.
        if prefix.count >= 263 && (prefix[257..<263].elementsEqual("ustar\0".utf8) || prefix.count >= 265 && prefix[257..<265].elementsEqual("ustar  \0".utf8)) {
            return ("a tar archive", "extract the JSON file from it (tar -xOf ARCHIVE FILE | sluice ... -)")
        }
        // brotli has no magic number: a file named so that does not start as JSON does is taken at its word.
        let first = prefix.dropFirst(prefix.withUnsafeBufferPointer(ShapeDetector.byteOrderMarkLength)).first { !ShapeDetector.isWhitespace($0) }
        if name.hasSuffix(".br"), let first, !Array("{[\"-0123456789tfn".utf8).contains(first) {
            return ("brotli-compressed (by its name)", "decompress it (brotli -dc FILE | sluice ... -), or compress it with zstd")
        }
        return nil
    }

    /// Decompresses `source`, which sits where decompression of a split file starts (`start`: a zstd frame, a gzip
    /// member, or the byte holding a bzip2 block's first bit): offsets count from the input's start. bzip2 blocks and
    /// gzip members are decoded on up to `threads` threads, gzip's within their share of `memoryBudget`.
    /// - Throws: ``SluiceError/invalidOptions(_:)`` when no frame or block starts there.
    static func decompressing(
        _ source: any ByteSource, at start: DecodingStart, maximumWindow: Int = defaultMaximumWindow, threads: Int = 1, memoryBudget: Int = 0
    ) throws(SluiceError) -> PrefixedSource {
        var prefixed = PrefixedSource(source)
        switch start {
        case .zstdFrame(let frame):
            guard detect(try prefixed.peek(4)) == .zstd else {
                throw .invalidOptions("no zstd frame starts at byte \(frame.storedOffset) of \(source.name), where the shard says one does: the shard comes from another file")
            }
            return PrefixedSource(try ZstdSource(compressed: prefixed, maximumWindow: maximumWindow, checks: FrameChecks(), startingAt: frame), isDecompressing: true)
        case .bzip2Block(let block):
            let magic = try prefixed.peek(7).withUnsafeBytes { Bzip2Block.bits($0, at: block.storedBit % 8, count: 48) }
            guard magic == Bzip2Block.blockMagic, (1...9).contains(block.blockSize) else {
                throw .invalidOptions("no bzip2 block starts at bit \(block.storedBit) of \(source.name), where the shard says one does: the shard comes from another file")
            }
            let decoder = Bzip2Decoder(threads: threads, startingAt: block)
            let decompressing = DecompressingSource(compressed: prefixed, decoder: decoder, checks: FrameChecks(), startingAt: (start.storedOffset, block.offset))
            return PrefixedSource(decompressing, isDecompressing: true)
        case .gzipMember(let member):
            guard try prefixed.peek(3) == [0x1F, 0x8B, 0x08] else {
                throw .invalidOptions("no gzip member starts at byte \(member.storedOffset) of \(source.name), where the shard says one does: the shard comes from another file")
            }
            let memory = GzipInflater.aheadMemory(for: source, threads: threads, within: memoryBudget)
            var decompressing = PrefixedSource(try GzipInflater.preferred.source(decompressing: prefixed, startingAt: member, threads: threads, memory: memory), isDecompressing: true)
            decompressing.budgetedMemory = memory
            return decompressing
        }
    }

    /// A window or memory size as messages give it: `512 KiB`, `64 MiB`, `1.5 MiB`.
    static func describe(memory bytes: Int) -> String {
        if bytes < 1 << 20 { return "\(bytes >> 10) KiB" }
        return (bytes % (1 << 20) == 0 ? "\(bytes >> 20)" : String(format: "%.1f", Double(bytes) / Double(1 << 20))) + " MiB"
    }

    /// libzstd's own limit on the history window a frame may ask for, which the reader options start from.
    static let defaultMaximumWindow = 128 << 20

    /// Wraps `source` in a decompressor when its first bytes say it is compressed; either way the result can
    /// still be peeked at. A zstd frame that needs a window larger than `maximumWindow` bytes is an error.
    /// - Throws: ``SluiceError/invalidInput(source:message:)`` for a format Sluice does not read (an archive, lz4,
    ///   brotli), named.
    /// bzip2 and xz blocks and gzip members are decoded on up to `threads` threads; xz's and gzip's threads take their
    /// share of `memoryBudget` (``PrefixedSource/budgetedMemory`` says how much).
    static func decompressing(
        _ source: any ByteSource, maximumWindow: Int = defaultMaximumWindow, threads: Int = 1, memoryBudget: Int = 0
    ) throws(SluiceError) -> PrefixedSource {
        var prefixed = PrefixedSource(source)
        // A file is peeked at as far as a tar header's magic; a pipe no further than the magic numbers (four bytes
        // unless they may be xz's or 7z's six), so that a short first record is not held back.
        let prefix = source.size != nil
            ? try prefixed.peek(recognisedPrefix)
            : try prefixed.peek(upTo: recognisedPrefix) { prefix in
                // Magic numbers need four bytes, xz's and 7z's six; a NUL byte outside them may start a tar header.
                let magicNumbersShow = prefix.count >= 6
                    || prefix.count >= 4 && !prefix.starts(with: [0xFD, 0x37, 0x7A, 0x58]) && !prefix.starts(with: [0x37, 0x7A, 0xBC, 0xAF])
                return magicNumbersShow && (detect(prefix) != nil || tellsTheFormat(prefix))
            }
        let decompressing: any ByteSource
        var budgetedMemory = 0
        switch detect(prefix) {
        case .gzip:
            budgetedMemory = GzipInflater.aheadMemory(for: source, threads: threads, within: memoryBudget)
            decompressing = try GzipInflater.preferred.source(decompressing: prefixed, threads: threads, memory: budgetedMemory)
        case .zstd:
            decompressing = try ZstdSource(compressed: prefixed, maximumWindow: maximumWindow, checks: FrameChecks())
        case .bzip2:
            decompressing = DecompressingSource(compressed: prefixed, decoder: Bzip2Decoder(threads: threads), checks: FrameChecks())
        case .xz:
            budgetedMemory = threads > 1 ? XzDecoder.threadingMemory(within: memoryBudget, maximumMemory: maximumWindow) : 0
            let decoder = XzDecoder(maximumMemory: maximumWindow, threadingMemory: budgetedMemory, threads: threads)
            decompressing = DecompressingSource(compressed: prefixed, decoder: decoder, checks: FrameChecks())
        case nil:
            try refuseUnreadFormat(prefix, name: source.name)
            return prefixed
        }
        // A compressed archive (`.tar.gz`, `.tar.xz`) is refused as a plain one is, from its decompressed start.
        var decompressed = PrefixedSource(decompressing, isDecompressing: true)
        decompressed.budgetedMemory = budgetedMemory
        try refuseUnreadFormat(try decompressed.peek(upTo: recognisedPrefix, until: tellsTheFormat), name: source.name, compressedWith: detect(prefix))
        return decompressed
    }
}

/// A source whose first bytes were already read to look at them; they are handed out again first.
struct PrefixedSource: ByteSource {
    private var inner: any ByteSource
    private var prefix: [UInt8] = []
    private var prefixPosition = 0
    /// A read error met while peeking: raised once the bytes read before it have been read again, so that the
    /// records before a failure are still delivered.
    private var failure: SluiceError?

    /// Whether the bytes come out of a decompressor (byte ranges cannot be applied to them).
    let isDecompressing: Bool
    /// The memory the decompressor may hold that counts against the run's memory budget.
    var budgetedMemory = 0

    init(_ inner: any ByteSource, isDecompressing: Bool = false) {
        self.inner = inner
        self.isDecompressing = isDecompressing
    }

    var name: String { inner.name }
    var size: Int? { inner.size }
    var frameChecks: FrameChecks? { inner.frameChecks }

    mutating func readToFrameEnd() throws(SluiceError) {
        try inner.readToFrameEnd()
    }

    /// Passes over `count` bytes (fewer at the end of the input): the peeked ones first, then the inner source's.
    @discardableResult
    mutating func skip(_ count: Int) throws(SluiceError) -> Int {
        let fromPrefix = min(max(count, 0), prefix.count - prefixPosition)
        prefixPosition += fromPrefix
        guard count > fromPrefix else { return fromPrefix }
        if let failure { throw failure }
        return try fromPrefix + inner.skip(count - fromPrefix)
    }

    /// Reads up to `count` bytes ahead without consuming them (fewer only at the end of the input, or before a read
    /// error, which the read that reaches it raises; an error before the first byte is raised here).
    mutating func peek(_ count: Int) throws(SluiceError) -> [UInt8] {
        Array(try peek(upTo: count) { _ in false }.prefix(count))
    }

    /// Reads ahead piece by piece, each as much as one read gives, until `isEnough` says the bytes so far suffice,
    /// `limit` bytes are held, or the input ends; returns them without consuming them. A pipe is thus not waited
    /// on for more than the decision needs. Errors are handled as by ``peek(_:)``.
    mutating func peek(upTo limit: Int, until isEnough: ([UInt8]) -> Bool) throws(SluiceError) -> [UInt8] {
        if prefixPosition > 0 {
            prefix.removeFirst(prefixPosition)
            prefixPosition = 0
        }
        while prefix.count < limit && !isEnough(prefix) && failure == nil {
            let piece = UnsafeMutableRawBufferPointer.allocate(byteCount: limit - prefix.count, alignment: 1)
            defer { piece.deallocate() }
            do {
                let read = try inner.read(into: piece)
                if read == 0 { break }
                prefix += piece[..<read]
            } catch {
                // With nothing before it, the error is the input's first word; otherwise it waits its turn.
                if prefix.isEmpty { throw error }
                failure = error
            }
        }
        return prefix
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        if prefixPosition < prefix.count {
            let count = min(buffer.count, prefix.count - prefixPosition)
            guard count > 0, let base = buffer.baseAddress else { return 0 }
            prefix.withUnsafeBytes { source in
                if let from = source.baseAddress { base.copyMemory(from: from + prefixPosition, byteCount: count) }
            }
            prefixPosition += count
            return count
        }
        if let failure { throw failure }
        return try inner.read(into: buffer)
    }
}
