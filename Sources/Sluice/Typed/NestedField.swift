/// Nested models: a property whose value is itself a mapped model, read from an object at a key path or
/// aggregated from keys of the record itself.
extension Field {
    /// A nested model read from the object at `path` with its own mapping (reusable across parents).
    ///
    /// ```swift
    /// Field("coordinates", \.point, mapping: pointMapping)     // {"coordinates": {"latitude": …, "longitude": …}}
    /// ```
    ///
    /// - Parameter factory: Makes the nested instance from the parent as mapped so far (the fields declared
    ///   before this one), instead of the nested mapping's own `makeModel`.
    public init<Nested>(
        _ path: String, _ keyPath: WritableKeyPath<Model, Nested> & Sendable, mapping: Mapping<Nested>,
        factory: (@Sendable (Model) -> Nested)? = nil
    ) {
        self.init(nestedAt: path, keyPath, clear: nil, mapping: mapping, factory: factory) { $0 }
    }

    /// An optional nested model: nil when none of its keys is present (an object of nothing is absent, not empty).
    public init<Nested>(
        _ path: String, _ keyPath: WritableKeyPath<Model, Nested?> & Sendable, mapping: Mapping<Nested>,
        factory: (@Sendable (Model) -> Nested)? = nil
    ) {
        self.init(nestedAt: path, keyPath, clear: { $0[keyPath: keyPath] = nil }, mapping: mapping, factory: factory) { $0 }
    }

    /// A nested model aggregated from keys of this record (`latitude` and `longitude` → `point`); aggregations
    /// compose, since a nested mapping may aggregate too.
    ///
    /// A static function rather than an initialiser: an initialiser taking any key path would make the compiler's
    /// message for a misspelled property in any field a list of candidates instead of the missing member's name.
    public static func aggregating<Nested>(_ keyPath: WritableKeyPath<Model, Nested> & Sendable, mapping: Mapping<Nested>) -> Field {
        Field(nestedAt: nil, keyPath, clear: nil, mapping: mapping) { $0 }
    }

    /// An optional aggregated nested model: nil when none of its keys is present.
    public static func aggregating<Nested>(_ keyPath: WritableKeyPath<Model, Nested?> & Sendable, mapping: Mapping<Nested>) -> Field {
        Field(nestedAt: nil, keyPath, clear: { $0[keyPath: keyPath] = nil }, mapping: mapping) { $0 }
    }

    private init<Nested, Stored>(
        nestedAt prefix: String?, _ keyPath: WritableKeyPath<Model, Stored> & Sendable, clear: (@Sendable (inout Model) -> Void)?, mapping: Mapping<Nested>,
        factory: (@Sendable (Model) -> Nested)? = nil, wrap: @escaping @Sendable (Nested) -> Stored
    ) {
        self.keyPath = keyPath
        let isOptional = clear != nil
        let prefixSegments = prefix.flatMap { try? FieldPath(parsing: $0) }?.segments ?? []
        // The nested mapping's columns, moved under the prefix. Inside an optional nested model every column is
        // optional (its absence is the model's); required ones are checked when the model is present.
        let columns: [FieldSpec] = mapping.plan.fields.map { nested in
            var column = nested
            let inner = (try? FieldPath(parsing: nested.resolvedPath(naming: nil)))?.segments ?? []
            let segments = prefixSegments + inner
            column.path = segments.isEmpty ? "$" : segments.map { FieldPath.escaped(key: String(decoding: $0.key, as: UTF8.self)) }.joined(separator: ".")
            column.propertyPath = nil
            column.name = "\(keyPath)/\(nested.name)"
            if isOptional {
                column.isOptional = true
                column.defaultValue = nil
                column.validators.removeAll { $0 == .required }
            }
            return column
        }
        let required = mapping.plan.fields.indices.filter { !mapping.plan.fields[$0].isOptional && mapping.plan.fields[$0].defaultValue == nil }
        let displayPaths = columns.map { column in (try? FieldPath(parsing: column.path ?? "$"))?.description ?? "$" }
        let count = columns.count
        spec = columns.first ?? FieldSpec(name: "\(keyPath)", path: prefix, type: .json, isOptional: true)
        nestedColumns = columns
        writer = .nested { model, storage, row in
            let isPresent = (0..<count).contains { storage[$0].isValid(row) }
            if let clear, !isPresent {
                clear(&model)
                return []
            }
            var failures: [Rejection.Failure] = []
            if isOptional {
                for column in required where !storage[column].isValid(row) {
                    failures.append(Rejection.Failure(keyPath: displayPaths[column], kind: .missing, expected: mapping.plan.fields[column].type.description, found: "no value"))
                }
            }
            var nested = factory?(model) ?? mapping.makeModel()
            failures += mapping.writeFields(into: &nested, columns: storage, row: row, paths: displayPaths)
            if failures.isEmpty, let finish = mapping.finish {
                do { try finish(&nested) } catch {
                    failures.append(Rejection.Failure(keyPath: prefix.map { (try? FieldPath(parsing: $0))?.description ?? $0 } ?? "$", kind: .custom, expected: "finishing hook", found: "\(error)"))
                }
            }
            if failures.isEmpty { model[keyPath: keyPath] = wrap(nested) }
            return failures
        }
        update = { model, storage, row in
            // A nested model present in the record replaces the one in the model (reported as changed).
            guard (0..<count).contains(where: { storage[$0].isValid(row) }) else { return false }
            var nested = mapping.makeModel()
            guard mapping.writeFields(into: &nested, columns: storage, row: row, paths: displayPaths).isEmpty else { return false }
            model[keyPath: keyPath] = wrap(nested)
            return true
        }
        encodedValues = { model in
            guard let nested = model[keyPath: keyPath] as? Nested else { return Array(repeating: nil, count: count) }
            return mapping.fields.flatMap { $0.encodedValues(nested) }
        }
    }
}
