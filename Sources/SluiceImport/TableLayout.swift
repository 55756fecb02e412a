import Sluice

/// One table of an import: its name, the mapping's fields as columns, and the key an upsert matches rows on.
public struct TableLayout: Sendable {
    /// The table's name (for files, part of the file name).
    public var name: String
    /// The columns, in order.
    public var fields: [FieldSpec]
    /// The positions in ``fields`` of the key columns (`--key`), empty for plain inserts.
    public var keyColumns: [Int]
    /// For a child table (see ``MappedTables``): the table its rows belong to, among the tables written, and how
    /// many of its first columns link each row to its parent's row. An import makes these from its mappings.
    var parent: Int?
    var links = 0

    /// A table named `name` with `fields` as its columns, its rows upserted on the columns at `keyColumns`.
    public init(name: String, fields: [FieldSpec], keyColumns: [Int] = []) {
        self.name = name
        self.fields = fields
        self.keyColumns = keyColumns
    }
}

extension [TableLayout] {
    /// The records' table that table `index` belongs to (itself for a records' table).
    func recordsTable(of index: Int) -> Int {
        var table = index
        while let parent = self[table].parent { table = parent }
        return table
    }

    /// Whether table `index` is a child table beneath a keyed records' table, whose rows' first links are that key.
    func isKeyedChild(_ index: Int) -> Bool {
        self[index].parent != nil && !self[recordsTable(of: index)].keyColumns.isEmpty
    }

    /// The foreign-key clause of table `index` when its parent is keyed (its first links are that key), with names
    /// as `quoted` writes them; nil otherwise. A database checks it where it checks foreign keys.
    func foreignKey(of index: Int, quoted: (String) -> String) -> String? {
        guard let parent = self[index].parent, case let keys = self[parent].keyColumns, !keys.isEmpty else { return nil }
        let links = self[index].fields.prefix(keys.count).map { quoted($0.name) }
        let referenced = keys.map { quoted(self[parent].fields[$0].name) }
        return "FOREIGN KEY (" + links.joined(separator: ", ") + ") REFERENCES " + quoted(self[parent].name) + " (" + referenced.joined(separator: ", ") + ")"
    }
}

/// How dates are stored in a database that has no date type (SQLite).
public enum DateStorage: String, Sendable, CaseIterable {
    /// RFC 3339 text in UTC (`2021-03-04T05:06:07.5Z`), which SQLite's date functions read.
    case text
    /// Whole seconds since 1970 (an instant within a second is floored to it).
    case epochSeconds = "epoch-s"
    /// Milliseconds since 1970 (floored).
    case epochMilliseconds = "epoch-ms"
    /// Nanoseconds since 1970: exact.
    case epochNanoseconds = "epoch-ns"

    /// `nanoseconds` in whole `unit`s (nanoseconds per unit), floored: an instant before 1970 stays before the unit
    /// it falls in.
    static func floored(_ nanoseconds: Int64, to unit: Int64) -> Int64 {
        nanoseconds >= 0 ? nanoseconds / unit : -((-(nanoseconds + 1)) / unit) - 1
    }

    /// Nanoseconds per stored unit.
    var unit: Int64 {
        switch self {
        case .text, .epochNanoseconds: 1
        case .epochMilliseconds: 1_000_000
        case .epochSeconds: 1_000_000_000
        }
    }
}
