/// A nested model inside a parent's record: the nested mapping's columns moved under the parent's key path, and
/// how a nested value is made from them. Shared by nested fields and nested initialiser arguments.
struct NestedModel<Nested>: Sendable {
    let mapping: Mapping<Nested>
    /// The nested mapping's columns, under the prefix. Inside an optional nested model every column is optional
    /// (its absence is the model's); required ones are checked when the model is present.
    let columns: [FieldSpec]
    let isOptional: Bool
    /// The prefix as rejections show it, for a finishing hook's refusal.
    private let displayPrefix: String
    /// The nested mapping's columns that need a value when the model is present.
    private let required: [Int]

    init(mapping: Mapping<Nested>, under prefix: String?, isOptional: Bool, name: String) {
        self.mapping = mapping
        self.isOptional = isOptional
        let prefixSegments = prefix.flatMap { try? FieldPath(parsing: $0) }?.segments ?? []
        columns = mapping.plan.fields.map { nested in
            var column = nested
            let inner = (try? FieldPath(parsing: nested.resolvedPath(naming: nil)))?.segments ?? []
            let segments = prefixSegments + inner
            column.path = segments.isEmpty ? "$" : segments.map { FieldPath.escaped(key: String(decoding: $0.key, as: UTF8.self)) }.joined(separator: ".")
            column.propertyPath = nil
            column.name = "\(name)/\(nested.name)"
            if isOptional {
                column.isOptional = true
                column.defaultValue = nil
                column.validators.removeAll { $0 == .required }
            }
            return column
        }
        required = mapping.plan.fields.indices.filter { !mapping.plan.fields[$0].isOptional && mapping.plan.fields[$0].defaultValue == nil }
        displayPrefix = prefix.map { (try? FieldPath(parsing: $0))?.description ?? $0 } ?? "$"
    }

    /// Whether any of the nested model's keys is in the row.
    func isPresent(_ storage: UnsafeMutablePointer<ColumnStorage>, row: Int) -> Bool {
        (0..<columns.count).contains { storage[$0].isValid(row) }
    }

    /// The nested value of the row whose columns start at `storage`: nil for an optional model none of whose keys
    /// is present. `paths` name the columns as the record's root sees them (`$.user.name`; a parent nested in
    /// another passes its own); `seed` makes the value a property mapping writes into (instead of `makeModel`).
    func value(
        _ storage: UnsafeMutablePointer<ColumnStorage>, row: Int, paths: ArraySlice<String>, seed: Nested? = nil
    ) -> Result<Nested?, RefusedValues> {
        if isOptional && !isPresent(storage, row: row) { return .success(nil) }
        if isOptional {
            // The mapping would name these again: the model is refused before it is made.
            let missing = required.filter { !storage[$0].isValid(row) }.map { column in
                Rejection.Failure(keyPath: paths[offset: column], kind: .missing, expected: mapping.plan.fields[column].shownTypeName, found: "no value")
            }
            if !missing.isEmpty { return .failure(RefusedValues(missing)) }
        }
        return mapping.makeModel(columns: storage, row: row, paths: paths, seed: seed, hookPath: displayPrefix).map { $0 }
    }

    /// The nested value's field values, for writing it back as JSON.
    func encodedValues(_ nested: Nested?) -> [FieldValue?] {
        guard let nested else { return Array(repeating: nil, count: columns.count) }
        return mapping.fields.flatMap { $0.encodedValues(nested) }
    }
}

/// The values of one record that were refused while its model was made, each naming its key path.
struct RefusedValues: Error {
    var failures: [Rejection.Failure]
    init(_ failures: [Rejection.Failure]) { self.failures = failures }
}
