/// Nested models: a property whose value is itself a mapped model, read from an object at a key path or
/// aggregated from keys of the record itself.
extension Field {
    /// A nested model read from the object at `path` with its own mapping (reusable across parents).
    ///
    /// ```swift
    /// Field("coordinates", \.point, mapping: pointMapping)     // {"coordinates": {"latitude": …, "longitude": …}}
    /// ```
    ///
    /// - Parameters:
    ///   - path: The key path of the object the nested model is read from.
    ///   - keyPath: The property that holds the nested model.
    ///   - mapping: How the nested model is read.
    ///   - factory: Makes the nested instance from the parent as mapped so far (the fields declared before this
    ///     one), instead of the nested mapping's own `makeModel`.
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
        let nested = NestedModel(mapping: mapping, under: prefix, isOptional: clear != nil, name: "\(keyPath)")
        spec = nested.columns.first ?? FieldSpec(name: "\(keyPath)", path: prefix, type: .json, isOptional: true)
        nestedColumns = nested.columns
        writer = .nested { model, storage, row, paths in
            switch nested.value(storage, row: row, paths: paths, seed: factory?(model)) {
            case .success(let value?):
                model[keyPath: keyPath] = wrap(value)
                return []
            case .success(nil):
                clear?(&model)
                return []
            case .failure(let refused):
                return refused.failures
            }
        }
        update = { model, storage, row, paths in
            // A nested model present in the record replaces the one in the model (reported as changed).
            guard nested.isPresent(storage, row: row) else { return .success(false) }
            switch nested.value(storage, row: row, paths: paths) {
            case .success(let value?):
                model[keyPath: keyPath] = wrap(value)
                return .success(true)
            case .success(nil):
                return .success(false)
            case .failure(let refused):
                return .failure(refused)
            }
        }
        encodedValues = { model in nested.encodedValues(model[keyPath: keyPath] as? Nested) }
    }
}
