import Sluice
import CSnappy
import CZstd

/// How a Parquet file's pages are compressed.
public enum ParquetCompression: Sendable, Hashable, CustomStringConvertible {
    /// Not compressed.
    case none
    /// Snappy: fast, larger files.
    case snappy
    /// Zstandard at a level (1–22; 3 is zstd's own default and a good balance).
    case zstd(level: Int32)

    /// Zstandard at its default level: the writer's default.
    public static let `default` = ParquetCompression.zstd(level: 3)

    /// Reads `none`, `snappy`, `zstd` or `zstd:LEVEL`.
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "none", "uncompressed": self = .none
        case "snappy": self = .snappy
        case "zstd": self = .default
        default:
            let parts = text.lowercased().split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0] == "zstd", let level = Int32(parts[1]), (1...22).contains(level) else { return nil }
            self = .zstd(level: level)
        }
    }

    public var description: String {
        switch self {
        case .none: "none"
        case .snappy: "snappy"
        case .zstd(let level): level == 3 ? "zstd" : "zstd:\(level)"
        }
    }

    /// The codec's number in the format's `CompressionCodec`.
    var thriftValue: Int32 {
        switch self {
        case .none: 0
        case .snappy: 1
        case .zstd: 6
        }
    }
}

/// Compresses pages, reusing one zstd context and one output buffer for the whole file.
final class PageCompressor {
    let compression: ParquetCompression
    private let zstdContext: OpaquePointer?
    private var output = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    init(_ compression: ParquetCompression) {
        self.compression = compression
        if case .zstd(let level) = compression {
            zstdContext = ZSTD_createCCtx()
            if let zstdContext { ZSTD_CCtx_setParameter(zstdContext, ZSTD_c_compressionLevel, level) }
        } else {
            zstdContext = nil
        }
    }

    deinit {
        if let zstdContext { ZSTD_freeCCtx(zstdContext) }
        output.deallocate()
    }

    /// `page` compressed, in a buffer valid until the next call (or `page` itself, uncompressed).
    func compress(_ page: UnsafeRawBufferPointer) throws(SluiceError) -> UnsafeRawBufferPointer {
        switch compression {
        case .none:
            return page
        case .snappy:
            reserve(snappy_max_compressed_length(page.count))
            var length = output.count
            let status = snappy_compress(page.baseAddress?.assumingMemoryBound(to: CChar.self), page.count,
                                         output.baseAddress?.assumingMemoryBound(to: CChar.self), &length)
            guard status == SNAPPY_OK else { throw .write(destination: "parquet", message: "snappy could not compress a page") }
            return UnsafeRawBufferPointer(rebasing: output[..<length])
        case .zstd:
            guard let zstdContext else { throw .write(destination: "parquet", message: "zstd could not allocate a compression context") }
            reserve(ZSTD_compressBound(page.count))
            let length = ZSTD_compress2(zstdContext, output.baseAddress, output.count, page.baseAddress, page.count)
            if ZSTD_isError(length) != 0 {
                throw .write(destination: "parquet", message: "zstd could not compress a page: " + String(cString: ZSTD_getErrorName(length)))
            }
            return UnsafeRawBufferPointer(rebasing: output[..<length])
        }
    }

    private func reserve(_ count: Int) {
        guard output.count < count else { return }
        output.deallocate()
        output = .allocate(byteCount: count, alignment: 16)
    }
}
