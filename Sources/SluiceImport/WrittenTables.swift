import Sluice

/// The tables an import writes: each mapping's records' table, with its child tables after it (``MappedTables``),
/// and what turns each batch into their rows.
struct WrittenTables {
    /// Every table written, in the order the sink is given them.
    let layouts: [TableLayout]
    /// Per mapping: its records' table's place in ``layouts`` (its child tables follow it).
    let starts: [Int]
    /// Per mapping: its tables, whose rows the reader fills.
    let mapped: [MappedTables]
    /// Whether keys go into PostgreSQL, which rounds instants to microseconds (SQLite floors them, at most to seconds).
    private let roundsDatesToMicroseconds: Bool

    /// `tables` and `schemas` are the job's, one per mapping. A records' table's child tables link their rows by
    /// its upsert key, else by the mapping's `key`, else by source and ordinal, which a byte range counts from its
    /// own first record (`readsByteRange`) and so cannot link by.
    init(tables: [TableLayout], schemas: [MappingSchema], destination: Destination, readsByteRange: Bool) throws(SluiceError) {
        var layouts: [TableLayout] = []
        var starts: [Int] = []
        var mapped: [MappedTables] = []
        for (layout, schema) in zip(tables, schemas) {
            let key = layout.keyColumns.isEmpty ? schema.options.key : layout.keyColumns.map { layout.fields[$0].name }
            let tables = try MappedTables(schema: schema, key: key)
            if tables.hasChildTables && tables.keyColumns.isEmpty && readsByteRange {
                throw .invalidOptions("table \(layout.name): child tables of records without a key link by source and ordinal, and a --byte-range numbers its records from 1: give the mapping a key:, or read shards of a plan (--shard), which keep the file's ordinals")
            }
            let start = layouts.count
            starts.append(start)
            var records = layout
            records.fields = tables.tables[0].fields
            layouts.append(records)
            for table in tables.tables.dropFirst() {
                var child = TableLayout(name: table.name(records: layout.name), fields: table.fields)
                child.parent = start + (table.parent ?? 0)
                child.links = table.linkCount
                layouts.append(child)
            }
            mapped.append(tables)
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
        if case .postgres = destination { try Self.checkPostgresNames(layouts) }
        if case .ndjson(nil) = destination, layouts.count > tables.count {
            throw .invalidOptions("child tables are written to a file each, not to standard output: give a file or directory (sluice map --output-dir DIR or --output FILE, sluice import --to FILE)")
        }
        self.layouts = layouts
        self.starts = starts
        self.mapped = mapped
        roundsDatesToMicroseconds = if case .postgres = destination { true } else { false }
    }

    /// PostgreSQL cuts names longer than 63 bytes short without a word, so two long names could become one, and a
    /// table would not be found again under its name: such names are refused, tables' (and their rejections')
    /// and columns'.
    private static func checkPostgresNames(_ layouts: [TableLayout]) throws(SluiceError) {
        let limit = PostgresSink.maximumNameBytes
        for layout in layouts {
            let names = [layout.name] + (layout.parent == nil ? [layout.name + "_rejects"] : [])
            for name in names where name.utf8.count > limit {
                throw .invalidOptions("table \(name): PostgreSQL names hold at most \(limit) bytes, this one \(name.utf8.count); choose a shorter table name (--table) or field name")
            }
            for field in layout.fields where field.name.utf8.count > limit {
                throw .invalidOptions("table \(layout.name), column \(field.name): PostgreSQL names hold at most \(limit) bytes, this one \(field.name.utf8.count); rename the field")
            }
        }
    }

    /// A hash of the key of the record in `row` of `batch`, read through mapping `table`, coarser than the equality
    /// the destination applies to it: keys it may take as equal hash alike (dates to the second in SQLite, as an epoch
    /// in seconds stores them, to the microsecond PostgreSQL rounds them to; `-0.0` as `0.0`; every NaN alike; text
    /// without ASCII case), while unequal keys may hash alike too. A write is split where a key repeats, so a false
    /// match costs a split, never a child row left behind.
    func keyHash(of batch: ColumnarBatch, row: Int, table: Int) -> UInt64 {
        var hasher = FNV1a.Hasher64()
        for index in mapped[table].keyColumns {
            let column = batch.column(index)
            guard !column.isNull(row) else {
                hasher.add(0)
                continue
            }
            hasher.add(1)
            func add<Value>(_ value: Value) { withUnsafeBytes(of: value) { hasher.add($0) } }
            func addText() {
                column.withUTF8(row) { text in
                    guard let text else { return }
                    for byte in text { hasher.add(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
                    // The length ends the value, so that ("ab", "c") and ("a", "bc") differ.
                    add(text.count)
                }
            }
            // A list's column holds its JSON text, whatever its elements' type.
            guard !column.field.isList else {
                addText()
                continue
            }
            switch column.field.type {
            case .int64: add(column.int64(row) ?? 0)
            case .uint64: add(column.uint64(row) ?? 0)
            case .double:
                // PostgreSQL takes every NaN as equal, and -0.0 as 0.0.
                let value = (column.double(row) ?? 0) + 0.0
                add(value.isNaN ? Double.nan.bitPattern : value.bitPattern)
            case .date:
                let instant = column.dateNanoseconds(row) ?? 0
                add(roundsDatesToMicroseconds ? PostgresBinaryCopy.microseconds(nanoseconds: instant) : DateStorage.floored(instant, to: DateStorage.epochSeconds.unit))
            case .bool: add(column.bool(row) ?? false)
            case .string, .json, .url, .bytes, .enumeration, .decimal: addText()
            }
        }
        return hasher.value
    }

    /// The child tables of mapping `table`, as places in ``layouts``.
    func childTables(of table: Int) -> Range<Int> {
        starts[table] + 1..<(table + 1 < starts.count ? starts[table + 1] : layouts.count)
    }
}
