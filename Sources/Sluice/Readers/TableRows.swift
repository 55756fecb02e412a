/// Turns batches of records into the rows of every table of ``MappedTables``: the records' table's rows, and each
/// child table's, with their links filled in.
///
/// Made once per reader or import and reused: its batches are refilled by each ``fill(from:rows:source:)`` and
/// stay valid until the next. A mapping without child tables hands back the batch it was given.
public final class TableRows {
    /// The tables whose rows it fills.
    public let tables: MappedTables
    /// Per table, the batch its rows are copied into (the records' table's only when it gains links).
    private let batches: [ColumnarBatch]
    /// Per table, its child tables.
    private let children: [[Int]]
    /// Per table, what a row is copied with, read once: every `MappedTables.Table` read costs reference counting.
    private let sourceColumns: [Int]
    private let ownColumnCounts: [Int]
    /// The positions of the arrays on the way down to the element being copied.
    private var positions: [Int64] = []
    private var source: [UInt8] = []

    public init(_ tables: MappedTables) {
        self.tables = tables
        batches = tables.tables.map { ColumnarBatch(fields: $0.fields, capacity: ColumnarBatch.initialElementCapacity, holdsElementRows: false) }
        children = tables.tables.indices.map { table in tables.tables.indices.filter { tables.tables[$0].parent == table } }
        sourceColumns = tables.tables.map(\.sourceColumn)
        ownColumnCounts = tables.tables.map(\.ownColumnCount)
        positions.reserveCapacity(tables.tables.count)
    }

    /// The rows of each table (in ``MappedTables/tables`` order) that `rows` of `batch` give; `source` names the
    /// input, for tables linked by source and ordinal. Only rows of committed records are copied: an element batch
    /// also holds the rows of records rejected after their arrays were read.
    public func fill(from batch: ColumnarBatch, rows: Range<Int>, source: String) -> [(batch: ColumnarBatch, rows: Range<Int>)] {
        guard tables.hasChildTables else { return [(batch, rows)] }
        self.source = Array(source.utf8)
        for output in batches { output.reset() }
        let records = batches[0]
        let own = tables.tables[0].ownColumnCount
        for row in rows {
            let location = batch.location(ofRow: row)
            let out = append(to: records)
            for column in 0..<own { records.columns[column].copyValue(of: row, in: batch.columns[column], to: out) }
            if tables.keyColumns.isEmpty { writeSourceLinks(of: location, into: records, at: own, row: out) }
            records.setLocation(location, ofRow: out)
            fillChildren(of: 0, from: batch, row: row, recordsBatch: batch, recordRow: row, location: location)
        }
        return batches.map { ($0, 0..<$0.count) }
    }

    /// The rows of the child tables of `table` that row `row` of `batch` (a row of `table`) holds, and theirs.
    private func fillChildren(of table: Int, from batch: ColumnarBatch, row: Int, recordsBatch: ColumnarBatch, recordRow: Int, location: RecordLocation) {
        for child in children[table] {
            guard let elements = ElementRows(batch.columns[sourceColumns[child]], row: row), elements.failure == nil else { continue }
            let ownColumnCount = ownColumnCounts[child]
            let hasChildren = !children[child].isEmpty
            let output = batches[child]
            for element in elements.rows {
                let out = append(to: output)
                var column = 0
                if tables.keyColumns.isEmpty {
                    writeSourceLinks(of: location, into: output, at: 0, row: out)
                    column = 2
                } else {
                    for key in tables.keyColumns {
                        output.columns[column].copyValue(of: recordRow, in: recordsBatch.columns[key], to: out)
                        column += 1
                    }
                }
                for position in positions {
                    output.columns[column].write(position, row: out)
                    column += 1
                }
                // An element's ordinal is its place in the array, counted from 1.
                let position = Int64(elements.batch.ordinals[element] - 1)
                output.columns[column].write(position, row: out)
                column += 1
                for own in 0..<ownColumnCount {
                    output.columns[column + own].copyValue(of: element, in: elements.batch.columns[own], to: out)
                }
                output.setLocation(location, ofRow: out)
                if hasChildren {
                    positions.append(position)
                    fillChildren(of: child, from: elements.batch, row: element, recordsBatch: recordsBatch, recordRow: recordRow, location: location)
                    positions.removeLast()
                }
            }
        }
    }

    /// The next row of `batch`, which grows when full.
    private func append(to batch: ColumnarBatch) -> Int {
        let row = batch.count
        if row == batch.capacity { batch.grow(keeping: row) }
        batch.count = row + 1
        return row
    }

    private func writeSourceLinks(of location: RecordLocation, into batch: ColumnarBatch, at column: Int, row: Int) {
        source.withUnsafeBufferPointer { text in
            if let base = text.baseAddress {
                batch.columns[column].writeText(base, count: text.count, row: row)
            } else {
                batch.columns[column].beginText(row: row)
                batch.columns[column].endText(row: row)
            }
        }
        batch.columns[column + 1].write(Int64(location.ordinal), row: row)
    }
}
