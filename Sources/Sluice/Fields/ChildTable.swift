/// What makes a field's array a table of its own: one row per element, linked to the record's row, instead of one
/// column holding the array.
///
/// Each row is read from one element by ``fields``, as a record is read by a mapping's fields: an object's keys, or
/// `$` for an element that is a value (``values(_:isOptional:)``). A field of ``fields`` may be a child table in
/// turn, to any depth. A record is all or nothing across its tables: an element that does not map rejects the
/// record, naming the element (`$.entities.hashtags[3].text`), and none of its rows are written anywhere. A missing
/// array, `null`, or an empty array gives no rows; a `null` element gives no row (the positions of the elements
/// after it still count it).
///
/// The field's column in a ``ColumnarBatch`` holds where its rows lie, not a value to read: read every table's
/// rows from a reader given ``MappedTables`` (``ColumnarBatch/tables``).
///
/// A table's rows carry what links them to their parent's row (``MappedTables``): the record's key, or its source
/// and ordinal, then the position of each array on the way, from the record's down to the element's own.
public struct ChildTable: Sendable, Hashable {
    /// The columns of an element's row, read from the element.
    public var fields: [FieldSpec]
    /// The name of the column holding the element's 0-based position in its array; nil names it after the field
    /// (`_hashtags_index`). Tables beneath this one name it so too.
    public var indexColumn: String?
    /// New names for the links this table's rows take from the tables above (``MappedTables``), by the names they
    /// would have: `["_id": "tweet_id", "_hashtags_index": "hashtag"]`. Tables beneath this one take them too.
    public var linkNames: [String: String]

    /// A table whose rows `fields` read from each element.
    public init(fields: [FieldSpec], indexColumn: String? = nil, linkNames: [String: String] = [:]) {
        self.fields = fields
        self.indexColumn = indexColumn
        self.linkNames = linkNames
    }

    /// A table of an array of values: each element one row with one column, `value`, of `type`.
    public static func values(_ type: FieldType, isOptional: Bool = false) -> ChildTable {
        ChildTable(fields: [FieldSpec(name: valueColumn, path: "$", type: type, isOptional: isOptional)])
    }

    /// The column of a table of values.
    public static let valueColumn = "value"
}
