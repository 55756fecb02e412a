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
/// The property's type picks the conversion: any ``MappableValue`` (text, integers of every width, `Double`,
/// `Float`, `Decimal`, `Bool`, `Date`, `URL`, `UUID`, `Data` from base64, ``JSONValue``, and optionals, arrays and
/// sets of these) and enums with `String` or `Int` raw values that are `CaseIterable`. A misspelled property or a
/// type Sluice cannot map does not compile, and the compiler's message names it.
public struct Field<Model>: Sendable {
    /// The field as the engine sees it (name, path, type, options).
    public internal(set) var spec: FieldSpec
    /// The property the field writes.
    public let keyPath: PartialKeyPath<Model> & Sendable
    let writer: FieldWriter<Model>
    /// For updates in place: writes the row's value if it differs from the property's, and says whether it did,
    /// or why the value was refused. Gets a pointer to the field's first column, and its columns' key paths.
    var update: @Sendable (inout Model, UnsafeMutablePointer<ColumnStorage>, Int, ArraySlice<String>) -> Result<Bool, RefusedValues>
    /// For encoding: the property's value as field values, one per column (nil for nil, and for transformed
    /// fields, which have no way back).
    var encodedValues: @Sendable (Model) -> [FieldValue?] = { _ in [] }
    /// For a nested model: the columns of its fields, which this field reads in place of one column of its own.
    var nestedColumns: [FieldSpec]?

    /// The columns the field reads: its own, or a nested model's.
    var columns: [FieldSpec] { nestedColumns ?? [spec] }

    /// A field reading a property of any type Sluice maps, through its ``ValueReading``.
    init<Value: Equatable & Sendable>(
        _ path: String?, _ keyPath: WritableKeyPath<Model, Value> & Sendable, reading: ValueReading<Value>,
        configure: (inout FieldSpec) -> Void = { _ in }
    ) {
        self.init(path, keyPath, reading: reading, isSame: ==, configure: configure)
    }

    /// A field reading a property through `reading`; `isSame` tells an update whether the value changed.
    init<Value>(
        _ path: String?, _ keyPath: WritableKeyPath<Model, Value> & Sendable, reading: ValueReading<Value>,
        isSame: @escaping @Sendable (Value, Value) -> Bool, configure: (inout FieldSpec) -> Void = { _ in }
    ) {
        self.keyPath = keyPath
        spec = Self.spec(of: keyPath, path: path, reading: reading, configure: configure)
        let read = reading.read
        let encode = reading.encode
        encodedValues = { model in [encode(model[keyPath: keyPath])] }
        update = { model, columns, row, paths in
            switch read(columns.pointee, row) {
            case .success(let value?):
                guard !isSame(model[keyPath: keyPath], value) else { return .success(false) }
                model[keyPath: keyPath] = value
                return .success(true)
            case .success(nil):
                return .success(false)
            case .failure(let failure):
                return .failure(RefusedValues([failure.placed(under: paths.first ?? "$")]))
            }
        }
        // A stored property of a struct has a fixed offset: values are written there directly, which costs a
        // fraction of applying the key path. Anything else (computed properties, classes) goes through the key path.
        if let kind = reading.kind, let offset = MemoryLayout<Model>.offset(of: keyPath) {
            writer = .stored(offset: offset, kind: kind)
        } else if reading.mayRefuse {
            writer = .checked { model, storage, row in
                switch read(storage, row) {
                case .success(let value?):
                    model[keyPath: keyPath] = value
                    return nil
                case .success(nil):
                    return nil
                case .failure(let failure):
                    return failure
                }
            }
        } else {
            writer = .keyPath { model, storage, row in
                if case .success(let value?) = read(storage, row) { model[keyPath: keyPath] = value }
            }
        }
    }

    /// A field that only describes an initialiser argument: its column, its property (which may be a `let`) and
    /// the way back to JSON. The mapping's initialiser, not the field, puts the value into the model.
    init<Value>(describing keyPath: KeyPath<Model, Value> & Sendable, path: String?, reading: ValueReading<Value>, configure: (inout FieldSpec) -> Void) {
        self.keyPath = keyPath
        spec = Self.spec(of: keyPath, path: path, reading: reading, configure: configure)
        let encode = reading.encode
        encodedValues = { model in [encode(model[keyPath: keyPath])] }
        update = { _, _, _, _ in .success(false) }
        writer = .argument(mayRefuse: reading.mayRefuse)
    }

    /// A field that only describes an initialiser argument read from several columns (a nested model).
    init<Value>(describing keyPath: KeyPath<Model, Value> & Sendable, columns: [FieldSpec], encodedValues: @escaping @Sendable (Model) -> [FieldValue?]) {
        self.keyPath = keyPath
        spec = columns.first ?? FieldSpec(name: "\(keyPath)", path: nil, type: .json, isOptional: true)
        nestedColumns = columns
        self.encodedValues = encodedValues
        update = { _, _, _, _ in .success(false) }
        writer = .argument(mayRefuse: true)
    }

    /// The field's specification: its type and options from `reading`, then `configure`'s; a path-less field
    /// reads the key named like the property.
    private static func spec<Value>(of keyPath: AnyKeyPath, path: String?, reading: ValueReading<Value>, configure: (inout FieldSpec) -> Void) -> FieldSpec {
        var spec = FieldSpec(name: "\(keyPath)", path: path, type: reading.type, isOptional: reading.isOptional)
        if path == nil { spec.propertyPath = propertyPath(of: keyPath) }
        reading.configure(&spec)
        configure(&spec)
        return spec
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

    /// The same field, reading these key paths in order when its own gives no value: the first path that
    /// holds a value other than null wins (`Field("screen_name", \.handle).fallingBack(to: "name", "login")`;
    /// see ``FieldSpec/fallbackPaths``).
    public func fallingBack(to paths: String...) -> Field {
        var copy = self
        copy.spec.fallbackPaths += paths
        return copy
    }

    /// The same integer field, dropping a fractional part (toward zero) instead of rejecting `3.5`.
    public func truncatingFractions() -> Field {
        var copy = self
        copy.spec.truncatesFractions = true
        return copy
    }


    // MARK: Values

    /// A property of any ``MappableValue`` type, read from the value at `path` (see ``MappableValue`` for the
    /// types and their conversions); an optional property is nil when the key is missing or `null`.
    public init<Value: MappableValue>(_ path: String?, _ keyPath: WritableKeyPath<Model, Value> & Sendable) {
        self.init(path, keyPath, reading: Value.valueReading)
    }

    /// A property of any ``MappableValue`` type, read from the key named like the property: `\.idStr` reads
    /// `idStr`, or `id_str` under ``NamingConvention/snakeCase(separator:)``; `\.address.city` reads `address.city`.
    public init<Value: MappableValue>(_ keyPath: WritableKeyPath<Model, Value> & Sendable) {
        self.init(String?.none, keyPath, reading: Value.valueReading)
    }

    /// An array property whose equal elements are kept once, the first time they appear (`unique: true`: an
    /// ordered set); `unique: false` keeps them all.
    public init<Element: MappableValue & Hashable>(_ path: String, _ keyPath: WritableKeyPath<Model, [Element]> & Sendable, unique: Bool) {
        self.init(path, keyPath, reading: ArrayElements.reading(of: Element.self, wrap: { unique ? ArrayElements.firstOfEach($0) : $0 }, unwrap: { $0 }))
    }

    // MARK: Dates

    /// A date property: epoch numbers in `unit`, text in `formats` (tried in order); a `Date?` is nil when the key
    /// is missing or `null`.
    public init<Value: DateProperty>(
        _ path: String?, _ keyPath: WritableKeyPath<Model, Value> & Sendable, formats: [DateFormat] = DateFormat.defaults, unit: EpochUnit = .seconds
    ) {
        self.init(path, keyPath, reading: Value.valueReading) { spec in
            spec.dateFormats = formats
            spec.epochUnit = unit
        }
    }

    /// A date property read from the key named like the property: `\.createdAt` reads `createdAt`, or
    /// `created_at` under ``NamingConvention/snakeCase(separator:)``.
    public init<Value: DateProperty>(_ keyPath: WritableKeyPath<Model, Value> & Sendable, formats: [DateFormat] = DateFormat.defaults, unit: EpochUnit = .seconds) {
        self.init(String?.none, keyPath, formats: formats, unit: unit)
    }

    // MARK: Enums

    /// An enum property with `String` or `Int` raw values: the JSON value must be one of the raw values (an `Int`
    /// raw value may come as the number or its text), or the field's default applies (`.defaulting(to: .unknown)`).
    public init<Value: RawRepresentable & CaseIterable & Equatable & Sendable>(_ path: String?, _ keyPath: WritableKeyPath<Model, Value> & Sendable)
    where Value.RawValue: EnumRawValue {
        self.init(path, keyPath, reading: EnumReading<Value>.reading)
    }

    /// An optional enum property: nil when the key is missing or `null`.
    public init<Value: RawRepresentable & CaseIterable & Equatable & Sendable>(_ path: String?, _ keyPath: WritableKeyPath<Model, Value?> & Sendable)
    where Value.RawValue: EnumRawValue {
        self.init(path, keyPath, reading: EnumReading<Value>.optionalReading)
    }

    /// An enum property read from the key named like the property.
    public init<Value: RawRepresentable & CaseIterable & Equatable & Sendable>(_ keyPath: WritableKeyPath<Model, Value> & Sendable)
    where Value.RawValue: EnumRawValue {
        self.init(String?.none, keyPath)
    }

    /// An optional enum property read from the key named like the property.
    public init<Value: RawRepresentable & CaseIterable & Equatable & Sendable>(_ keyPath: WritableKeyPath<Model, Value?> & Sendable)
    where Value.RawValue: EnumRawValue {
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
        writer = .checked { model, storage, row in
            switch apply(storage, row) {
            case .none: return nil
            case .failure(let failure):
                return ValueFailure(keyPath: "$", kind: .custom, expected: "transform", found: failure.message)
            case .success(let stored):
                // For an optional property `stored` is `.some(nil)` when the transform gave nil: that clears it.
                if let stored { model[keyPath: keyPath] = stored }
                return nil
            }
        }
        update = { model, columns, row, paths in
            switch apply(columns.pointee, row) {
            case .success(let stored?)?:
                guard model[keyPath: keyPath] != stored else { return .success(false) }
                model[keyPath: keyPath] = stored
                return .success(true)
            case .success(nil)?, nil:
                return .success(false)
            case .failure(let failure)?:
                return .failure(RefusedValues([Rejection.Failure(keyPath: paths.first ?? "$", kind: .custom, expected: "transform", found: failure.message)]))
            }
        }
    }

    // MARK: JSON text

    /// A required property holding the value's JSON text.
    public init(json path: String, _ keyPath: WritableKeyPath<Model, String> & Sendable) {
        self.init(path, keyPath, reading: ValueReading(type: .json, kind: .string, value: { $0.text($1) ?? "" }, encode: { .string($0) }))
    }

    /// An optional property holding the value's JSON text (nil for missing or null).
    public init(json path: String, _ keyPath: WritableKeyPath<Model, String?> & Sendable) {
        self.init(path, keyPath, reading: ValueReading(type: .json, isOptional: true, kind: .optionalString, read: { storage, row in
            .success(.some(storage.text(row)))
        }, encode: { $0.map(FieldValue.string) }))
    }
}

/// How a field's value reaches the model.
enum FieldWriter<Model>: Sendable {
    /// Straight into a stored property at a byte offset.
    case stored(offset: Int, kind: StoredValueKind)
    /// Through the key path.
    case keyPath(@Sendable (inout Model, ColumnStorage, Int) -> Void)
    /// Through a conversion that may refuse the value (a transform, an array's elements): returns why, with a
    /// key path relative to the value.
    case checked(@Sendable (inout Model, ColumnStorage, Int) -> ValueFailure?)
    /// A nested model made from several columns (a pointer to the first): returns why it was refused, if it was.
    /// `paths` name its columns as the record's root sees them.
    case nested(@Sendable (inout Model, UnsafeMutablePointer<ColumnStorage>, Int, _ paths: ArraySlice<String>) -> [Rejection.Failure])
    /// Nowhere: the field is an initialiser argument, passed to the model's initialiser by the mapping. Whether
    /// reading it may refuse a committed value.
    case argument(mayRefuse: Bool)
}

/// The Swift type of a stored property a field writes.
enum StoredValueKind: Sendable {
    case string, optionalString, int64, optionalInt64, int, optionalInt, uint64, optionalUInt64, double, optionalDouble
    case bool, optionalBool, date, optionalDate, data, optionalData
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
