/// The bytes a reader holds: everything from the start of the earliest record still needed to the end of what
/// has been read. It grows only when one record is larger than what it holds, up to the maximum record size.
final class InputBuffer {
    private(set) var storage: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    /// Valid bytes in `storage`.
    private(set) var count = 0
    /// The absolute input offset of `storage[0]`.
    private(set) var baseOffset = 0
    /// Whether the source has reported its end.
    private(set) var isAtEnd = false
    /// Total bytes read from the source.
    private(set) var bytesRead = 0

    /// Whether `storage` belongs to someone else (a chunk lent by the parallel pipeline).
    private var isBorrowed = false

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        storage = .allocate(capacity: self.capacity + Self.padding)
    }

    /// Room kept past `capacity` so that a tokenizer that reads a little past a record's end (simdjson) can be
    /// given records in place.
    static let padding = 64

    /// Bytes that may be read from absolute `offset` on: past the last byte held for storage of our own, only
    /// up to it for borrowed bytes.
    func readableBytes(from offset: Int) -> Int {
        (isBorrowed ? count : capacity + Self.padding) - (offset - baseOffset)
    }

    deinit {
        if !isBorrowed { storage.deallocate() }
    }

    /// Holds `count` bytes owned by the caller, starting at absolute `offset`, as the whole input; the bytes must
    /// stay valid until the next call. Nothing is copied.
    func borrow(_ bytes: UnsafeMutablePointer<UInt8>, count: Int, at offset: Int) {
        if !isBorrowed { storage.deallocate() }
        isBorrowed = true
        storage = bytes
        capacity = count
        self.count = count
        baseOffset = offset
        isAtEnd = true
        bytesRead = count
    }

    /// The absolute offset just past the last byte read.
    var endOffset: Int { baseOffset + count }

    /// A pointer to the byte at absolute `offset`, which must be held.
    @inline(__always) func pointer(at offset: Int) -> UnsafeMutablePointer<UInt8> { storage + (offset - baseOffset) }

    /// Reads once from `source`, up to `readSize` bytes, growing the buffer if it is full. Returns the number of
    /// bytes read, 0 at the end of the input.
    @discardableResult
    func fill(from source: inout any ByteSource, readSize: Int) throws(SluiceError) -> Int {
        guard !isBorrowed else { return 0 }
        if count + readSize > capacity {
            var newCapacity = capacity * 2
            while newCapacity < count + readSize { newCapacity *= 2 }
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity + Self.padding)
            grown.initialize(from: storage, count: count)
            storage.deallocate()
            storage = grown
            capacity = newCapacity
        }
        let read = try source.read(into: UnsafeMutableRawBufferPointer(start: storage + count, count: readSize))
        if read == 0 { isAtEnd = true }
        count += read
        bytesRead += read
        return read
    }
}
