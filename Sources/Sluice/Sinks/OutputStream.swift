#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffered writer to a file descriptor: fills a byte buffer and hands it to `write(2)` when full.
public final class FileOutput {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let name: String
    private var buffer: [UInt8] = []
    private let flushThreshold: Int
    private var written = 0

    /// Writes to standard output.
    public static func standardOutput() -> FileOutput { FileOutput(descriptor: 1, name: "<stdout>", owns: false) }

    /// Creates or truncates the file at `path`.
    public init(path: String) throws(SluiceError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .io(source: path, byteOffset: 0, message: "cannot create: " + String(cString: strerror(errno)))
        }
        self.descriptor = descriptor
        self.name = path
        ownsDescriptor = true
        flushThreshold = 1 << 20
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    private init(descriptor: Int32, name: String, owns: Bool) {
        self.descriptor = descriptor
        self.name = name
        ownsDescriptor = owns
        flushThreshold = 1 << 20
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    deinit {
        try? flush()
        if ownsDescriptor { close(descriptor) }
    }

    /// Appends bytes, writing the buffer out when it is full.
    @inline(__always)
    public func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(SluiceError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushThreshold { try flush() }
    }

    /// Appends one byte.
    @inline(__always)
    public func write(byte: UInt8) {
        buffer.append(byte)
    }

    /// Lends the buffer to `body` to append to, then writes it out if it is full. Appending through the buffer
    /// costs one exclusive access of this object's storage for the whole call, where ``write(byte:)`` pays one per
    /// byte: write a record per call.
    @inline(__always)
    public func append(_ body: (inout [UInt8]) throws(SluiceError) -> Void) throws(SluiceError) {
        try body(&buffer)
        if buffer.count >= flushThreshold { try flush() }
    }

    /// Appends the UTF-8 of `text`.
    public func write(_ text: String) throws(SluiceError) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= flushThreshold { try flush() }
    }

    /// Writes everything buffered.
    public func flush() throws(SluiceError) {
        var offset = 0
        while offset < buffer.count {
            let count = buffer.withUnsafeBytes { bytes in
                systemWrite(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            }
            if count < 0 {
                if errno == EINTR { continue }
                let message = String(cString: strerror(errno))
                buffer.removeAll(keepingCapacity: true)
                throw .io(source: name, byteOffset: written, message: "write failed: \(message)")
            }
            offset += count
            written += count
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#else
private let systemWrite = Darwin.write
#endif
