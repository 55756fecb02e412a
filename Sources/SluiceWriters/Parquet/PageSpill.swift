import Sluice
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a row group's finished pages wait until the row group is written out: an unnamed file, so that memory
/// holds only the pages being filled, however large a row group is.
///
/// A column chunk's pages must lie together in the Parquet file, but the columns fill their pages side by side;
/// each page therefore goes to the spill as it is compressed, and the chunks are copied out in column order when
/// the row group ends. The file is unlinked as soon as it is made, and made under a partial file's name held by the
/// run's lock, so that a run killed in between leaves a file the next run removes; it sits beside the output, on the
/// disk chosen for the output (a temporary directory may be memory).
final class PageSpill {
    /// Where one page lies in the spill.
    struct Span {
        var offset: Int
        var count: Int
    }

    private let descriptor: Int32
    private let directory: String
    /// The file the pages are for, which errors name: a full disk stops that file.
    private let outputName: String
    private var end = 0
    private var copyBuffer: UnsafeMutableRawBufferPointer

    private static let copyBufferBytes = 1 << 20

    /// An empty spill in `directory` ("" for the working directory) for the pages of `outputName`.
    init(directory: String, for outputName: String) throws(SluiceError) {
        let prefix = directory.isEmpty || directory.hasSuffix("/") ? directory : directory + "/"
        let name = prefix + "parquet-pages-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let temporary = try PartialFiles.acquire(for: name, directory: prefix)
        let descriptor = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        let reason = errno
        if descriptor >= 0 { unlink(temporary) }
        PartialFiles.release(directory: prefix)
        guard descriptor >= 0 else {
            throw .write(destination: outputName, message: "cannot create a file for its pages in progress in \(prefix.isEmpty ? "." : prefix): " + String(cString: strerror(reason)))
        }
        self.descriptor = descriptor
        self.directory = prefix.isEmpty ? "." : prefix
        self.outputName = outputName
        copyBuffer = .allocate(byteCount: Self.copyBufferBytes, alignment: 16)
    }

    deinit {
        close(descriptor)
        copyBuffer.deallocate()
    }

    /// Adds `page`'s bytes and says where they lie.
    func append(_ page: UnsafeRawBufferPointer) throws(SluiceError) -> Span {
        var done = 0
        while done < page.count {
            let count = pwrite(descriptor, page.baseAddress.map { $0 + done }, page.count - done, off_t(end + done))
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("cannot hold a page in progress")
            }
            done += count
        }
        defer { end += page.count }
        return Span(offset: end, count: page.count)
    }

    /// Writes the pages at `spans`, in order, to `output`.
    func copy(_ spans: [Span], to output: FileOutput) throws(SluiceError) {
        for span in spans {
            var done = 0
            while done < span.count {
                let count = pread(descriptor, copyBuffer.baseAddress, min(copyBuffer.count, span.count - done), off_t(span.offset + done))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw failure("cannot read back a page in progress") }
                try output.write(UnsafeBufferPointer(start: copyBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self), count: count))
                done += count
            }
        }
    }

    /// Forgets every page, giving the disk space back: a row group has been written out.
    func removeAll() throws(SluiceError) {
        guard ftruncate(descriptor, 0) == 0 else { throw failure("cannot empty the file of pages in progress") }
        end = 0
    }

    private func failure(_ what: String) -> SluiceError {
        .write(destination: outputName, message: "\(what) (in an unnamed file in \(directory)): " + String(cString: strerror(errno)))
    }
}
