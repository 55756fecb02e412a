import Sluice
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffered writer to a file descriptor: fills a byte buffer and hands it to `write(2)` when full.
///
/// A file opened with ``init(path:ifExists:)`` is written under a temporary name beside it and appears under its
/// own name only at ``commit()``; one appended to is cut back to its old length unless committed. A run that fails
/// or is interrupted therefore never leaves a complete-looking file behind.
public final class FileOutput {
    /// What to do with a file that already exists.
    public enum ExistingFile: String, Sendable, CaseIterable {
        /// Refuse to write (the default): nothing is overwritten by mistake.
        case fail
        /// Add to the end of it.
        case append
        /// Replace it, once the new file is complete.
        case replace
    }

    private var descriptor: Int32
    private let ownsDescriptor: Bool
    /// The path it was opened with, or `<stdout>`: what errors name.
    let name: String
    private var buffer: [UInt8] = []
    private let flushThreshold: Int
    private var written = 0
    /// Where the file is written until it is committed, when that is not its own name.
    private let temporaryPath: String?
    /// For a file appended to: its length before this run.
    private let appendedFrom: Int?
    private var isSettled = false
    /// The directory whose partial-file lock this file holds until it is renamed into place or removed.
    private var lockedDirectory: String?

    /// The partial files of killed runs that opening this file removed from its directory.
    public private(set) var removedPartials: [AbandonedPartial] = []

    /// Whether the file held bytes before this run (a file appended to), so a header is not written again.
    public var hadContent: Bool { (appendedFrom ?? 0) > 0 }

    /// Writes to standard output.
    public static func standardOutput() -> FileOutput { FileOutput(descriptor: 1, name: "<stdout>", owns: false) }

    /// Creates or truncates the file at `path`, writing it in place.
    public init(path: String) throws(SluiceError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .write(destination: path, message: "cannot create: " + String(cString: strerror(errno)))
        }
        self.descriptor = descriptor
        self.name = path
        ownsDescriptor = true
        flushThreshold = 1 << 20
        temporaryPath = nil
        appendedFrom = nil
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    /// Opens `path` to be written whole or not at all: a new or replacing file is written under a temporary
    /// name in the same directory and renamed at ``commit()``; a file appended to is cut back to its length at
    /// ``discard()``. Without either, the object's end discards.
    /// - Throws: `SluiceError.write(destination:message:)` when the file exists and `ifExists` is
    ///   ``ExistingFile/fail``, or it cannot be created.
    public init(path: String, ifExists: ExistingFile) throws(SluiceError) {
        var status = stat()
        let exists = stat(path, &status) == 0
        if exists && (status.st_mode & S_IFMT) == S_IFDIR {
            throw .write(destination: path, message: "is a directory")
        }
        if exists && ifExists == .fail && (status.st_mode & S_IFMT) == S_IFREG {
            throw .write(destination: path, message: "already exists (choose --if-exists append or replace)")
        }
        name = path
        ownsDescriptor = true
        flushThreshold = 1 << 20
        let isStream = exists && (status.st_mode & S_IFMT) != S_IFREG
        if !isStream { removedPartials = PartialFiles.removeAbandoned(in: Self.directory(of: path)) }
        if isStream {
            // A device or a pipe (/dev/null, a FIFO) is written as it is: it cannot be replaced by a rename.
            let descriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw .write(destination: path, message: "cannot open: " + String(cString: strerror(errno))) }
            self.descriptor = descriptor
            temporaryPath = nil
            appendedFrom = nil
            isSettled = true
        } else if exists && ifExists == .append {
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard descriptor >= 0 else { throw .write(destination: path, message: "cannot open: " + String(cString: strerror(errno))) }
            self.descriptor = descriptor
            temporaryPath = nil
            appendedFrom = Int(status.st_size)
        } else {
            let directory = Self.directory(of: path)
            let temporary = try PartialFiles.acquire(for: path, directory: directory)
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                let reason = String(cString: strerror(errno))
                PartialFiles.release(directory: directory)
                throw .write(destination: path, message: "cannot create: " + reason)
            }
            self.descriptor = descriptor
            temporaryPath = temporary
            lockedDirectory = directory
            appendedFrom = nil
        }
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    /// The directory a regular file is written in ("" for the working directory); nil for standard output, a device
    /// or a pipe.
    var directory: String? {
        var status = stat()
        guard descriptor >= 0, fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Self.directory(of: name)
    }

    /// The part of `path` up to and including its last slash.
    private static func directory(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
    }

    private init(descriptor: Int32, name: String, owns: Bool) {
        self.descriptor = descriptor
        self.name = name
        ownsDescriptor = owns
        flushThreshold = 1 << 20
        temporaryPath = nil
        appendedFrom = nil
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    deinit {
        if temporaryPath != nil || appendedFrom != nil {
            if !isSettled { discard() }
        } else {
            try? flush()
        }
        if ownsDescriptor && descriptor >= 0 { close(descriptor) }
        releaseLock()
    }

    /// Writes out what is buffered, makes it durable and, for a file written under a temporary name, gives it
    /// its own name.
    public func commit() throws(SluiceError) {
        guard descriptor >= 0 else {
            // Sealed: written and saved already.
            try renameIntoPlace()
            return
        }
        try flush()
        guard temporaryPath != nil || appendedFrom != nil else { return }
        if fsync(descriptor) != 0 {
            throw .write(destination: name, message: "cannot save: " + String(cString: strerror(errno)))
        }
        try renameIntoPlace()
    }

    /// Writes out and saves a file written under a temporary name, and closes it, so that a run writing many
    /// files does not hold a descriptor for each; ``commit()`` then only renames it, ``discard()`` removes it.
    public func seal() throws(SluiceError) {
        guard temporaryPath != nil, descriptor >= 0 else { return }
        try flush()
        if fsync(descriptor) != 0 {
            throw .write(destination: name, message: "cannot save: " + String(cString: strerror(errno)))
        }
        if ownsDescriptor { close(descriptor) }
        descriptor = -1
    }

    private func renameIntoPlace() throws(SluiceError) {
        if let temporaryPath, rename(temporaryPath, name) != 0 {
            throw .write(destination: name, message: "cannot rename the finished file into place: " + String(cString: strerror(errno)))
        }
        isSettled = true
        releaseLock()
    }

    private func releaseLock() {
        guard let lockedDirectory else { return }
        self.lockedDirectory = nil
        PartialFiles.release(directory: lockedDirectory)
    }

    /// Whether ``discard()`` leaves no trace: false for a stream (standard output, a device, a pipe).
    public var canBeDiscarded: Bool { temporaryPath != nil || appendedFrom != nil }

    /// Leaves no trace of this run: the temporary file is removed, a file appended to is cut back.
    public func discard() {
        guard temporaryPath != nil || appendedFrom != nil else {
            // A stream (standard output, a device) cannot take back what it was given: what is buffered follows.
            try? flush()
            return
        }
        guard !isSettled else { return }
        isSettled = true
        buffer.removeAll()
        if let temporaryPath { unlink(temporaryPath) }
        if let appendedFrom { _ = ftruncate(descriptor, off_t(appendedFrom)) }
        releaseLock()
    }

    /// Appends bytes, writing the buffer out when it is full; a block as large as the buffer is written from
    /// where it is, not copied.
    @inline(__always)
    public func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(SluiceError) {
        guard bytes.count >= flushThreshold else {
            buffer.append(contentsOf: bytes)
            if buffer.count >= flushThreshold { try flush() }
            return
        }
        try flush()
        try writeOut(UnsafeRawBufferPointer(bytes))
    }

    /// The same, from an array.
    public func write(_ bytes: [UInt8]) throws(SluiceError) {
        let written = bytes.withUnsafeBufferPointer { pointer in Result { () throws(SluiceError) in try write(pointer) } }
        try written.get()
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
        defer { buffer.removeAll(keepingCapacity: true) }
        let failure = buffer.withUnsafeBytes { raw in Result { () throws(SluiceError) in try writeOut(raw) } }
        try failure.get()
    }

    /// Hands `bytes` to `write(2)` until all are written.
    private func writeOut(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) {
        var offset = 0
        while offset < bytes.count {
            let count = systemWrite(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                // EPIPE where SIGPIPE is ignored (the command line does, to count and report what a closed pipe lost).
                let reason = errno == EPIPE ? "its reader closed it" : String(cString: strerror(errno))
                throw .write(destination: name, message: "\(reason) (after \(written) bytes)")
            }
            offset += count
            written += count
        }
    }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#else
private let systemWrite = Darwin.write
#endif
