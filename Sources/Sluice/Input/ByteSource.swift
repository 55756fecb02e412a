#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc)
private let systemRead = Glibc.read
#else
private let systemRead = Darwin.read
#endif

/// Where input bytes come from. Readers pull fixed-size pieces; no source is ever read whole.
protocol ByteSource {
    /// How the source is named in errors: a path, `<stdin>`, `<memory>`.
    var name: String { get }
    /// The total size when known up front (a regular file, bytes in memory).
    var size: Int? { get }
    /// Reads up to `buffer.count` bytes; returns 0 only at the end of the input.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int
    /// Passes over the next `count` bytes (fewer at the end of the input) and says how many: a regular file
    /// seeks, other sources read and forget.
    mutating func skip(_ count: Int) throws(SluiceError) -> Int
    /// For decompressed input, how far the frames' checksums vouch for the bytes; `nil` when nothing needs checking.
    var frameChecks: FrameChecks? { get }
    /// Decompresses, and forgets, the rest of the frame being read, so that its check covers what was read of it:
    /// a shard ends inside a frame. Nothing for input read as stored.
    mutating func readToFrameEnd() throws(SluiceError)
}

extension ByteSource {
    var frameChecks: FrameChecks? { nil }

    func readToFrameEnd() throws(SluiceError) {}

    mutating func skip(_ count: Int) throws(SluiceError) -> Int {
        try skipByReading(count)
    }

    /// Reads and forgets the next `count` bytes (fewer at the end of the input); returns how many.
    mutating func skipByReading(_ count: Int) throws(SluiceError) -> Int {
        var left = count
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: min(max(left, 1), 1 << 20), alignment: 1)
        defer { scratch.deallocate() }
        while left > 0 {
            let read = try read(into: UnsafeMutableRawBufferPointer(rebasing: scratch[..<min(left, scratch.count)]))
            if read == 0 { break }
            left -= read
        }
        return count - left
    }
}

/// A file, or any file descriptor (standard input, a pipe), read with `read(2)`.
final class FileSource: ByteSource {
    let name: String
    let size: Int?
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var offset = 0
    /// Set once the file is found to have changed size: every later read throws it.
    private var sizeChange: SluiceError?

    /// Opens the file at `path`.
    init(path: String) throws(SluiceError) {
        name = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .io(source: path, byteOffset: 0, message: "cannot open: " + String(cString: strerror(errno)))
        }
        ownsDescriptor = true
        var status = stat()
        if fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
            close(descriptor)
            throw .io(source: path, byteOffset: 0, message: "cannot read: it is a directory")
        }
        size = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : nil
    }

    /// Reads from an open descriptor the caller keeps ownership of (standard input is descriptor 0).
    init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
        ownsDescriptor = false
        size = nil
    }

    private init(duplicating other: FileSource, descriptor: Int32) {
        name = other.name
        size = other.size
        self.descriptor = descriptor
        ownsDescriptor = true
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// The same open file, from its start: the file that was opened, even if its path now names another or none,
    /// checked against the size it had then. The two share one file position; read one at a time.
    func duplicate() throws(SluiceError) -> FileSource {
        let copy = dup(descriptor)
        guard copy >= 0 else {
            throw .io(source: name, byteOffset: offset, message: "cannot open again: " + String(cString: strerror(errno)))
        }
        let source = FileSource(duplicating: self, descriptor: copy)
        guard lseek(copy, 0, SEEK_SET) == 0 else {
            throw .io(source: name, byteOffset: 0, message: "cannot seek to its start: " + String(cString: strerror(errno)))
        }
        return source
    }

    func skip(_ count: Int) throws(SluiceError) -> Int {
        // A shard of a regular file starts where it starts: nothing before it is read. A pipe cannot seek.
        guard let size, count > 0 else {
            var source = self
            return try source.skipByReading(count)
        }
        let target = min(offset + count, size)
        guard lseek(descriptor, off_t(target), SEEK_SET) == off_t(target) else {
            throw .io(source: name, byteOffset: offset, message: "cannot seek to byte \(target): " + String(cString: strerror(errno)))
        }
        defer { offset = target }
        return target - offset
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        if let sizeChange { throw sizeChange }
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = systemRead(descriptor, base, buffer.count)
            if count >= 0 {
                offset += count
                // A regular file must end where it ended when opened: a shorter file was cut while being read,
                // a longer one is still being written. Either way the records read would not be the file's. The
                // bytes up to the size at opening are still the file's: they are returned, the error comes next.
                guard let size, (count == 0 && offset < size) || offset > size else { return count }
                let change = SluiceError.io(
                    source: name, byteOffset: min(offset, size),
                    message: "the file changed size while being read (\(size) bytes when opened, \(count == 0 ? "it ended at \(offset)" : "more now"))")
                sizeChange = change
                let withinSize = count - max(offset - size, 0)
                guard count > 0, withinSize > 0 else { throw change }
                offset = size
                return withinSize
            }
            if errno == EINTR { continue }
            throw .io(source: name, byteOffset: offset, message: String(cString: strerror(errno)))
        }
    }
}

/// Bytes already in memory.
struct MemorySource: ByteSource {
    let name: String
    private let bytes: [UInt8]
    private var position = 0

    init(bytes: [UInt8], name: String = "<memory>") {
        self.bytes = bytes
        self.name = name
    }

    var size: Int? { bytes.count }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        let count = min(buffer.count, bytes.count - position)
        guard count > 0, let base = buffer.baseAddress else { return 0 }
        bytes.withUnsafeBytes { source in
            guard let sourceBase = source.baseAddress else { return }
            base.copyMemory(from: sourceBase + position, byteCount: count)
        }
        position += count
        return count
    }

    mutating func skip(_ count: Int) throws(SluiceError) -> Int {
        let skipped = min(max(count, 0), bytes.count - position)
        position += skipped
        return skipped
    }
}
