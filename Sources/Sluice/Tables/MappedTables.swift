/// The tables a mapping's records fill: the records' own, and one per child table (``FieldSpec/childTable``),
/// each after its parent, with the columns that link its rows to their parent's.
///
/// A child table's row starts with its links: the record's key (`key`, the fields an upsert matches on, each as
/// `_<name>`) or, without one, the input it was read from and its ordinal there (`_source`, `_record`, which the
/// records' own table then ends with); then the 0-based position of each array on the way, from the record's down
/// to the row's own element (`_hashtags_index`, or the name ``ChildTable/indexColumn`` gives). A table may name the
/// links it takes from above otherwise (``ChildTable/linkNames``). A row's parent is the row of the parent table
/// with the same links but the last. Then come the element's own columns.
public struct MappedTables: Sendable, Hashable {
    /// One table.
    public struct Table: Sendable, Hashable {
        /// The child-table fields from the record down to this table's (`["media", "sizes"]`); empty for the
        /// records' own table.
        public let fieldPath: [String]
        /// The columns: a child table's links first.
        public let fields: [FieldSpec]
        /// How many of ``fields`` link a row to its parent row (none in the records' own table).
        public let linkCount: Int
        /// The table whose rows this one's rows belong to; nil for the records' own table.
        public let parent: Int?
        /// The column of the parent's rows (in its plan) that holds this table's elements.
        let sourceColumn: Int
        /// How many of the plan's fields are the table's own columns (the child tables' fields follow them).
        let ownColumnCount: Int

        /// The table's name, given the records' table's: `tweets_hashtags`, `tweets_media_sizes`.
        public func name(records: String) -> String {
            ([records] + fieldPath).joined(separator: "_")
        }
    }

    /// The records' table first, then each child table after its parent.
    public let tables: [Table]
    /// The columns of the records' table that link its child tables' rows (the key); empty when rows are linked by
    /// source and ordinal.
    public let keyColumns: [Int]
    /// The fields of the plan the tables were made from, which a reader's plan must have.
    let planFields: [FieldSpec]

    /// Where the source link (`_source`, the ordinal `_record` after it) sits in table `table`'s rows, when rows are
    /// linked by source and ordinal: the records' table ends with them, a child table starts with them.
    func sourceLinkColumn(ofTable table: Int) -> Int? {
        guard keyColumns.isEmpty, tables.count > 1 else { return nil }
        return table == 0 ? tables[0].ownColumnCount : 0
    }

    /// Whether some field is a child table.
    public var hasChildTables: Bool { tables.count > 1 }

    /// The tables of `schema`, linked by the fields named in `key` (none: by source and ordinal).
    /// - Throws: ``SluiceError/invalidMapping(_:)`` when a key field is not a column, or a link's name is taken by
    ///   a column of the table.
    public init(schema: MappingSchema, key: [String] = []) throws(SluiceError) {
        let plan = schema.plan
        let ownCount = plan.fields.count - plan.childTableColumns.count
        var keyColumns: [Int] = []
        var problems: [MappingProblem] = []
        for name in key {
            guard let column = plan.fields[..<ownCount].firstIndex(where: { $0.name == name }) else {
                problems.append(MappingProblem(field: name, message: "the key \(name) is not a column of the records' table"))
                continue
            }
            let field = plan.fields[column]
            // Child rows carry the key as a plain value, and a record without one could not be told apart.
            if !plan.childTableColumns.isEmpty && (field.isList || field.type.keepsJSONText || (field.isOptional && field.defaultValue == nil)) {
                let what = field.isList ? "a list" : field.type.keepsJSONText ? "json" : "optional"
                problems.append(MappingProblem(field: name, message: "the key \(name) is \(what): child tables' rows link to their record by a required value; key the records by a required field"))
            }
            keyColumns.append(column)
        }
        var records = Array(plan.fields[..<ownCount])
        var rootLinks: [FieldSpec]
        if keyColumns.isEmpty {
            rootLinks = [FieldSpec(name: Self.sourceColumn, type: .string), FieldSpec(name: Self.recordColumn, type: .int64)]
            if !plan.childTableColumns.isEmpty { records += rootLinks }
        } else {
            rootLinks = keyColumns.map { column in
                var link = FieldSpec(name: "_" + plan.fields[column].name, type: plan.fields[column].type, isOptional: plan.fields[column].isOptional)
                link.enumValues = plan.fields[column].enumValues
                // An enum's default decides how its values are stored (``FieldSpec/enumStoredKind``).
                link.defaultValue = plan.fields[column].defaultValue
                link.dateFormats = plan.fields[column].dateFormats
                link.decimalFormat = plan.fields[column].decimalFormat
                return link
            }
        }
        var tables = [Table(fieldPath: [], fields: records, linkCount: 0, parent: nil, sourceColumn: -1, ownColumnCount: ownCount)]
        Self.addChildren(of: plan, parent: 0, links: rootLinks, into: &tables, problems: &problems)
        for table in tables where tables.count > 1 {
            var seen: Set<String> = []
            for field in table.fields where !seen.insert(field.name).inserted {
                let message = table.parent == nil
                    ? "the column \(field.name) is also one of the links of the child tables' rows; rename the field, or give the records a key"
                    : "child table \(table.fieldPath.joined(separator: ".")): the column \(field.name) is also one of the links to its parent's row; rename the field (or the index column with `index`)"
                problems.append(MappingProblem(field: table.fieldPath.isEmpty ? field.name : table.fieldPath.joined(separator: "."), message: message))
            }
        }
        guard problems.isEmpty else { throw .invalidMapping(problems) }
        self.tables = tables
        self.keyColumns = keyColumns
        planFields = plan.fields
    }

    private static func addChildren(of plan: CompiledPlan, parent: Int, links: [FieldSpec], into tables: inout [Table], problems: inout [MappingProblem]) {
        for column in plan.childTableColumns {
            let field = plan.fields[column]
            guard let table = field.childTable, let elements = field.elementPlan as? CompiledPlan else { continue }
            let indexName = table.indexColumn ?? "_\(field.name)_index"
            let path = (tables[parent].fieldPath + [field.name]).joined(separator: ".")
            for name in table.linkNames.keys.sorted() where !links.contains(where: { $0.name == name }) {
                let known = links.map(\.name).joined(separator: ", ")
                problems.append(MappingProblem(field: path, message: "child table \(path): 'links' renames \(name), which is not one of the links it takes from above (\(known))"))
            }
            let inherited = links.map { link in
                var renamed = link
                renamed.name = table.linkNames[link.name] ?? link.name
                return renamed
            }
            let ownLinks = inherited + [FieldSpec(name: indexName, type: .int64)]
            let ownCount = elements.fields.count - elements.childTableColumns.count
            tables.append(Table(fieldPath: tables[parent].fieldPath + [field.name], fields: ownLinks + elements.fields[..<ownCount], linkCount: ownLinks.count,
                                parent: parent, sourceColumn: column, ownColumnCount: ownCount))
            addChildren(of: elements, parent: tables.count - 1, links: ownLinks, into: &tables, problems: &problems)
        }
    }

    /// The link of rows whose records have no key that names the input, as it was named to the import.
    public static let sourceColumn = "_source"
    /// The link of rows whose records have no key that gives the record's ordinal in its input, from 1.
    public static let recordColumn = "_record"
}
