import Sluice

/// The tables an import writes: each mapping's records' table, with its child tables after it (``MappedTables``),
/// and what turns each batch into their rows.
struct WrittenTables {
    /// Every table written, in the order the sink is given them.
    let layouts: [TableLayout]
    /// Per mapping: its records' table's place in ``layouts`` (its child tables follow it).
    let starts: [Int]
    /// Per mapping: what fills its tables' rows.
    let rows: [TableRows]

    /// `tables` and `schemas` are the job's, one per mapping. A records' table's child tables link their rows by
    /// its upsert key, else by the mapping's `key`, else by source and ordinal, which a byte range counts from its
    /// own first record (`readsByteRange`) and so cannot link by.
    init(tables: [TableLayout], schemas: [MappingSchema], destination: Destination, readsByteRange: Bool) throws(SluiceError) {
        var layouts: [TableLayout] = []
        var starts: [Int] = []
        var rows: [TableRows] = []
        for (layout, schema) in zip(tables, schemas) {
            let key = layout.keyColumns.isEmpty ? schema.options.key : layout.keyColumns.map { layout.fields[$0].name }
            let mapped = try MappedTables(schema: schema, key: key)
            if mapped.hasChildTables && mapped.keyColumns.isEmpty && readsByteRange {
                throw .invalidOptions("table \(layout.name): child tables of records without a key link by source and ordinal, and a --byte-range numbers its records from 1: give the mapping a key:, or read shards of a plan (--shard), which keep the file's ordinals")
            }
            if mapped.hasChildTables, !layout.keyColumns.isEmpty, case .postgres = destination {
                throw .invalidOptions("table \(layout.name): upserts on a key (--key, or the mapping's key:) with child tables go into SQLite only for now; into PostgreSQL, import with a mapping without key: (child rows then link by source and ordinal)")
            }
            let start = layouts.count
            starts.append(start)
            var records = layout
            records.fields = mapped.tables[0].fields
            layouts.append(records)
            for table in mapped.tables.dropFirst() {
                var child = TableLayout(name: table.name(records: layout.name), fields: table.fields)
                child.parent = start + (table.parent ?? 0)
                child.links = table.linkCount
                layouts.append(child)
            }
            rows.append(TableRows(mapped))
        }
        // A database also holds each records' table's rejections and the checkpoints under names of their own.
        var taken: [String: String] = [:]
        if destination.keepsCheckpoints {
            taken["_sluice_checkpoints"] = "the checkpoints"
            for layout in layouts where layout.parent == nil { taken[layout.name + "_rejects"] = "the rejections of table \(layout.name)" }
        }
        for layout in layouts {
            if let other = taken[layout.name] {
                throw .invalidOptions("two tables would be named \(layout.name): \(layout.parent == nil ? "a records' table" : "a child table") and \(other); rename the field or the table (--table)")
            }
            taken[layout.name] = layout.parent == nil ? "a records' table" : "a child table"
        }
        if case .ndjson(nil) = destination, layouts.count > tables.count {
            throw .invalidOptions("child tables are written to a file each, not to standard output: give a file or directory (sluice map --output-dir DIR or --output FILE, sluice import --to FILE)")
        }
        self.layouts = layouts
        self.starts = starts
        self.rows = rows
    }

    /// The child tables of mapping `table`, as places in ``layouts``.
    func childTables(of table: Int) -> Range<Int> {
        starts[table] + 1..<(table + 1 < starts.count ? starts[table + 1] : layouts.count)
    }
}
