/// Fills a batch's ``ColumnarBatch/tables`` with the rows of every table of ``MappedTables``: the records' table's
/// rows, and each child table's, with their links filled in. Readers asked for the tables fill each batch in the
/// engine that mapped it (on a worker's thread when the run has threads of its own), so that the thread taking the
/// batches (an import's writer) only writes them.
///
/// Made once per engine and reused; the rows' batches belong to the batch they were filled for, and are refilled
/// with it.
final class TableRows {
    /// The tables whose rows it fills.
    let tables: MappedTables
    /// The input's name, which rows link by when their records have no key.
    private let source: [UInt8]
    /// Per table, its child tables.
    private let children: [[Int]]
    /// Per table, what a row is copied with, read once: every `MappedTables.Table` read costs reference counting.
    private let sourceColumns: [Int]
    private let ownColumnCounts: [Int]
    /// The positions of the arrays on the way down to the element being copied.
    private var positions: [Int64] = []

    /// Fills the rows of `tables`, linking rows of records without a key by `source`, the input's name.
    init(_ tables: MappedTables, source: String) {
        self.tables = tables
        self.source = Array(source.utf8)
        children = tables.tables.indices.map { table in tables.tables.indices.filter { tables.tables[$0].parent == table } }
        sourceColumns = tables.tables.map(\.sourceColumn)
        ownColumnCounts = tables.tables.map(\.ownColumnCount)
        positions.reserveCapacity(tables.tables.count)
    }

    /// Fills `batch.tables` from the batch's records (its committed ones: an element batch also holds the rows of
    /// records rejected after their arrays were read). The batch is new or reset (``ColumnarBatch/reset()`` empties
    /// its tables too), as every batch an engine fills is.
    func fill(_ batch: ColumnarBatch) {
        if batch.tables.isEmpty {
            batch.tables = tables.tables.map { ColumnarBatch(fields: $0.fields, capacity: ColumnarBatch.initialElementCapacity, holdsElementRows: false) }
            batch.tableRowStarts = tables.tables.map { _ in [] }
        }
        for table in batch.tableRowStarts.indices.dropFirst() { batch.tableRowStarts[table].reserveCapacity(batch.count + 1) }
        let records = batch.tables[0]
        let own = ownColumnCounts[0]
        for row in 0..<batch.count {
            for table in batch.tableRowStarts.indices.dropFirst() { batch.tableRowStarts[table].append(batch.tables[table].count) }
            let location = batch.location(ofRow: row)
            let out = append(to: records)
            for column in 0..<own { records.columns[column].copyValue(of: row, in: batch.columns[column], to: out) }
            if let links = tables.sourceLinkColumn(ofTable: 0) { writeSourceLinks(of: location, into: records, at: links, row: out) }
            records.setLocation(location, ofRow: out)
            fillChildren(of: 0, from: batch, row: row, into: batch.tables, recordsBatch: batch, recordRow: row, location: location)
        }
        for table in batch.tableRowStarts.indices.dropFirst() { batch.tableRowStarts[table].append(batch.tables[table].count) }
    }

    /// Numbers the rows of `batch.tables` (filled for `tables`) on by `ordinals` records and `lines` lines, as the
    /// batch's own rows are when a pipeline hands out a worker's batch: their locations, and the ordinals rows link by.
    static func renumber(_ batch: ColumnarBatch, of tables: MappedTables, ordinalsBy ordinals: Int, linesBy lines: Int) {
        for (index, table) in batch.tables.enumerated() {
            for row in 0..<table.count {
                table.ordinals[row] += ordinals
                table.lines[row] += lines
            }
            guard let links = tables.sourceLinkColumn(ofTable: index) else { continue }
            let column = table.columns + links + 1
            for row in 0..<table.count {
                column.pointee.write(column.pointee.values.load(fromByteOffset: row * 8, as: Int64.self) + Int64(ordinals), row: row)
            }
        }
    }

    /// The rows of the child tables of `table` that row `row` of `batch` (a row of `table`) holds, and theirs.
    private func fillChildren(of table: Int, from batch: ColumnarBatch, row: Int, into outputs: [ColumnarBatch], recordsBatch: ColumnarBatch, recordRow: Int,
                              location: RecordLocation) {
        for child in children[table] {
            guard let elements = ElementRows(batch.columns[sourceColumns[child]], row: row), elements.failure == nil else { continue }
            let ownColumnCount = ownColumnCounts[child]
            let hasChildren = !children[child].isEmpty
            let output = outputs[child]
            for element in elements.rows {
                let out = append(to: output)
                var column = 0
                if let links = tables.sourceLinkColumn(ofTable: child) {
                    writeSourceLinks(of: location, into: output, at: links, row: out)
                    column = links + 2
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
                    fillChildren(of: child, from: elements.batch, row: element, into: outputs, recordsBatch: recordsBatch, recordRow: recordRow, location: location)
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
