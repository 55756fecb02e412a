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
package struct ColumnStorage {
    package let type: FieldType
    /// Whether the validity and value buffers are allocations of their own, or lie in a batch's block (which the
    /// batch frees); and the same for the text buffer, which leaves the block when it first grows.
    private let ownsBuffers: Bool
    private var ownsBytes: Bool
    let capacity: Int
    @usableFromInline let validity: UnsafeMutablePointer<UInt64>
    /// Word layout: 8 bytes a row. Byte layout: 1 byte a row. Text layout: `capacity + 1` Int offsets.
    package let values: UnsafeMutableRawPointer
    @usableFromInline private(set) var bytes: UnsafeMutablePointer<UInt8>
    private(set) var byteCount = 0
    private(set) var byteCapacity: Int

    /// The bytes of the text buffer once it has left the batch's block (grown), which the block's size leaves out.
    var bytesOutsideBlock: Int { ownsBytes ? byteCapacity : 0 }

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

    /// The sizes of a column's validity, value and starting text buffers, each rounded up to 8 bytes.
    private static func bufferSizes(type: FieldType, capacity: Int) -> (validity: Int, values: Int, bytes: Int) {
        func rounded(_ count: Int) -> Int { (count + 7) & ~7 }
        let values = switch type.layout {
        case .word: capacity * 8
        case .byte: rounded(capacity)
        case .text: (capacity + 1) * 8
        }
        return (((capacity + 63) >> 6) * 8, values, type.layout == .text ? rounded(capacity * initialTextBytesPerRow) : 8)
    }

    /// The bytes of a block that holds the buffers of columns of `type` with `capacity` rows (see
    /// ``init(type:capacity:block:)``).
    static func blockBytes(type: FieldType, capacity: Int) -> Int {
        let sizes = bufferSizes(type: type, capacity: capacity)
        return sizes.validity + sizes.values + sizes.bytes
    }

    /// A column with buffers of its own.
    init(type: FieldType, capacity: Int) {
        let sizes = Self.bufferSizes(type: type, capacity: capacity)
        self.init(
            type: type, capacity: capacity, ownsBuffers: true,
            validity: .allocate(byteCount: sizes.validity, alignment: 8), values: .allocate(byteCount: sizes.values, alignment: 8),
            bytes: .allocate(byteCount: sizes.bytes, alignment: 8), byteCapacity: sizes.bytes
        )
    }

    /// A column whose buffers lie in a batch's block at `block`, which then moves past them: a batch of a
    /// 100,000-field mapping makes one allocation, not 300,000.
    init(type: FieldType, capacity: Int, block: inout UnsafeMutableRawPointer) {
        let sizes = Self.bufferSizes(type: type, capacity: capacity)
        let validity = block
        let values = block + sizes.validity
        let bytes = values + sizes.values
        block = bytes + sizes.bytes
        self.init(type: type, capacity: capacity, ownsBuffers: false, validity: validity, values: values, bytes: bytes, byteCapacity: sizes.bytes)
    }

    private init(
        type: FieldType, capacity: Int, ownsBuffers: Bool, validity: UnsafeMutableRawPointer, values: UnsafeMutableRawPointer,
        bytes: UnsafeMutableRawPointer, byteCapacity: Int
    ) {
        self.type = type
        self.capacity = capacity
        self.ownsBuffers = ownsBuffers
        ownsBytes = ownsBuffers
        self.validity = validity.bindMemory(to: UInt64.self, capacity: (capacity + 63) >> 6)
        self.values = values
        self.bytes = bytes.bindMemory(to: UInt8.self, capacity: byteCapacity)
        self.byteCapacity = byteCapacity
        reset()
    }

    /// Frees the buffers the column owns (not those in a batch's block).
    func deallocate() {
        if ownsBuffers {
            validity.deallocate()
            values.deallocate()
        }
        if ownsBytes { bytes.deallocate() }
    }

    mutating func reset() {
        validity.initialize(repeating: 0, count: validityWordCount)
        byteCount = 0
        if hasBytes { offsets[0] = 0 }
    }

    @usableFromInline var offsets: UnsafeMutablePointer<Int> { values.assumingMemoryBound(to: Int.self) }

    /// The bytes of a text-layout row (valid or not).
    // Inlinable: the writers, in another module, read every value through these two.
    @inlinable @inline(__always) package func textBytes(_ row: Int) -> UnsafeBufferPointer<UInt8> {
        let start = offsets[row]
        return UnsafeBufferPointer(start: bytes + start, count: offsets[row + 1] - start)
    }

    @inlinable @inline(__always) package func isValid(_ row: Int) -> Bool {
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

    /// Copies the first `rows` rows of `source`, a smaller column of the same type, into this one.
    mutating func copyRows(_ rows: Int, from source: ColumnStorage) {
        validity.update(from: source.validity, count: (rows + 63) >> 6)
        switch type.layout {
        case .word: values.copyMemory(from: source.values, byteCount: rows * 8)
        case .byte: values.copyMemory(from: source.values, byteCount: rows)
        case .text:
            let count = source.offsets[rows]
            if count > byteCapacity { grow(toFit: count) }
            bytes.update(from: source.bytes, count: count)
            offsets.update(from: source.offsets, count: rows + 1)
            byteCount = count
        }
    }

    /// Copies the value of `sourceRow` in `source`, a column of the same type, into `row`: rows of text are
    /// written in order, as everywhere.
    mutating func copyValue(of sourceRow: Int, in source: ColumnStorage, to row: Int) {
        guard source.isValid(sourceRow) else {
            setNull(row: row)
            return
        }
        switch type.layout {
        case .word: values.assumingMemoryBound(to: UInt64.self)[row] = source.values.assumingMemoryBound(to: UInt64.self)[sourceRow]
        case .byte: values.assumingMemoryBound(to: UInt8.self)[row] = source.values.assumingMemoryBound(to: UInt8.self)[sourceRow]
        case .text:
            let text = source.textBytes(sourceRow)
            beginText(row: row)
            if let base = text.baseAddress { appendText(base, count: text.count) }
            endText(row: row)
            return
        }
        setValid(row)
    }

    private mutating func grow(toFit needed: Int) {
        var newCapacity = byteCapacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBytes.initialize(from: bytes, count: byteCount)
        if ownsBytes { bytes.deallocate() }
        ownsBytes = true
        bytes = newBytes
        byteCapacity = newCapacity
    }
}
