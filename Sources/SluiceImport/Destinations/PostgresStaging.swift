import Sluice

/// How rows with a key reach PostgreSQL: `COPY` cannot upsert, so a keyed records' table's rows, and the rows of its
/// child tables at every depth, are copied into temporary staging tables and merged at each commit. The last row of
/// a key wins; every child row whose links hold a merged key is deleted, and the winning record's child rows are
/// inserted, so a replaced record takes its child rows with it, as in SQLite.
///
/// A child row names its record by the key it links with and the run it was written in: the importer writes a keyed
/// table's rows in runs without a repeated key, each followed by the runs' child rows (``Importer``), so a key and a
/// run tell one record, whichever of several records with that key in one transaction wins.
struct PostgresStaging {
    private let tables: [TableLayout]
    /// Per table: the keyed records' table it is merged under (itself for one), or nil for a table copied straight in.
    private let keyedRecords: [Int?]

    init(tables: [TableLayout]) {
        self.tables = tables
        keyedRecords = tables.indices.map { index in
            let records = tables.recordsTable(of: index)
            return tables[records].keyColumns.isEmpty ? nil : records
        }
    }

    /// Whether the rows of `table` go through its staging table.
    func isStaged(_ table: Int) -> Bool { keyedRecords[table] != nil }

    /// Whether `table` is a keyed records' table, whose rows carry their number and run besides their run.
    func numbersRows(_ table: Int) -> Bool { keyedRecords[table] == table }

    /// The staging table of `table`: named by its place, as the session's temporary tables are its own and a
    /// table's name can be as long as PostgreSQL allows.
    func stagingName(_ table: Int) -> String { PostgresSink.quoted("_sluice_staging_\(table)") }

    /// The columns a staged row has besides the table's: the row's number (the last of a key wins) and the run.
    func extraColumns(_ table: Int) -> [String] {
        numbersRows(table) ? ["_sluice_row", "_sluice_run"] : isStaged(table) ? ["_sluice_run"] : []
    }

    /// Creates the staging table of `table`, if it is staged.
    func creation(_ table: Int) -> String? {
        guard isStaged(table) else { return nil }
        let extra = extraColumns(table).map { "\($0) bigint" }.joined(separator: ", ")
        return "CREATE TEMPORARY TABLE IF NOT EXISTS \(stagingName(table)) (LIKE \(PostgresSink.quoted(tables[table].name)), \(extra))"
    }

    /// What a commit runs, in order, with what each does for its error: per keyed records' table, its child rows of
    /// merged keys out, the records upserted, the winning records' child rows in, the staging tables emptied.
    func merges() -> [(sql: String, doing: String)] {
        var statements: [(sql: String, doing: String)] = []
        for records in tables.indices where numbersRows(records) {
            let layout = tables[records]
            let names = layout.fields.map { PostgresSink.quoted($0.name) }
            let keys = layout.keyColumns.map { names[$0] }
            let children = tables.indices.filter { $0 != records && keyedRecords[$0] == records }
            let staging = stagingName(records)
            // A child's first links are its records' key, in the key's order.
            func matches(_ child: Int, _ childAlias: String, _ recordsAlias: String) -> String {
                zip(tables[child].fields.prefix(keys.count), keys).map {
                    "\(childAlias).\(PostgresSink.quoted($0.0.name)) = \(recordsAlias).\($0.1)"
                }.joined(separator: " AND ")
            }
            for child in children {
                statements.append(("DELETE FROM \(PostgresSink.quoted(tables[child].name)) c USING \(staging) s WHERE " + matches(child, "c", "s"),
                                   "cannot take out the replaced rows of \(tables[child].name)"))
            }
            let others = layout.fields.indices.filter { !layout.keyColumns.contains($0) }.map { names[$0] }
            var upsert = "INSERT INTO \(PostgresSink.quoted(layout.name)) (" + names.joined(separator: ", ") + ") SELECT DISTINCT ON ("
            upsert += keys.joined(separator: ", ") + ") " + names.joined(separator: ", ") + " FROM \(staging) ORDER BY "
            upsert += keys.joined(separator: ", ") + ", _sluice_row DESC ON CONFLICT (" + keys.joined(separator: ", ") + ") DO "
            upsert += others.isEmpty ? "NOTHING" : "UPDATE SET " + others.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
            statements.append((upsert, "cannot merge the rows of \(layout.name) on its key"))
            let winners = "(SELECT DISTINCT ON (" + keys.joined(separator: ", ") + ") " + keys.joined(separator: ", ") + ", _sluice_run FROM \(staging) ORDER BY "
                + keys.joined(separator: ", ") + ", _sluice_row DESC) w"
            for child in children {
                let columns = tables[child].fields.map { PostgresSink.quoted($0.name) }
                var insert = "INSERT INTO \(PostgresSink.quoted(tables[child].name)) (" + columns.joined(separator: ", ") + ") SELECT "
                insert += columns.map { "c.\($0)" }.joined(separator: ", ") + " FROM \(stagingName(child)) c JOIN \(winners) ON "
                insert += matches(child, "c", "w") + " AND c._sluice_run = w._sluice_run"
                statements.append((insert, "cannot merge the rows of \(tables[child].name)"))
            }
            for table in [records] + children {
                statements.append(("TRUNCATE \(stagingName(table))", "cannot empty the staging table of \(tables[table].name)"))
            }
        }
        return statements
    }
}
