/// Where the elements of one record's array lie: a run of rows in an element batch, or the element that did not
/// map (one of the element batch's rejections).
///
/// The state machine writes it as the text of the array's row in the record's batch, and the typed door reads it
/// back from that column alone. The text then holds no JSON: it starts with a zero byte, which JSON text never
/// does. The element batch belongs to the record's batch (``ColumnarBatch/elementBatches``) and lives as long as
/// it, so the reference in the text is not retained.
struct ElementRows {
    let batch: ColumnarBatch
    let rows: Range<Int>
    /// The index in the batch's rejections of the element that did not map, if one did not.
    let failure: Int?
    /// How many elements the array held, nulls counted: nulls have no rows, and a row's place in the array is
    /// its ordinal in the element batch.
    let arrayCount: Int

    private static let marker: UInt8 = 0
    private static let size = 1 + 5 * MemoryLayout<Int>.size

    /// Writes `rows` of `batch`, or its rejection at `failure`, and the array's element count, as the text of `row`
    /// in `storage`.
    static func write(
        _ batch: ColumnarBatch, rows: Range<Int>, failure: Int?, arrayCount: Int, into storage: UnsafeMutablePointer<ColumnStorage>, row: Int
    ) {
        storage.pointee.beginText(row: row)
        storage.pointee.appendText(byte: marker)
        // One copy of the five words (a homogeneous tuple is laid out contiguously), not one call a byte.
        var words = (Int(bitPattern: Unmanaged.passUnretained(batch).toOpaque()), rows.lowerBound, rows.count, failure ?? -1, arrayCount)
        withUnsafeBytes(of: &words) { bytes in
            if let base = bytes.baseAddress { storage.pointee.appendText(base, count: bytes.count) }
        }
        storage.pointee.endText(row: row)
    }

    /// The rows written into `row` of `storage`, or nil when the row holds JSON text (or nothing).
    init?(_ storage: ColumnStorage, row: Int) {
        guard storage.isValid(row) else { return nil }
        let text = storage.textBytes(row)
        guard text.count == Self.size, text.first == Self.marker, let base = text.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base + 1)
        let address = raw.loadUnaligned(as: Int.self)
        let start = raw.loadUnaligned(fromByteOffset: MemoryLayout<Int>.size, as: Int.self)
        let count = raw.loadUnaligned(fromByteOffset: 2 * MemoryLayout<Int>.size, as: Int.self)
        let failure = raw.loadUnaligned(fromByteOffset: 3 * MemoryLayout<Int>.size, as: Int.self)
        arrayCount = raw.loadUnaligned(fromByteOffset: 4 * MemoryLayout<Int>.size, as: Int.self)
        guard let pointer = UnsafeRawPointer(bitPattern: address) else { return nil }
        batch = Unmanaged<ColumnarBatch>.fromOpaque(pointer).takeUnretainedValue()
        rows = start..<start + count
        self.failure = failure >= 0 ? failure : nil
    }
}
