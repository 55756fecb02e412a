/// The compressed formats recognised by their first bytes.
enum Compression: Sendable, Equatable {
    case gzip
    case zstd

    /// gzip members start with 1F 8B; zstd frames with the little-endian magic number FD2FB528, or a skippable
    /// frame's, 184D2A50 to 184D2A5F (`pzstd` writes one before each frame).
    static func detect(_ prefix: [UInt8]) -> Compression? {
        if prefix.count >= 2 && prefix[0] == 0x1F && prefix[1] == 0x8B { return .gzip }
        if prefix.count >= 4 && prefix[0] == 0x28 && prefix[1] == 0xB5 && prefix[2] == 0x2F && prefix[3] == 0xFD { return .zstd }
        if prefix.count >= 4 && prefix[0] & 0xF0 == 0x50 && prefix[1] == 0x2A && prefix[2] == 0x4D && prefix[3] == 0x18 { return .zstd }
        return nil
    }

    /// Decompresses `source`, which sits at the start of a zstd frame of a larger input (`frame`, at its stored
    /// offset): offsets count from the input's start.
    /// - Throws: ``SluiceError/invalidOptions(_:)`` when no frame starts there.
    static func decompressing(_ source: any ByteSource, at frame: ZstdFrameStart, maximumWindow: Int = defaultMaximumWindow) throws(SluiceError) -> PrefixedSource {
        var prefixed = PrefixedSource(source)
        guard detect(try prefixed.peek(4)) == .zstd else {
            throw .invalidOptions("no zstd frame starts at byte \(frame.storedOffset) of \(source.name), where the shard says one does: the shard comes from another file")
        }
        return PrefixedSource(try ZstdSource(compressed: prefixed, maximumWindow: maximumWindow, checks: FrameChecks(), startingAt: frame), isDecompressing: true)
    }

    /// libzstd's own limit on the history window a frame may ask for, which the reader options start from.
    static let defaultMaximumWindow = 128 << 20

    /// Wraps `source` in a decompressor when its first bytes say it is compressed; either way the result can
    /// still be peeked at. A zstd frame that needs a window larger than `maximumWindow` bytes is an error.
    static func decompressing(_ source: any ByteSource, maximumWindow: Int = defaultMaximumWindow) throws(SluiceError) -> PrefixedSource {
        var prefixed = PrefixedSource(source)
        let prefix = try prefixed.peek(4)
        switch detect(prefix) {
        case .gzip: return PrefixedSource(try GzipSource(compressed: prefixed, checks: FrameChecks()), isDecompressing: true)
        case .zstd: return PrefixedSource(try ZstdSource(compressed: prefixed, maximumWindow: maximumWindow, checks: FrameChecks()), isDecompressing: true)
        case nil: return prefixed
        }
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
