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
    /// Word layout: 8 bytes a row. Byte layout: 1 byte a row. Text layout: `capacity + 1` Int offsets.
    let values: UnsafeMutableRawPointer
    private(set) var bytes: UnsafeMutablePointer<UInt8>
    private(set) var byteCount = 0
    private(set) var byteCapacity: Int

    /// A text column's byte buffer starts at this many bytes a row and doubles when a value does not fit.
    static let initialTextBytesPerRow = 16

    /// The bytes a column of `type` allocates for each row of a batch's capacity, its text buffer's start included.
    static func bytesPerRow(of type: FieldType) -> Int {
        switch type.layout {
        case .word: 8
        case .byte: 1
        case .text: 8 + initialTextBytesPerRow
        }
    }

    var validityWordCount: Int { (capacity + 63) >> 6 }
    var hasBytes: Bool { type.layout == .text }

    init(type: FieldType, capacity: Int) {
        self.type = type
        self.capacity = capacity
        validity = .allocate(capacity: (capacity + 63) >> 6)
        switch type.layout {
        case .word:
            values = .allocate(byteCount: capacity * 8, alignment: 8)
        case .byte:
            values = .allocate(byteCount: capacity, alignment: 1)
        case .text:
            values = .allocate(byteCount: (capacity + 1) * 8, alignment: 8)
        }
        byteCapacity = type.layout == .text ? capacity * Self.initialTextBytesPerRow : 1
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

    /// The bytes of a text-layout row (valid or not).
    @inline(__always) func textBytes(_ row: Int) -> UnsafeBufferPointer<UInt8> {
        let start = offsets[row]
        return UnsafeBufferPointer(start: bytes + start, count: offsets[row + 1] - start)
    }

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

    @inline(__always) func write(_ value: UInt64, row: Int) {
        values.assumingMemoryBound(to: UInt64.self)[row] = value
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

    /// Appends `text` as a JSON string literal: one copy when nothing in it needs escaping, as is usual.
    mutating func appendJSONString(_ text: UnsafeBufferPointer<UInt8>) {
        guard let base = text.baseAddress, text.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
            JSONText.appendStringLiteral(text) { appendText(byte: $0) }
            return
        }
        appendText(byte: UInt8(ascii: "\""))
        appendText(base, count: text.count)
        appendText(byte: UInt8(ascii: "\""))
    }

    /// Drops the bytes appended since `count` (an element a unique list already holds).
    mutating func truncateText(to count: Int) {
        byteCount = min(byteCount, count)
    }

    @inline(__always) mutating func endText(row: Int) {
        offsets[row + 1] = byteCount
        setValid(row)
    }

    /// Writes a value of the column's type (a default); values of other kinds are not written.
    mutating func write(_ value: FieldValue, row: Int) {
        switch value {
        case .int64(let number): write(number, row: row)
        case .uint64(let number): write(number, row: row)
        case .double(let number): write(number, row: row)
        case .bool(let flag): write(flag, row: row)
        case .date(let nanoseconds): write(nanoseconds, row: row)
        case .string(let text):
            beginText(row: row)
            for byte in text.utf8 { appendText(byte: byte) }
            endText(row: row)
        case .bytes(let bytes):
            beginText(row: row)
            for byte in bytes { appendText(byte: byte) }
            endText(row: row)
        }
    }

    /// Writes `count` bytes as the row's text (replacing any written before, for a duplicate key).
    @inline(__always) mutating func writeText(_ source: UnsafeRawPointer, count: Int, row: Int) {
        beginText(row: row)
        appendText(source, count: count)
        endText(row: row)
    }

    /// Makes the row null, undoing anything written to it.
    @inline(__always) mutating func setNull(row: Int) {
        clearValid(row)
        switch type.layout {
        case .word: values.assumingMemoryBound(to: Int64.self)[row] = 0
        case .byte: values.assumingMemoryBound(to: UInt8.self)[row] = 0
        case .text:
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
