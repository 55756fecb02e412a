/// Options of a mapping as a whole.
public struct MappingOptions: Sendable, Hashable {
    /// What a key that no field reads does to its record.
    public enum UnmappedKeys: String, Sendable, Hashable {
        /// Nothing: the key is skipped (and counted, see ``ColumnarReader/unmappedKeys``).
        case ignore
        /// The record is rejected, naming the key (strict mode).
        case reject
    }

    /// What keys no field reads do; ignored by default.
    public var unmappedKeys: UnmappedKeys
    /// Key paths the mapping knows it does not read: never counted as unmapped, never rejected in strict mode.
    public var ignoredPaths: [String]
    /// How fields without a path name their key: by default the key is the field's name as it is.
    public var naming: NamingConvention?
    /// Where the records sit when the input is one wrapper document: the key path of the array whose elements
    /// are the records (`statuses`), or of the object whose member values are (`events`; each member's key is then
    /// the field source `$key`). Everything else in the document is skipped as it streams past.
    public var recordsPath: String?
    /// Records at the start of the input that are not data (a title, a comment line): read, then passed over
    /// without an ordinal; they are neither mapped nor rejected.
    public var skippedRecords: Int
    /// The records are arrays (CSV-like rows) and the first one after the skipped records is a header naming
    /// the columns: key paths then start with a column name (`price`, `seller.name`) instead of an index, as if
    /// each row were an object of header name to value. The header is not a record.
    public var columnsFromHeader: Bool
    /// Input values that mean null in every field that does not list its own (``FieldSpec/nullSpellings``):
    /// `[.string(""), .string("N/A")]`.
    public var nullSpellings: [JSONValue]
    /// The fields that identify a record (`key:` in a mapping file): an import into a database upserts on them as
    /// `--key` does (which replaces them), and child tables' rows link to their record by them
    /// (``MappedTables``). Empty: records have no key.
    public var key: [String] = []

    /// Options; the defaults ignore unmapped keys, take keys as named, read top-level records, all of them, and
    /// know no null spellings but `null`.
    public init(
        unmappedKeys: UnmappedKeys = .ignore, ignoredPaths: [String] = [], naming: NamingConvention? = nil, recordsPath: String? = nil,
        skippedRecords: Int = 0, columnsFromHeader: Bool = false, nullSpellings: [JSONValue] = []
    ) {
        self.nullSpellings = nullSpellings
        self.unmappedKeys = unmappedKeys
        self.ignoredPaths = ignoredPaths
        self.naming = naming
        self.recordsPath = recordsPath
        self.skippedRecords = skippedRecords
        self.columnsFromHeader = columnsFromHeader
    }
}

/// How a field's name becomes the key it reads when it has no explicit path.
public enum NamingConvention: Sendable, Hashable {
    /// camelCase names read snake_case keys (`idStr` reads `id_str`, `createdTimeAt` reads `created_time_at`,
    /// `userID` reads `user_id`), with `separator` between words (`"_"`; `"-"` for kebab-case keys).
    case snakeCase(separator: String = "_")

    /// The key for a field named `name`.
    public func key(forName name: String) -> String {
        switch self {
        case .snakeCase(let separator):
            // Words start at an upper-case letter after a lower-case letter or digit, and at the last upper-case
            // letter of a run that a lower-case letter follows (`URLString` → `url`, `string`).
            let characters = Array(name)
            var key = ""
            for (index, character) in characters.enumerated() {
                if character.isUppercase && index > 0 {
                    let previous = characters[index - 1]
                    let next = index + 1 < characters.count ? characters[index + 1] : nil
                    if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                        key += separator
                    }
                }
                key += character.lowercased()
            }
            return key
        }
    }
}
