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

    public init(name: String, fields: [FieldSpec], keyColumns: [Int] = []) {
        self.name = name
        self.fields = fields
        self.keyColumns = keyColumns
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
