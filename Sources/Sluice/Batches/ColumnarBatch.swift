import Foundation

/// A fixed-capacity batch of mapped records, stored by column.
///
/// Readers reuse batches: the one a reader returns stays valid until the reader is asked for the next one, and is
/// then refilled in place. Copy out what you keep. Its buffers grow to the working size of the data during the
/// first batches and are not reallocated after that.
public final class ColumnarBatch {
    /// The fields, in column order.
    public let fields: [FieldSpec]
    /// The most records the batch holds.
    public private(set) var capacity: Int
    /// The number of records in the batch.
    public internal(set) var count: Int {
        get { rowCount.pointee }
        set { rowCount.pointee = newValue }
    }
    /// Where ``count`` is kept: read for every value a consumer reads (the row is checked against it) and written for
    /// every record committed, it is memory of the batch's own, as the columns are, which costs no dynamic
    /// exclusivity check (a class's stored `var` costs one on each access from another type).
    private let rowCount: UnsafeMutablePointer<Int>
    /// Records rejected while this batch was being filled, in input order (with ``RejectionPolicy/collect``).
    public internal(set) var rejections: [Rejection] = []

    package let columns: UnsafeMutablePointer<ColumnStorage>
    /// Each record's own text, kept only when something may still reject a committed record (typed finishing
    /// hooks and transforms), so that such a rejection carries the raw text like any other.
    let recordText: UnsafeMutablePointer<ColumnStorage>?
    private(set) var ordinals: UnsafeMutablePointer<Int>
    private(set) var lines: UnsafeMutablePointer<Int>
    private(set) var byteOffsets: UnsafeMutablePointer<Int>
    /// The columns' buffers, in one allocation.
    private var block: UnsafeMutableRawPointer
    /// Per element column of the plan (``CompiledPlan/elementColumns``): the rows of the elements of that
    /// column's arrays, for every record of this batch. An element batch grows as its records need.
    let elementBatches: [ColumnarBatch]
    /// The rows of the tables the batch's records fill, when the reader was asked for them (a reader given
    /// `MappedTables`): the records' own table first (with the links of child tables' rows where records have no
    /// key), then each child table after its parent, in the order of `MappedTables.tables`. Empty otherwise. See
    /// ``rows(ofTable:forRecords:)``.
    public internal(set) var tables: [ColumnarBatch] = []
    /// Per child table (the records' table's entry is empty: its rows are the records'), the first of each record's
    /// rows, and after the last record where its rows end.
    var tableRowStarts: [[Int]] = []

    /// A batch of `capacity` rows; `holdsElementRows` gives it the element batches its typed arrays map into.
    init(fields: [FieldSpec], capacity: Int, keepsRecordText: Bool = false, holdsElementRows: Bool = true) {
        self.fields = fields
        self.capacity = capacity
        columns = .allocate(capacity: max(fields.count, 1))
        block = Self.allocateBlock(fields: fields, capacity: capacity)
        var free = block
        for (index, field) in fields.enumerated() {
            (columns + index).initialize(to: ColumnStorage(type: field.columnType, capacity: capacity, block: &free))
        }
        elementBatches = holdsElementRows
            ? fields.compactMap { $0.elementPlan.map { ColumnarBatch(fields: $0.fields, capacity: Self.initialElementCapacity) } } : []
        if keepsRecordText {
            let text = UnsafeMutablePointer<ColumnStorage>.allocate(capacity: 1)
            text.initialize(to: ColumnStorage(type: .json, capacity: capacity))
            recordText = text
        } else {
            recordText = nil
        }
        ordinals = .allocate(capacity: capacity)
        lines = .allocate(capacity: capacity)
        byteOffsets = .allocate(capacity: capacity)
        rowCount = .allocate(capacity: 1)
        rowCount.initialize(to: 0)
    }

    /// About how many bytes a batch of `fields` allocates for each row of its capacity: the columns' values,
    /// validity and starting text buffers, and the record's location (and text, when kept).
    static func bytesPerRow(of fields: [FieldSpec], keepsRecordText: Bool) -> Int {
        let columns = fields.reduce(0) { $0 + ColumnStorage.bytesPerRow(of: $1.columnType) + 1 }
        let location = 3 * MemoryLayout<Int>.size
        return columns + location + (keepsRecordText ? ColumnStorage.bytesPerRow(of: .json) : 0)
    }

    /// About how many bytes a batch of `fields` allocates whatever its capacity: each column's description and
    /// the rounding of its buffers (a 10,000-field batch of one row takes about 1 MB).
    static func fixedBytes(of fields: [FieldSpec]) -> Int {
        (fields.count + 1) * (MemoryLayout<ColumnStorage>.stride + 3 * 8)
    }

    /// About how many bytes a batch of `fields` with `capacity` rows allocates. Batch capacities are chosen with it,
    /// so that a wide mapping's batches stay within the memory budget.
    static func bytes(of fields: [FieldSpec], capacity: Int, keepsRecordText: Bool) -> Int {
        fixedBytes(of: fields) + capacity * bytesPerRow(of: fields, keepsRecordText: keepsRecordText)
    }

    /// About the bytes the batch holds now: its block at its capacity, and its text buffers that have grown.
    var heldBytes: Int {
        (0..<fields.count).reduce(Self.bytes(of: fields, capacity: capacity, keepsRecordText: recordText != nil)) { $0 + columns[$1].bytesOutsideBlock }
    }

    /// About the bytes the batch holds besides its records' own rows: its element batches' (at every depth) and its
    /// tables', at their capacity, which grows with the records' arrays and stays while the batch is reused.
    var stagedRowBytes: Int {
        elementBatches.reduce(0) { $0 + $1.heldBytes + $1.stagedRowBytes } + tables.reduce(0) { $0 + $1.heldBytes }
    }

    /// The capacity for batches of `fields`: `requested`, or fewer rows when that many would take more than
    /// `byteLimit` bytes (at least one).
    static func capacity(of fields: [FieldSpec], keepsRecordText: Bool, requested: Int, byteLimit: Int) -> Int {
        let rows = (byteLimit - fixedBytes(of: fields)) / bytesPerRow(of: fields, keepsRecordText: keepsRecordText)
        return max(1, min(requested, rows))
    }

    /// The rows an element batch starts with; it doubles whenever a record's elements do not fit.
    static let initialElementCapacity = 64

    private static func allocateBlock(fields: [FieldSpec], capacity: Int) -> UnsafeMutableRawPointer {
        .allocate(byteCount: max(fields.reduce(0) { $0 + ColumnStorage.blockBytes(type: $1.columnType, capacity: capacity) }, 8), alignment: 8)
    }

    /// Doubles the capacity, keeping the first `rows` rows' values and locations: for element batches and child
    /// tables' rows, which are as many as the elements of their records, and which keep no record text. The batch and its `columns`
    /// pointer stay the same, so holders of either carry on.
    func grow(keeping rows: Int) {
        let newCapacity = capacity * 2
        let newBlock = Self.allocateBlock(fields: fields, capacity: newCapacity)
        var free = newBlock
        for index in 0..<fields.count {
            var grown = ColumnStorage(type: columns[index].type, capacity: newCapacity, block: &free)
            grown.copyRows(rows, from: columns[index])
            columns[index].deallocate()
            columns[index] = grown
        }
        block.deallocate()
        block = newBlock
        // Element rows have an ordinal (the element's place in its array); a child table's rows the location of
        // their record.
        func grown(_ old: UnsafeMutablePointer<Int>) -> UnsafeMutablePointer<Int> {
            let larger = UnsafeMutablePointer<Int>.allocate(capacity: newCapacity)
            larger.initialize(from: old, count: rows)
            old.deallocate()
            return larger
        }
        ordinals = grown(ordinals)
        lines = grown(lines)
        byteOffsets = grown(byteOffsets)
        capacity = newCapacity
    }

    deinit {
        for index in 0..<fields.count { columns[index].deallocate() }
        columns.deinitialize(count: fields.count)
        columns.deallocate()
        block.deallocate()
        if let recordText {
            recordText.pointee.deallocate()
            recordText.deinitialize(count: 1)
            recordText.deallocate()
        }
        ordinals.deallocate()
        lines.deallocate()
        byteOffsets.deallocate()
        rowCount.deallocate()
    }

    /// Empties the batch for reuse, keeping every buffer.
    func reset() {
        for index in 0..<fields.count { columns[index].reset() }
        recordText?.pointee.reset()
        for batch in elementBatches { batch.reset() }
        for batch in tables { batch.reset() }
        for table in tableRowStarts.indices { tableRowStarts[table].removeAll(keepingCapacity: true) }
        count = 0
        rejections.removeAll(keepingCapacity: true)
    }

    var isFull: Bool { count == capacity }

    /// The location of the record in `row`.
    public func location(ofRow row: Int) -> RecordLocation {
        precondition(row >= 0 && row < count, "row \(row) is outside the batch's \(count) records")
        return RecordLocation(ordinal: ordinals[row], line: lines[row], byteOffset: byteOffsets[row])
    }

    /// Gives `row` the location of a record.
    func setLocation(_ location: RecordLocation, ofRow row: Int) {
        ordinals[row] = location.ordinal
        lines[row] = location.line
        byteOffsets[row] = location.byteOffset
    }

    /// The rows of table `table` of ``tables`` that the records in rows `records` of this batch gave: every record
    /// of the records' table (table 0) gives one row, in its own row; a child table's rows follow their records'
    /// order.
    public func rows(ofTable table: Int, forRecords records: Range<Int>) -> Range<Int> {
        precondition(table >= 0 && table < tables.count, "table \(table) is outside the batch's \(tables.count) tables")
        precondition(records.lowerBound >= 0 && records.upperBound <= count, "rows \(records) are outside the batch's \(count) records")
        guard table > 0 else { return records }
        let starts = tableRowStarts[table]
        return starts[records.lowerBound]..<starts[records.upperBound]
    }

    /// The column at `index` in ``fields`` order.
    public func column(_ index: Int) -> Column {
        precondition(index >= 0 && index < fields.count, "column \(index) is outside the batch's \(fields.count) columns")
        return Column(batch: self, index: index)
    }

    /// The column of the field called `name`, if there is one.
    public func column(named name: String) -> Column? {
        fields.firstIndex { $0.name == name }.map { Column(batch: self, index: $0) }
    }

    /// A read-only view of one column of a batch. Each accessor returns `nil` for a null row and traps for a
    /// row outside the batch or a type the column does not hold (programming errors, not input errors).
    public struct Column {
        package let batch: ColumnarBatch
        /// The column's position in the batch's fields.
        public let index: Int

        /// The column's field.
        public var field: FieldSpec { batch.fields[index] }

        /// The column's storage, once `row` is checked to be in the batch.
        private func storage(_ row: Int) -> ColumnStorage {
            precondition(row >= 0 && row < batch.count, "row \(row) is outside the batch's \(batch.count) records")
            return batch.columns[index]
        }

        /// The column's storage, once `row` is checked and the column to hold `type`. (One type, not a variadic
        /// list, which would cost an array per value read.)
        private func storage(_ row: Int, _ type: FieldType) -> ColumnStorage {
            let storage = storage(row)
            precondition(storage.type == type, "column '\(field.name)' holds \(storage.type), not \(type)")
            return storage
        }

        /// Whether the value in `row` is null.
        public func isNull(_ row: Int) -> Bool {
            !storage(row).isValid(row)
        }

        /// The value of an `int64` column.
        public func int64(_ row: Int) -> Int64? {
            let storage = storage(row, .int64)
            return storage.isValid(row) ? storage.values.assumingMemoryBound(to: Int64.self)[row] : nil
        }

        /// The value of a `uint64` column.
        public func uint64(_ row: Int) -> UInt64? {
            let storage = storage(row, .uint64)
            return storage.isValid(row) ? storage.values.assumingMemoryBound(to: UInt64.self)[row] : nil
        }

        /// The value of a `date` column, in nanoseconds since 1970-01-01T00:00:00Z.
        public func dateNanoseconds(_ row: Int) -> Int64? {
            let storage = storage(row, .date)
            return storage.isValid(row) ? storage.values.assumingMemoryBound(to: Int64.self)[row] : nil
        }

        /// The value of a `double` column.
        public func double(_ row: Int) -> Double? {
            let storage = storage(row, .double)
            return storage.isValid(row) ? storage.values.assumingMemoryBound(to: Double.self)[row] : nil
        }

        /// The value of a `bool` column.
        public func bool(_ row: Int) -> Bool? {
            let storage = storage(row, .bool)
            return storage.isValid(row) ? storage.values.assumingMemoryBound(to: UInt8.self)[row] != 0 : nil
        }

        /// The value of a `decimal` column, exactly (its canonical text is also what ``string(_:)`` returns).
        public func decimal(_ row: Int) -> Decimal? {
            let storage = storage(row, .decimal)
            return storage.isValid(row) ? DecimalText.decimal(storage.textBytes(row)) : nil
        }

        /// The value of a `string`, `json`, `url`, `enum` or `decimal` column, or a list's JSON array text.
        public func string(_ row: Int) -> String? {
            withUTF8(row) { $0.map { String(decoding: $0, as: UTF8.self) } }
        }

        /// The value of a `bytes` column.
        public func bytes(_ row: Int) -> [UInt8]? {
            let storage = storage(row, .bytes)
            return storage.isValid(row) ? Array(storage.textBytes(row)) : nil
        }

        /// Calls `body` with the bytes of a `string`, `json`, `url`, `enum`, `decimal` (UTF-8) or `bytes` value (`nil` for
        /// null), without copying. The buffer is valid only inside `body`.
        public func withUTF8<Result>(_ row: Int, _ body: (UnsafeBufferPointer<UInt8>?) throws -> Result) rethrows -> Result {
            let storage = storage(row)
            precondition(storage.type.layout == .text, "column '\(field.name)' holds \(storage.type), not text or bytes")
            guard storage.isValid(row) else { return try body(nil) }
            return try body(storage.textBytes(row))
        }
    }
}
