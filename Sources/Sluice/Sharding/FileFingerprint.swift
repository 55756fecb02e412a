import CZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What tells one version of a file from another cheaply: its size, when it was last modified, and a checksum of
/// its first MiB. A shard plan keeps it, so that shards are not read from another file, or from this one changed.
public struct FileFingerprint: Sendable, Hashable, Codable {
    /// The file's size in bytes.
    public var size: Int
    /// Nanoseconds since 1970 (0 for bytes in memory).
    public var modified: Int64
    /// CRC-32 of the first MiB (the whole input when smaller), as zlib computes it.
    public var firstMiBChecksum: UInt32

    /// The fingerprint of a file, or of bytes in memory.
    public init(of input: Input) throws(SluiceError) {
        var source = PrefixedSource(try input.openRaw())
        guard let size = source.size else { throw .invalidOptions("\(source.name) is a stream: only files have shards") }
        self.size = size
        modified = 0
        if case .file(let path) = input {
            var status = stat()
            guard stat(path, &status) == 0 else { throw .io(source: path, byteOffset: 0, message: String(cString: strerror(errno))) }
            #if canImport(Darwin)
            modified = Int64(status.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(status.st_mtimespec.tv_nsec)
            #else
            modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
            #endif
        }
        let head = try source.peek(1 << 20)
        firstMiBChecksum = head.withUnsafeBufferPointer { UInt32(crc32(crc32(0, nil, 0), $0.baseAddress, uInt($0.count))) }
    }
}
