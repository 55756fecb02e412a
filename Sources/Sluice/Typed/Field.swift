import Foundation

/// One property of a typed model and the key path its value is read from.
///
/// ```swift
/// Field("user_stats.views", \.views)                          // Int64 or Int: required
/// Field("user.name", \.userName)                              // String?: optional (missing or null gives nil)
/// Field("created_at", \.createdAt, formats: [.twitter])       // Date
/// Field("gender", \.gender).defaulting(to: Gender.unknown)    // a String- or Int-backed enum
/// Field(json: "entities", \.entitiesJSON)                     // the value's JSON text
/// ```
///
/// The property's type picks the conversion: `String`, `Int64`, `Int`, `UInt64`, `Double`, `Bool`, `Date`,
/// `URL`, `Data` (from base64) and enums with `String` or `Int` raw values that are `CaseIterable`, each
/// optional or not. A misspelled property does not compile.
public struct Field<Model>: Sendable {
    /// The field as the engine sees it (name, path, type, options).
    public internal(set) var spec: FieldSpec
    /// The property the field writes.
    public let keyPath: PartialKeyPath<Model> & Sendable
    let writer: FieldWriter<Model>
    /// For updates in place: writes the row's value if it differs from the property's, and says whether it did.
    /// Gets a pointer to the field's first column.
    var update: @Sendable (inout Model, UnsafeMutablePointer<ColumnStorage>, Int) -> Bool
    /// For encoding: the property's value as field values, one per column (nil for nil, and for transformed
    /// fields, which have no way back).
    var encodedValues: @Sendable (Model) -> [FieldValue?] = { _ in [] }
    /// For a nested model: the columns of its fields, which this field reads in place of one column of its own.
    var nestedColumns: [FieldSpec]?

    /// The columns the field reads: its own, or a nested model's.
    var columns: [FieldSpec] { nestedColumns ?? [spec] }

    private init<Value: Equatable & Sendable>(
        _ path: String?, _ keyPath: WritableKeyPath<Model, Value> & Sendable, type: FieldType, isOptional: Bool,
        kind: StoredValueKind?, configure: (inout FieldSpec) -> Void = { _ in }, read: @escaping @Sendable (ColumnStorage, Int) -> Value
    ) {
        self.keyPath = keyPath
        encodedValues = { model in [FieldValue(encoding: model[keyPath: keyPath])] }
        update = { model, columns, row in
            let value = read(columns.pointee, row)
            guard model[keyPath: keyPath] != value else { return false }
            model[keyPath: keyPath] = value
            return true
        }
        spec = FieldSpec(name: "\(keyPath)", path: path, type: type, isOptional: isOptional)
        if path == nil { spec.propertyPath = Self.propertyPath(of: keyPath) }
        configure(&spec)
        // A stored property of a struct has a fixed offset: values are written there directly, which costs a
        // fraction of applying the key path. Anything else (computed properties, classes) goes through the key path.
        if let kind, let offset = MemoryLayout<Model>.offset(of: keyPath) {
            writer = .stored(offset: offset, kind: kind)
        } else {
            writer = .keyPath { model, storage, row in model[keyPath: keyPath] = read(storage, row) }
        }
    }

    /// For values that are converted once more on the way into the model (URLs, enums): the property is assigned
    /// only when that conversion succeeds, which the engine has already made sure of for every committed row.
    private init<Value: Equatable & Sendable>(
        _ path: String?, _ keyPath: WritableKeyPath<Model, Value> & Sendable, type: FieldType, isOptional: Bool,
        configure: (inout FieldSpec) -> Void, convert: @escaping @Sendable (ColumnStorage, Int) -> Value?
    ) {
        self.keyPath = keyPath
        encodedValues = { model in [FieldValue(encoding: model[keyPath: keyPath])] }
        update = { model, columns, row in
            guard let value = convert(columns.pointee, row), model[keyPath: keyPath] != value else { return false }
            model[keyPath: keyPath] = value
            return true
        }
        spec = FieldSpec(name: "\(keyPath)", path: path, type: type, isOptional: isOptional)
        if path == nil { spec.propertyPath = Self.propertyPath(of: keyPath) }
        configure(&spec)
        writer = .keyPath { model, storage, row in
            if let value = convert(storage, row) { model[keyPath: keyPath] = value }
        }
    }

    /// The key path a path-less field reads, by property: `\Model.address.city` gives `address`, `city`.
    private static func propertyPath(of keyPath: AnyKeyPath) -> [String] {
        let description = "\(keyPath)"
        guard let firstDot = description.firstIndex(of: ".") else { return [description] }
        return description[description.index(after: firstDot)...].split(separator: ".").map(String.init)
    }

    /// The same field with a default for a missing value (and for `null` when the property is not optional).
    /// Checked against the field's type when the mapping compiles.
    public func defaulting(to value: FieldValue) -> Field {
        var copy = self
        copy.spec.defaultValue = value
        return copy
    }

    /// The same field with an enum case as its default; it also covers unmatched values and `null`.
    public func defaulting<Value: RawRepresentable>(to value: Value) -> Field where Value.RawValue == String {
        defaulting(to: .string(value.rawValue))
    }

    /// The same field with an enum case as its default; it also covers unmatched values and `null`.
    public func defaulting<Value: RawRepresentable>(to value: Value) -> Field where Value.RawValue == Int {
        defaulting(to: .string(String(value.rawValue)))
    }

    /// The same field with validators its value must pass for the record to be accepted.
    public func validated(_ validators: Validator...) -> Field {
        var copy = self
        copy.spec.validators += validators
        return copy
    }

    /// The same field with a validator of your own, named for rejections: `$.age: isAdult failed, found 12`.
    public func validated(named name: String, _ check: @escaping @Sendable (FieldValue) -> Bool) -> Field {
        validated(.custom(name: name, check: check))
    }

    /// The same field reading these input values as `null` (`Field(\.price).readingAsNull("", "N/A")`), before
    /// its cleanups and conversion; they replace the mapping's own (``MappingOptions/nullSpellings``).
    public func readingAsNull(_ values: JSONValue...) -> Field {
        var copy = self
        copy.spec.nullSpellings = values
        return copy
    }

    /// The same field with cleanups of its input text, applied in order before its conversion
    /// (`Field(\.price).cleaned(.number(NumberText()))`; see ``ValueCleanup``).
    public func cleaned(_ cleanups: ValueCleanup...) -> Field {
        var copy = self
        copy.spec.cleanups += cleanups
        return copy
    }

    /// The same integer field, dropping a fractional part (toward zero) instead of rejecting `3.5`.
    public func truncatingFractions() -> Field {
        var copy = self
        copy.spec.truncatesFractions = true
        return copy
    }

    // MARK: Text and numbers

    /// A required text property.
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, String> & Sendable) {
        self.init(path, keyPath, type: .string, isOptional: false, kind: .string) { $0.text($1) ?? "" }
    }

    /// An optional text property.
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, String?> & Sendable) {
        self.init(path, keyPath, type: .string, isOptional: true, kind: .optionalString) { $0.text($1) }
    }

    /// A required 64-bit integer property.
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, Int64> & Sendable) {
        self.init(path, keyPath, type: .int64, isOptional: false, kind: .int64) { $0.int64($1) ?? 0 }
    }

    /// An optional 64-bit integer property.
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, Int64?> & Sendable) {
        self.init(path, keyPath, type: .int64, isOptional: true, kind: .optionalInt64) { $0.int64($1) }
    }

    /// A required `Int` property (64 bits on the platforms Sluice supports).
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, Int> & Sendable) {
        self.init(path, keyPath, type: .int64, isOptional: false, kind: .int) { Int(truncatingIfNeeded: $0.int64($1) ?? 0) }
    }

    /// An optional `Int` property.
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, Int?> & Sendable) {
        self.init(path, keyPath, type: .int64, isOptional: true, kind: .optionalInt) { $0.int64($1).map { Int(truncatingIfNeeded: $0) } }
    }

    /// A required unsigned 64-bit integer property.
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, UInt64> & Sendable) {
        self.init(path, keyPath, type: .uint64, isOptional: false, kind: .uint64) { $0.uint64($1) ?? 0 }
    }

    /// An optional unsigned 64-bit integer property.
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, UInt64?> & Sendable) {
        self.init(path, keyPath, type: .uint64, isOptional: true, kind: .optionalUInt64) { $0.uint64($1) }
    }

    /// A required floating-point property.
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, Double> & Sendable) {
        self.init(path, keyPath, type: .double, isOptional: false, kind: .double) { $0.double($1) ?? 0 }
    }

    /// An optional floating-point property.
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, Double?> & Sendable) {
        self.init(path, keyPath, type: .double, isOptional: true, kind: .optionalDouble) { $0.double($1) }
    }

    /// A required Boolean property.
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, Bool> & Sendable) {
        self.init(path, keyPath, type: .bool, isOptional: false, kind: .bool) { $0.bool($1) ?? false }
    }

    /// An optional Boolean property.
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, Bool?> & Sendable) {
        self.init(path, keyPath, type: .bool, isOptional: true, kind: .optionalBool) { $0.bool($1) }
    }

    // MARK: Dates, URLs, data

    /// A required date property: epoch numbers in `unit`, text in `formats` (tried in order).
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, Date> & Sendable, formats: [DateFormat] = DateFormat.defaults, unit: EpochUnit = .seconds) {
        self.init(path, keyPath, type: .date, isOptional: false, kind: .date, configure: { $0.dateFormats = formats; $0.epochUnit = unit }) {
            $0.date($1) ?? Date(timeIntervalSince1970: 0)
        }
    }

    /// An optional date property.
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, Date?> & Sendable, formats: [DateFormat] = DateFormat.defaults, unit: EpochUnit = .seconds) {
        self.init(path, keyPath, type: .date, isOptional: true, kind: .optionalDate, configure: { $0.dateFormats = formats; $0.epochUnit = unit }) {
            $0.date($1)
        }
    }

    /// A required URL property (an absolute or relative reference that Foundation's `URL` also accepts).
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, URL> & Sendable) {
        self.init(path, keyPath, type: .url, isOptional: false, configure: { $0.requiresFoundationURL = true }) { $0.url($1) }
    }

    /// An optional URL property.
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, URL?> & Sendable) {
        self.init(path, keyPath, type: .url, isOptional: true, kind: .optionalURL, configure: { $0.requiresFoundationURL = true }) { $0.url($1) }
    }

    /// A required binary property, from base64 text.
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, Data> & Sendable) {
        self.init(path, keyPath, type: .bytes, isOptional: false, kind: .data) { $0.data($1) ?? Data() }
    }

    /// An optional binary property, from base64 text.
    public init(_ path: String?, _ keyPath: WritableKeyPath<Model, Data?> & Sendable) {
        self.init(path, keyPath, type: .bytes, isOptional: true, kind: .optionalData) { $0.data($1) }
    }

    // MARK: Enums

    /// A required enum property: the JSON value must be one of the raw values (or the field's default applies).
    public init<Value: RawRepresentable & CaseIterable & Equatable & Sendable>(_ path: String?, _ keyPath: WritableKeyPath<Model, Value> & Sendable) where Value.RawValue == String {
        self.init(path, keyPath, type: .enumeration, isOptional: false, configure: { $0.enumValues = Value.allCases.map { EnumValue($0.rawValue) } }) {
            $0.text($1).flatMap(Value.init(rawValue:))
        }
    }

    /// An optional enum property.
    public init<Value: RawRepresentable & CaseIterable & Equatable & Sendable>(_ path: String?, _ keyPath: WritableKeyPath<Model, Value?> & Sendable) where Value.RawValue == String {
        self.init(path, keyPath, type: .enumeration, isOptional: true, kind: nil, configure: { $0.enumValues = Value.allCases.map { EnumValue($0.rawValue) } }) {
            $0.text($1).flatMap(Value.init(rawValue:))
        }
    }

    /// A required enum property with `Int` raw values; the JSON value may be the number or its text.
    public init<Value: RawRepresentable & CaseIterable & Equatable & Sendable>(_ path: String?, _ keyPath: WritableKeyPath<Model, Value> & Sendable) where Value.RawValue == Int {
        self.init(path, keyPath, type: .enumeration, isOptional: false, configure: { $0.enumValues = Value.allCases.map { EnumValue(String($0.rawValue)) } }) {
            $0.text($1).flatMap(Int.init).flatMap(Value.init(rawValue:))
        }
    }

    /// An optional enum property with `Int` raw values.
    public init<Value: RawRepresentable & CaseIterable & Equatable & Sendable>(_ path: String?, _ keyPath: WritableKeyPath<Model, Value?> & Sendable) where Value.RawValue == Int {
        self.init(path, keyPath, type: .enumeration, isOptional: true, kind: nil, configure: { $0.enumValues = Value.allCases.map { EnumValue(String($0.rawValue)) } }) {
            $0.text($1).flatMap(Int.init).flatMap(Value.init(rawValue:))
        }
    }

    // MARK: Without a path

    /// A required text property, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, String> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// An optional text property, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, String?> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// A required 64-bit integer property, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, Int64> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// An optional 64-bit integer property, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, Int64?> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// A required `Int` property (64 bits on the platforms Sluice supports), read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, Int> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// An optional `Int` property, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, Int?> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// A required unsigned 64-bit integer property, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, UInt64> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// An optional unsigned 64-bit integer property, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, UInt64?> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// A required floating-point property, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, Double> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// An optional floating-point property, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, Double?> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// A required Boolean property, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, Bool> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// An optional Boolean property, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, Bool?> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// A required date property: epoch numbers in `unit`, text in `formats` (tried in order), read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, Date> & Sendable, formats: [DateFormat] = DateFormat.defaults, unit: EpochUnit = .seconds) {
        self.init(String?.none, keyPath, formats: formats, unit: unit)
    }

    /// An optional date property, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, Date?> & Sendable, formats: [DateFormat] = DateFormat.defaults, unit: EpochUnit = .seconds) {
        self.init(String?.none, keyPath, formats: formats, unit: unit)
    }

    /// A required URL property (an absolute or relative reference that Foundation's `URL` also accepts), read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, URL> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// An optional URL property, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, URL?> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// A required binary property, from base64 text, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, Data> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// An optional binary property, from base64 text, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init(_ keyPath: WritableKeyPath<Model, Data?> & Sendable) {
        self.init(String?.none, keyPath)
    }

    /// A required enum property: the JSON value must be one of the raw values (or the field's default applies), read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init<Value: RawRepresentable & CaseIterable & Equatable & Sendable>(_ keyPath: WritableKeyPath<Model, Value> & Sendable) where Value.RawValue == String {
        self.init(String?.none, keyPath)
    }

    /// An optional enum property, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init<Value: RawRepresentable & CaseIterable & Equatable & Sendable>(_ keyPath: WritableKeyPath<Model, Value?> & Sendable) where Value.RawValue == String {
        self.init(String?.none, keyPath)
    }

    /// A required enum property with `Int` raw values; the JSON value may be the number or its text, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init<Value: RawRepresentable & CaseIterable & Equatable & Sendable>(_ keyPath: WritableKeyPath<Model, Value> & Sendable) where Value.RawValue == Int {
        self.init(String?.none, keyPath)
    }

    /// An optional enum property with `Int` raw values, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init<Value: RawRepresentable & CaseIterable & Equatable & Sendable>(_ keyPath: WritableKeyPath<Model, Value?> & Sendable) where Value.RawValue == Int {
        self.init(String?.none, keyPath)
    }

    // MARK: Transforms

    /// A property filled by your own conversion of the JSON value. Return nil to leave an optional property nil
    /// (for a property that is not optional, nil rejects the record); throw to reject the record with your
    /// message and the key path. The transform sees every value present, `null` included; a missing key leaves
    /// the property as the model was made.
    public init<Value: Equatable & Sendable>(_ path: String, _ keyPath: WritableKeyPath<Model, Value> & Sendable, transform: @escaping @Sendable (JSONValue) throws -> Value?) {
        self.init(path, keyPath, isOptional: false, transform: transform) { $0 }
    }

    /// An optional property filled by your own conversion of the JSON value (see the non-optional form).
    public init<Value: Equatable & Sendable>(_ path: String, _ keyPath: WritableKeyPath<Model, Value?> & Sendable, transform: @escaping @Sendable (JSONValue) throws -> Value?) {
        self.init(path, keyPath, isOptional: true, transform: transform) { $0 }
    }

    private init<Value: Equatable & Sendable, Stored: Equatable & Sendable>(
        _ path: String, _ keyPath: WritableKeyPath<Model, Stored> & Sendable, isOptional: Bool,
        transform: @escaping @Sendable (JSONValue) throws -> Value?, store: @escaping @Sendable (Value?) -> Stored?
    ) {
        self.keyPath = keyPath
        encodedValues = { _ in [nil] }
        spec = FieldSpec(name: "\(keyPath)", path: path, type: .json, isOptional: true)
        let apply: @Sendable (ColumnStorage, Int) -> Result<Stored?, MappingFailure>? = { storage, row in
            // Missing: nothing to do. Present (null included): the transform decides.
            guard storage.isValid(row) else { return nil }
            guard let value = JSONValue(jsonText: storage.textBytes(row)) else { return .failure(MappingFailure("unreadable value")) }
            do {
                let converted = try transform(value)
                if converted == nil && !isOptional { return .failure(MappingFailure("the transform gave no value")) }
                return .success(store(converted))
            } catch {
                return .failure(MappingFailure("\(error)"))
            }
        }
        let displayPath = (try? FieldPath(parsing: path))?.description ?? path
        writer = .checked { model, storage, row in
            switch apply(storage, row) {
            case .none: return nil
            case .failure(let failure):
                return Rejection.Failure(keyPath: displayPath, kind: .custom, expected: "transform", found: failure.message)
            case .success(let stored):
                // For an optional property `stored` is `.some(nil)` when the transform gave nil: that clears it.
                if let stored { model[keyPath: keyPath] = stored }
                return nil
            }
        }
        update = { model, columns, row in
            guard case .success(let stored)? = apply(columns.pointee, row), let stored, model[keyPath: keyPath] != stored else { return false }
            model[keyPath: keyPath] = stored
            return true
        }
    }

    // MARK: JSON text

    /// A required property holding the value's JSON text.
    public init(json path: String, _ keyPath: WritableKeyPath<Model, String> & Sendable) {
        self.init(path, keyPath, type: .json, isOptional: false, kind: .string) { $0.text($1) ?? "" }
    }

    /// An optional property holding the value's JSON text (nil for missing or null).
    public init(json path: String, _ keyPath: WritableKeyPath<Model, String?> & Sendable) {
        self.init(path, keyPath, type: .json, isOptional: true, kind: .optionalString) { $0.text($1) }
    }
}

/// How a field's value reaches the model.
enum FieldWriter<Model>: Sendable {
    /// Straight into a stored property at a byte offset.
    case stored(offset: Int, kind: StoredValueKind)
    /// Through the key path.
    case keyPath(@Sendable (inout Model, ColumnStorage, Int) -> Void)
    /// Through a conversion that may refuse the value (a transform, an array's elements): returns why.
    case checked(@Sendable (inout Model, ColumnStorage, Int) -> Rejection.Failure?)
    /// A nested model made from several columns (a pointer to the first): returns why it was refused, if it was.
    case nested(@Sendable (inout Model, UnsafeMutablePointer<ColumnStorage>, Int) -> [Rejection.Failure])
}

/// The Swift type of a stored property a field writes.
enum StoredValueKind: Sendable {
    case string, optionalString, int64, optionalInt64, int, optionalInt, uint64, optionalUInt64, double, optionalDouble
    case bool, optionalBool, date, optionalDate, optionalURL, data, optionalData
}

extension ColumnStorage {
    // Readers for committed rows; a required field's row is always valid, so the fallbacks above never apply.
    func text(_ row: Int) -> String? {
        isValid(row) ? String(decoding: textBytes(row), as: UTF8.self) : nil
    }

    func int64(_ row: Int) -> Int64? {
        isValid(row) ? values.assumingMemoryBound(to: Int64.self)[row] : nil
    }

    func uint64(_ row: Int) -> UInt64? {
        isValid(row) ? values.assumingMemoryBound(to: UInt64.self)[row] : nil
    }

    func double(_ row: Int) -> Double? {
        isValid(row) ? values.assumingMemoryBound(to: Double.self)[row] : nil
    }

    func bool(_ row: Int) -> Bool? {
        isValid(row) ? values.assumingMemoryBound(to: UInt8.self)[row] != 0 : nil
    }

    func date(_ row: Int) -> Date? {
        guard let nanoseconds = int64(row) else { return nil }
        let (seconds, remainder) = nanoseconds.quotientAndRemainder(dividingBy: CivilTime.nanosecondsPerSecond)
        return Date(timeIntervalSince1970: Double(seconds) + Double(remainder) / 1e9)
    }

    /// The engine checked typed URL fields with Foundation's parser, so this succeeds for every committed row.
    func url(_ row: Int) -> URL? {
        text(row).flatMap { URL(string: $0) }
    }

    func data(_ row: Int) -> Data? {
        isValid(row) ? Data(textBytes(row)) : nil
    }
}
