/// One parameter of a model's initialiser: where its value is read, and the property that holds it afterwards
/// (for writing the model back as JSON and for updates). For models whose properties are `let` constants, made
/// by their memberwise initialiser (see ``Mapping/init(_:options:_:_:finish:)``).
///
/// ```swift
/// Parameter("id", \.id)                                           // any MappableValue: Int32, Decimal, [URL], …
/// Parameter("created_at", \.createdAt, formats: [.twitter])       // Date
/// Parameter("user", \.user, mapping: userMapping)                 // a nested model
/// Parameter("entities.hashtags", \.hashtags, elements: hashtag)   // an array of nested models
/// ```
///
/// The property's type must be the initialiser parameter's: a mismatch, a misspelled property or a type Sluice
/// cannot map does not compile.
public struct Parameter<Model, Value>: Sendable {
    /// The parameter as a field: its columns, its property, and the way back to JSON. It writes nothing itself.
    let field: Field<Model>
    /// The parameter's value from the columns starting at its first; nil with the failures appended when refused.
    let value: @Sendable (_ columns: UnsafeMutablePointer<ColumnStorage>, _ row: Int, _ paths: ArraySlice<String>, _ failures: inout [Rejection.Failure]) -> Value?
    /// Whether two models hold different values in the parameter's property (for updates).
    let differs: @Sendable (Model, Model) -> Bool
    /// The property the parameter's value ends up in.
    let property: KeyPath<Model, Value> & Sendable

    /// The columns the parameter reads.
    var columns: [FieldSpec] { field.columns }

    private init(
        field: Field<Model>, property: KeyPath<Model, Value> & Sendable, differs: @escaping @Sendable (Model, Model) -> Bool,
        value: @escaping @Sendable (UnsafeMutablePointer<ColumnStorage>, Int, ArraySlice<String>, inout [Rejection.Failure]) -> Value?
    ) {
        self.field = field
        self.property = property
        self.differs = differs
        self.value = value
    }

    /// A parameter read through `reading` from the value at `path` (or the key named like the property).
    private init(_ path: String?, _ property: KeyPath<Model, Value> & Sendable, reading: ValueReading<Value>, configure: (inout FieldSpec) -> Void = { _ in })
    where Value: Equatable & Sendable {
        self.init(path, property, reading: reading, differs: { $0[keyPath: property] != $1[keyPath: property] }, configure: configure)
    }

    private init(
        _ path: String?, _ property: KeyPath<Model, Value> & Sendable, reading: ValueReading<Value>,
        differs: @escaping @Sendable (Model, Model) -> Bool, configure: (inout FieldSpec) -> Void = { _ in }
    ) {
        let field = Field(describing: property, path: path, reading: reading, configure: configure)
        let read = reading.read
        let absent = reading.absent
        let expected = field.spec.shownTypeName
        self.init(field: field, property: property, differs: differs) { columns, row, paths, failures in
            let path = paths.first ?? "$"
            switch read(columns.pointee, row) {
            case .success(let value?):
                return value
            case .success(nil):
                // A required value the engine let through only inside an optional nested model, which names it.
                if let absent { return absent() }
                if failures.isEmpty { failures.append(Rejection.Failure(keyPath: path, kind: .missing, expected: expected, found: "no value")) }
                return nil
            case .failure(let failure):
                failures.append(failure.placed(under: path))
                return nil
            }
        }
    }

    /// A parameter of any ``MappableValue`` type, read from the value at `path`; an optional parameter is nil when
    /// the key is missing or `null`.
    public init(_ path: String?, _ property: KeyPath<Model, Value> & Sendable) where Value: MappableValue {
        self.init(path, property, reading: Value.valueReading)
    }

    /// A parameter of any ``MappableValue`` type, read from the key named like the property (`\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``).
    public init(_ property: KeyPath<Model, Value> & Sendable) where Value: MappableValue {
        self.init(nil, property, reading: Value.valueReading)
    }

    /// A date parameter: epoch numbers in `unit`, text in `formats` (tried in order).
    public init(_ path: String?, _ property: KeyPath<Model, Value> & Sendable, formats: [DateFormat], unit: EpochUnit = .seconds) where Value: DateProperty {
        self.init(path, property, reading: Value.valueReading) { spec in
            spec.dateFormats = formats
            spec.epochUnit = unit
        }
    }

    /// An enum parameter with `String` or `Int` raw values (see ``Field``'s enum initialisers).
    public init(_ path: String?, _ property: KeyPath<Model, Value> & Sendable)
    where Value: RawRepresentable & CaseIterable & Equatable & Sendable, Value.RawValue: EnumRawValue {
        self.init(path, property, reading: EnumReading<Value>.reading)
    }

    /// An optional enum parameter: nil when the key is missing or `null`.
    public init<Case>(_ path: String?, _ property: KeyPath<Model, Case?> & Sendable)
    where Value == Case?, Case: RawRepresentable & CaseIterable & Equatable & Sendable, Case.RawValue: EnumRawValue {
        self.init(path, property, reading: EnumReading<Case>.optionalReading)
    }

    /// A nested model read from the object at `path` with its own mapping (a property or an initialiser mapping).
    public init(_ path: String, _ property: KeyPath<Model, Value> & Sendable, mapping: Mapping<Value>) {
        let nested = NestedModel(mapping: mapping, under: path, isOptional: false, name: "\(property)")
        self.init(field: Field(describing: property, columns: nested.columns) { nested.encodedValues($0[keyPath: property]) }, property: property, differs: { _, _ in true }) { columns, row, paths, failures in
            switch nested.value(columns, row: row, paths: paths) {
            case .success(let value?): return value
            case .success(nil): return nil
            case .failure(let refused):
                failures += refused.failures
                return nil
            }
        }
    }

    /// An optional nested model: nil when none of its keys is present.
    public init<Nested>(_ path: String, _ property: KeyPath<Model, Nested?> & Sendable, mapping: Mapping<Nested>) where Value == Nested? {
        let nested = NestedModel(mapping: mapping, under: path, isOptional: true, name: "\(property)")
        self.init(field: Field(describing: property, columns: nested.columns) { nested.encodedValues($0[keyPath: property]) }, property: property, differs: { _, _ in true }) { columns, row, paths, failures in
            switch nested.value(columns, row: row, paths: paths) {
            case .success(let value): return .some(value)
            case .failure(let refused):
                failures += refused.failures
                return nil
            }
        }
    }

    /// An array of nested models, each mapped with `mapping`; a missing key gives no elements.
    public init<Element>(_ path: String, _ property: KeyPath<Model, [Element]> & Sendable, elements mapping: Mapping<Element>) where Value == [Element] {
        self.init(path, property, reading: ArrayElements.reading(of: mapping, wrap: { $0 }, unwrap: { $0 }), differs: { _, _ in true })
    }

    /// An optional array of nested models: nil when the key is missing or `null`.
    public init<Element>(_ path: String, _ property: KeyPath<Model, [Element]?> & Sendable, elements mapping: Mapping<Element>) where Value == [Element]? {
        self.init(path, property, reading: ArrayElements.reading(of: mapping, wrap: { $0 }, unwrap: { $0 }).optional, differs: { _, _ in true })
    }
}
