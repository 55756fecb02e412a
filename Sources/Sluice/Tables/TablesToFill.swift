/// The tables a reader was asked to fill each batch's ``ColumnarBatch/tables`` with: per mapping it reads (one, or
/// one per records path), its tables, and the input's name, which rows of records without a key link by (its path,
/// `-` for standard input).
struct TablesToFill: Sendable, Hashable {
    let tables: [MappedTables]
    let source: String

    /// What fills the tables of the mapping at `index`, when it has child tables.
    func rows(ofMapping index: Int) -> TableRows? {
        guard index < tables.count, tables[index].hasChildTables else { return nil }
        return TableRows(tables[index], source: source)
    }

    /// The name rows link by for `input`: the name an import gives it.
    static func linkName(of input: Input) -> String {
        switch input {
        case .file(let path): path
        case .standardInput: "-"
        case .bytes(_, let name): name
        }
    }
}
