/// The tables a reader was asked to fill each batch's ``ColumnarBatch/tables`` with: per mapping it reads (one, or
/// one per records path), its tables (nil: its batches carry none), and the input's name, which rows of records
/// without a key link by (its path, `-` for standard input).
struct TablesToFill: Sendable, Hashable {
    let tables: [MappedTables?]
    let source: String

    /// The tables of the mapping at `index`, if it was given any.
    func tables(ofMapping index: Int) -> MappedTables? {
        index < tables.count ? tables[index] : nil
    }

    /// What fills the tables of the mapping at `index`, if it was given any.
    func rows(ofMapping index: Int) -> TableRows? {
        tables(ofMapping: index).map { TableRows($0, source: source) }
    }

    /// Refuses tables made from a schema other than the reader's: their columns would not be the batches'.
    static func check(_ tables: MappedTables, against plan: CompiledPlan, schema index: Int? = nil) throws(SluiceError) {
        guard tables.planFields == plan.fields else {
            throw .invalidOptions("the tables\(index.map { " of schema \($0 + 1)" } ?? "") were made from another schema than the one read: make them with MappedTables(schema:key:) from the same schema")
        }
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
