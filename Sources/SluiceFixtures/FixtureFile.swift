import CBzip2
import CLzma
import CZlib
import CZstd
import Foundation

/// Writes generated tweet records to a file of about a requested size, as NDJSON or as one JSON array, plain or
/// compressed (gzip, zstd, bzip2, xz), streaming: nothing the size of the file is held in memory.
public struct FixtureFile {
    /// How the records are laid out.
    public enum Layout: String, Sendable, CaseIterable {
        case ndjson
        case array
        /// The array inside a wrapper object, the way profiler traces are written:
        /// `{"traceEvents": [...], "displayTimeUnit": "ns", ...}` (records path `traceEvents`).
        case wrapped
    }

    /// How the bytes are stored.
    public enum Compression: String, Sendable, CaseIterable {
        case none
        case gzip
        case zstd
        case bzip2
        case xz

        /// The compression a file's first bytes show (gzip: 1F 8B; zstd: 28 B5 2F FD; bzip2: `BZh`; xz: FD `7zXZ`),
        /// `.none` for any other.
        public init(firstBytes: [UInt8]) {
            if firstBytes.starts(with: [0x1F, 0x8B]) {
                self = .gzip
            } else if firstBytes.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) {
                self = .zstd
            } else if firstBytes.starts(with: Array("BZh".utf8)) {
                self = .bzip2
            } else if firstBytes.starts(with: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) {
                self = .xz
            } else {
                self = .none
            }
        }

        /// The file name extension, with its dot, or nothing.
        public var fileExtension: String {
            switch self {
            case .none: return ""
            case .gzip: return ".gz"
            case .zstd: return ".zst"
            case .bzip2: return ".bz2"
            case .xz: return ".xz"
            }
        }
    }

    public var layout: Layout
    public var compression: Compression
    public var seed: UInt64

    public init(layout: Layout = .ndjson, compression: Compression = .none, seed: UInt64 = 42) {
        self.layout = layout
        self.compression = compression
        self.seed = seed
    }

    /// What a write produced.
    public struct Written: Sendable {
        public var records: Int
        /// Bytes of JSON before compression.
        public var bytes: Int
    }

    /// Writes records until about `bytes` uncompressed bytes, to `path`.
    @discardableResult
    public func write(bytes: Int, to path: String) throws -> Written {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        defer { try? handle.close() }
        let sink = try CompressingSink(compression: compression) { try handle.write(contentsOf: $0) }
        var generator = TweetGenerator(seed: seed)
        var pending = [UInt8]()
        pending.reserveCapacity(1 << 20)
        if layout == .array { pending += Array("[\n".utf8) }
        if layout == .wrapped { pending += Array("{\"otherData\": {\"version\": \"sluice fixture\", \"seed\": \(seed)},\n\"traceEvents\": [\n".utf8) }
        var first = true
        var written = 0
        let records = try generator.writeNDJSON(bytes: bytes) { line in
            if layout != .ndjson {
                if !first { pending += Array(",\n".utf8) }
                pending += line.utf8.dropLast()
            } else {
                pending += line.utf8
            }
            first = false
            if pending.count >= 1 << 20 {
                written += pending.count
                try sink.write(pending)
                pending.removeAll(keepingCapacity: true)
            }
        }
        if layout == .array { pending += Array("\n]\n".utf8) }
        if layout == .wrapped { pending += Array("\n],\n\"displayTimeUnit\": \"ns\"}\n".utf8) }
        written += pending.count
        try sink.write(pending)
        try sink.finish()
        return Written(records: records, bytes: written)
    }
}

/// Compresses what it is given into `output` as the tools do by default: one gzip member (`gzip -6`), one zstd frame
/// with its checksum (`zstd -3`), one bzip2 stream of 900 kB blocks (`bzip2 -9`), or one xz stream of independent
/// 24 MiB blocks (`xz -T2 -6`).
final class CompressingSink {
    private let compression: FixtureFile.Compression
    private let output: (Data) throws -> Void
    private var zlib = z_stream()
    private var zstd: OpaquePointer?
    private var bzip2 = bz_stream()
    private var xz = lzma_stream()
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)

    init(compression: FixtureFile.Compression, output: @escaping (Data) throws -> Void) throws {
        self.compression = compression
        self.output = output
        switch compression {
        case .none: break
        case .gzip:
            // 15 + 16: the largest window, with a gzip header.
            guard czlib_deflate_init(&zlib, 6, 15 + 16) == Z_OK else { throw CocoaError(.fileWriteUnknown) }
        case .zstd:
            zstd = ZSTD_createCCtx()
            guard let zstd else { throw CocoaError(.fileWriteUnknown) }
            ZSTD_CCtx_setParameter(zstd, ZSTD_c_compressionLevel, 3)
            ZSTD_CCtx_setParameter(zstd, ZSTD_c_checksumFlag, 1)
        case .bzip2:
            guard BZ2_bzCompressInit(&bzip2, 9, 0, 0) == BZ_OK else { throw CocoaError(.fileWriteUnknown) }
        case .xz:
            var options = lzma_mt()
            options.threads = 2
            options.preset = 6
            options.check = LZMA_CHECK_CRC64
            guard lzma_stream_encoder_mt(&xz, &options) == LZMA_OK else { throw CocoaError(.fileWriteUnknown) }
        }
    }

    deinit {
        if compression == .gzip { deflateEnd(&zlib) }
        if let zstd { ZSTD_freeCCtx(zstd) }
        if compression == .bzip2 { BZ2_bzCompressEnd(&bzip2) }
        if compression == .xz { lzma_end(&xz) }
    }

    func write(_ bytes: [UInt8]) throws {
        try push(bytes, finishing: false)
    }

    func finish() throws {
        try push([], finishing: true)
    }

    private func push(_ bytes: [UInt8], finishing: Bool) throws {
        switch compression {
        case .none:
            if !bytes.isEmpty { try output(Data(bytes)) }
        case .gzip:
            var input = bytes
            try input.withUnsafeMutableBufferPointer { inputBuffer in
                zlib.next_in = inputBuffer.baseAddress
                zlib.avail_in = UInt32(inputBuffer.count)
                while true {
                    let (status, produced) = buffer.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                        zlib.next_out = out.baseAddress
                        zlib.avail_out = UInt32(out.count)
                        let status = deflate(&zlib, finishing ? Z_FINISH : Z_NO_FLUSH)
                        return (status, out.count - Int(zlib.avail_out))
                    }
                    if produced > 0 { try output(Data(buffer[..<produced])) }
                    if status == Z_STREAM_END || (!finishing && zlib.avail_in == 0 && produced < buffer.count) { break }
                    guard status == Z_OK || status == Z_BUF_ERROR else { throw CocoaError(.fileWriteUnknown) }
                }
            }
        case .zstd:
            guard let zstd else { return }
            try bytes.withUnsafeBytes { inputBytes in
                var input = ZSTD_inBuffer(src: inputBytes.baseAddress, size: inputBytes.count, pos: 0)
                while true {
                    let (remaining, produced) = buffer.withUnsafeMutableBytes { out -> (Int, Int) in
                        var outBuffer = ZSTD_outBuffer(dst: out.baseAddress, size: out.count, pos: 0)
                        let remaining = ZSTD_compressStream2(zstd, &outBuffer, &input, finishing ? ZSTD_e_end : ZSTD_e_continue)
                        return (remaining, outBuffer.pos)
                    }
                    guard ZSTD_isError(remaining) == 0 else { throw CocoaError(.fileWriteUnknown) }
                    if produced > 0 { try output(Data(buffer[..<produced])) }
                    if finishing ? remaining == 0 : input.pos == input.size { break }
                }
            }
        case .bzip2:
            var input = bytes
            try input.withUnsafeMutableBytes { inputBytes in
                bzip2.next_in = inputBytes.baseAddress?.assumingMemoryBound(to: CChar.self)
                bzip2.avail_in = UInt32(inputBytes.count)
                while true {
                    let (status, produced) = buffer.withUnsafeMutableBytes { out -> (Int32, Int) in
                        bzip2.next_out = out.baseAddress?.assumingMemoryBound(to: CChar.self)
                        bzip2.avail_out = UInt32(out.count)
                        let status = BZ2_bzCompress(&bzip2, finishing ? BZ_FINISH : BZ_RUN)
                        return (status, out.count - Int(bzip2.avail_out))
                    }
                    if produced > 0 { try output(Data(buffer[..<produced])) }
                    if status == BZ_STREAM_END || (!finishing && bzip2.avail_in == 0) { break }
                    guard status == BZ_RUN_OK || status == BZ_FINISH_OK else { throw CocoaError(.fileWriteUnknown) }
                }
            }
        case .xz:
            try bytes.withUnsafeBytes { inputBytes in
                xz.next_in = inputBytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
                xz.avail_in = inputBytes.count
                while true {
                    let (status, produced) = buffer.withUnsafeMutableBytes { out -> (lzma_ret, Int) in
                        xz.next_out = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
                        xz.avail_out = out.count
                        let status = lzma_code(&xz, finishing ? LZMA_FINISH : LZMA_RUN)
                        return (status, out.count - xz.avail_out)
                    }
                    if produced > 0 { try output(Data(buffer[..<produced])) }
                    if status == LZMA_STREAM_END || (!finishing && xz.avail_in == 0 && produced < buffer.count) { break }
                    guard status == LZMA_OK else { throw CocoaError(.fileWriteUnknown) }
                }
            }
        }
    }
}
