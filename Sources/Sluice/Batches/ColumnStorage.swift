#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The buffers of one column in a batch: a validity bitmap and contiguous values; for text, one byte buffer
/// with row offsets (row `r` spans `offsets[r] ..< offsets[r + 1]`).
///
/// A plain struct of pointers so that the state machine writes through it without reference counting or
/// exclusivity checks; the owning ``ColumnarBatch`` allocates and frees the memory.
struct ColumnStorage {
    let type: FieldType
    let capacity: Int
    let validity: UnsafeMutablePointer<UInt64>
    /// Int64 / Double: 8 bytes a row. Bool: 1 byte a row. String / JSON: `capacity + 1` Int offsets.
    let values: UnsafeMutableRawPointer
    private(set) var bytes: UnsafeMutablePointer<UInt8>
    private(set) var byteCount = 0
    private(set) var byteCapacity: Int

    var validityWordCount: Int { (capacity + 63) >> 6 }
    var hasBytes: Bool { type == .string || type == .json }

    init(type: FieldType, capacity: Int) {
        self.type = type
        self.capacity = capacity
        validity = .allocate(capacity: (capacity + 63) >> 6)
        switch type {
        case .int64, .double:
            values = .allocate(byteCount: capacity * 8, alignment: 8)
        case .bool:
            values = .allocate(byteCount: capacity, alignment: 1)
        case .string, .json:
            values = .allocate(byteCount: (capacity + 1) * 8, alignment: 8)
        }
        byteCapacity = (type == .string || type == .json) ? max(capacity * 16, 256) : 1
        bytes = .allocate(capacity: byteCapacity)
        reset()
    }

    func deallocate() {
        validity.deallocate()
        values.deallocate()
        bytes.deallocate()
    }

    mutating func reset() {
        validity.initialize(repeating: 0, count: validityWordCount)
        byteCount = 0
        if hasBytes { offsets[0] = 0 }
    }

    var offsets: UnsafeMutablePointer<Int> { values.assumingMemoryBound(to: Int.self) }

    @inline(__always) func isValid(_ row: Int) -> Bool {
        validity[row >> 6] & (1 << UInt64(row & 63)) != 0
    }

    @inline(__always) func setValid(_ row: Int) {
        validity[row >> 6] |= 1 << UInt64(row & 63)
    }

    @inline(__always) func clearValid(_ row: Int) {
        validity[row >> 6] &= ~(1 << UInt64(row & 63))
    }

    @inline(__always) func write(_ value: Int64, row: Int) {
        values.assumingMemoryBound(to: Int64.self)[row] = value
        setValid(row)
    }

    @inline(__always) func write(_ value: Double, row: Int) {
        values.assumingMemoryBound(to: Double.self)[row] = value
        setValid(row)
    }

    @inline(__always) func write(_ value: Bool, row: Int) {
        values.assumingMemoryBound(to: UInt8.self)[row] = value ? 1 : 0
        setValid(row)
    }

    /// Starts (or, for a duplicate key, restarts) the row's text; append bytes, then ``endText(row:)``.
    @inline(__always) mutating func beginText(row: Int) {
        byteCount = offsets[row]
    }

    @inline(__always) mutating func appendText(_ source: UnsafeRawPointer, count: Int) {
        if byteCount + count > byteCapacity { grow(toFit: byteCount + count) }
        (bytes + byteCount).update(from: source.assumingMemoryBound(to: UInt8.self), count: count)
        byteCount += count
    }

    @inline(__always) mutating func appendText(byte: UInt8) {
        if byteCount + 1 > byteCapacity { grow(toFit: byteCount + 1) }
        bytes[byteCount] = byte
        byteCount += 1
    }

    @inline(__always) mutating func endText(row: Int) {
        offsets[row + 1] = byteCount
        setValid(row)
    }

    /// Makes the row null, undoing anything written to it.
    @inline(__always) mutating func setNull(row: Int) {
        clearValid(row)
        switch type {
        case .int64, .double: values.assumingMemoryBound(to: Int64.self)[row] = 0
        case .bool: values.assumingMemoryBound(to: UInt8.self)[row] = 0
        case .string, .json:
            byteCount = offsets[row]
            offsets[row + 1] = byteCount
        }
    }

    private mutating func grow(toFit needed: Int) {
        var newCapacity = byteCapacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBytes.initialize(from: bytes, count: byteCount)
        bytes.deallocate()
        bytes = newBytes
        byteCapacity = newCapacity
    }
}
