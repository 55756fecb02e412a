import Foundation

/// One field of a dynamic schema: where its value comes from, what type it has, and how it converts.
///
/// The name, path, type and optionality (and whether the field reads a list) are kept inline; every other setting
/// lives in one shared box that a field with none of them does without, so that a mapping of 100,000 plain fields
/// holds 48 bytes a field, not 200.
public struct FieldSpec: Sendable, Hashable {
    /// The field's (column's) name. Unique within a schema.
    public var name: String
    /// The key path the value is read from, in the syntax of ``FieldPath`` (`user.stats.views`, `media.0.url`, `$`).
    /// `nil` reads the key named like the field, converted by the mapping's naming convention (see
    /// ``MappingOptions/naming``); explicit paths win over the convention.
    public var path: String? {
        didSet { isList = Self.readsList(path, cleanups: cleanups) }
    }
    /// The type the value is converted to.
    public var type: FieldType
    /// Whether a missing key or a JSON `null` maps to null instead of rejecting the record.
    public var isOptional: Bool
    /// Whether the field reads a list: its path goes through `*` or a cleanup splits its text, and its column
    /// holds each row's elements, converted by the type, as a JSON array. Kept with the path and the cleanups,
    /// because batches ask for every column.
    public private(set) var isList = false
    /// The settings beyond the four above; nil while all have their defaults.
    private var settingsBox: SettingsBox?

    /// What a missing key gives instead of null or a rejection; for a field that is not optional, also what
    /// `null` gives; for an enum field, also what `null` and an unmatched value give. Must have the field's type.
    public var defaultValue: FieldValue? {
        get { settings.defaultValue }
        set { updateSettings { $0.defaultValue = newValue } }
    }
    /// For int64 and uint64: drop a fractional part (toward zero) instead of rejecting `3.5`.
    public var truncatesFractions: Bool {
        get { settings.truncatesFractions }
        set { updateSettings { $0.truncatesFractions = newValue } }
    }
    /// For dates: the unit of epoch numbers and numeric strings.
    public var epochUnit: EpochUnit {
        get { settings.epochUnit }
        set { updateSettings { $0.epochUnit = newValue } }
    }
    /// For dates: the formats values are read in, tried in order (``DateFormat/epoch`` for epoch numbers).
    public var dateFormats: [DateFormat] {
        get { settings.dateFormats }
        set { updateSettings { $0.dateFormats = newValue } }
    }
    /// For decimals: the precision, scale and rounding of values; a decimal field needs one.
    public var decimalFormat: DecimalFormat? {
        get { settings.decimalFormat }
        set { updateSettings { $0.decimalFormat = newValue } }
    }
    /// For enums: the value map, JSON value to stored value.
    public var enumValues: [EnumValue] {
        get { settings.enumValues }
        set { updateSettings { $0.enumValues = newValue } }
    }
    /// Rules the value must follow for the record to be accepted.
    public var validators: [Validator] {
        get { settings.validators }
        set { updateSettings { $0.validators = newValue } }
    }
    /// Your own conversion, run on the JSON value before the type converts it (see ``ValueTransform``).
    public var transform: ValueTransform? {
        get { settings.transform }
        set { updateSettings { $0.transform = newValue } }
    }
    /// For lists: keep the first of equal elements only (an ordered set).
    public var isUnique: Bool {
        get { settings.isUnique }
        set { updateSettings { $0.isUnique = newValue } }
    }
    /// Input values that mean null for this field (`["", "N/A", false]`), checked before anything else sees the
    /// value; nil takes the mapping's (``MappingOptions/nullSpellings``), `[]` none. A value spelled so is a JSON
    /// `null` from then on: null for an optional field, the default or a rejection for a required one.
    public var nullSpellings: [JSONValue]? {
        get { settings.nullSpellings }
        set { updateSettings { $0.nullSpellings = newValue } }
    }
    /// Cleanups of the input text, applied in order after the null spellings and before the transform and the
    /// type's conversion (see ``ValueCleanup``).
    public var cleanups: [ValueCleanup] {
        get { settings.cleanups }
        set {
            updateSettings { $0.cleanups = newValue }
            isList = Self.readsList(path, cleanups: newValue)
        }
    }
    /// Key paths read when ``path`` gives no value: the field takes the first of its paths, in this order, that
    /// holds a value other than null (after null spellings and cleanups), whatever order the keys come in. When
    /// none does, the field is missing.
    public var fallbackPaths: [String] {
        get { settings.fallbackPaths }
        set { updateSettings { $0.fallbackPaths = newValue } }
    }
    /// For URLs read into Foundation `URL`s: values must also satisfy Foundation's parser.
    var requiresFoundationURL: Bool {
        get { settings.requiresFoundationURL }
        set { updateSettings { $0.requiresFoundationURL = newValue } }
    }
    /// For models decoded as `JSONDecoder` decodes them: a value is taken only from the JSON kind of its type
    /// (text from strings, numbers from numbers, Booleans from `true` and `false`), never converted from another.
    var takesOnlyItsKind: Bool {
        get { settings.takesOnlyItsKind }
        set { updateSettings { $0.takesOnlyItsKind = newValue } }
    }
    /// For a json column of a model decoded as `JSONDecoder` decodes it: `null` is kept as its text, so that a null
    /// value is told apart from a missing key.
    var keepsNullText: Bool {
        get { settings.keepsNullText }
        set { updateSettings { $0.keepsNullText = newValue } }
    }
    /// For a typed property whose type is not its column's (an `Int32` read through an int64 column): how
    /// rejections name the property's type, so that they say what the model declared.
    var shownType: ShownType? {
        get { settings.shownType }
        set { updateSettings { $0.shownType = newValue } }
    }
    /// For typed fields declared without a path: the property path (`address.city`), each component of which the
    /// naming convention converts into a key.
    var propertyPath: [String]? {
        get { settings.propertyPath }
        set { updateSettings { $0.propertyPath = newValue } }
    }
    /// Makes the field's array a table of its own (see ``ChildTable``): its rows are not a column of the record's
    /// table. The field reads a JSON array (its type is json), and its path reads one array (no `*`).
    public var childTable: ChildTable? {
        get { settings.childTable }
        set { updateSettings { $0.childTable = newValue } }
    }
    /// For a typed array of nested models or values: the plan of one element, by which the machine maps the
    /// array's elements in the record's own pass.
    var elementPlan: (any ElementPlanning)? {
        get { settings.elementPlan?.plan }
        set { updateSettings { $0.elementPlan = newValue.map(ElementPlan.init) } }
    }

    /// The settings of a field beyond its name, path, type and optionality.
    private struct Settings: Sendable, Hashable {
        var defaultValue: FieldValue?
        var truncatesFractions = false
        var epochUnit = EpochUnit.seconds
        var dateFormats = DateFormat.defaults
        var decimalFormat: DecimalFormat?
        var enumValues: [EnumValue] = []
        var validators: [Validator] = []
        var transform: ValueTransform?
        var isUnique = false
        var nullSpellings: [JSONValue]?
        var cleanups: [ValueCleanup] = []
        var fallbackPaths: [String] = []
        var requiresFoundationURL = false
        var takesOnlyItsKind = false
        var keepsNullText = false
        var shownType: ShownType?
        var propertyPath: [String]?
        var elementPlan: ElementPlan?
        var childTable: ChildTable?

        static let defaults = Settings()
    }

    /// An element plan, equal only to itself: two fields map elements alike only through the same plan.
    private struct ElementPlan: Sendable, Hashable {
        let plan: any ElementPlanning
        static func == (lhs: ElementPlan, rhs: ElementPlan) -> Bool { lhs.plan === rhs.plan }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(plan)) }
    }

    /// Shared between copies of a field until one of them changes a setting (then it takes a box of its own), so
    /// no box is ever changed while another field sees it.
    private final class SettingsBox: @unchecked Sendable {
        var settings: Settings
        init(_ settings: Settings) { self.settings = settings }
    }

    private var settings: Settings { settingsBox?.settings ?? .defaults }

    private mutating func updateSettings(_ change: (inout Settings) -> Void) {
        if isKnownUniquelyReferenced(&settingsBox), let box = settingsBox {
            change(&box.settings)
            if box.settings == .defaults { settingsBox = nil }
        } else {
            var changed = settings
            change(&changed)
            settingsBox = changed == .defaults ? nil : SettingsBox(changed)
        }
    }

    public static func == (lhs: FieldSpec, rhs: FieldSpec) -> Bool {
        lhs.name == rhs.name && lhs.path == rhs.path && lhs.type == rhs.type && lhs.isOptional == rhs.isOptional
            && lhs.isList == rhs.isList && lhs.settings == rhs.settings
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(path)
        hasher.combine(type)
        hasher.combine(isOptional)
        hasher.combine(settings)
    }

    private static func readsList(_ path: String?, cleanups: [ValueCleanup]) -> Bool {
        if cleanups.contains(where: \.isSplit) { return true }
        guard let path, path.contains("*") else { return false }
        return (try? FieldPath(parsing: path))?.readsEveryElement ?? false
    }

    /// The type of the field's column: json for lists (their JSON array text), else the field's type.
    var columnType: FieldType { isList ? .json : type }

    /// Whether values go through null spellings or cleanups before their conversion.
    func isCleaned(options: MappingOptions) -> Bool {
        !cleanups.isEmpty || !(nullSpellings ?? options.nullSpellings).isEmpty
    }

    /// Whether the field reads any JSON value, objects and arrays included: json fields and transformed ones.
    var takesAnyValue: Bool { type.keepsJSONText || transform != nil }

    /// The key path to read, given the mapping's naming convention.
    package func resolvedPath(naming: NamingConvention?) -> String {
        if let path { return path }
        let components = propertyPath ?? [name]
        return components.map { FieldPath.escaped(key: naming?.key(forName: $0) ?? $0) }.joined(separator: ".")
    }

    /// Creates a field.
    /// - Parameters:
    ///   - name: The field's name.
    ///   - path: The key path to read; `nil` for the key named like the field (by the naming convention).
    ///   - type: The type to convert to.
    ///   - isOptional: Whether missing and `null` are allowed.
    ///   - defaultValue: What a missing value gives (see ``defaultValue``).
    ///   - truncatesFractions: For integer types, whether `3.5` becomes `3` instead of a rejection.
    ///   - epochUnit: For dates, the unit of epoch numbers.
    ///   - dateFormats: For dates, the formats to try, in order: epoch numbers and ISO 8601 text unless given.
    ///   - enumValues: For enums, the value map.
    ///   - validators: Rules the value must follow.
    ///   - transform: Your own conversion of the JSON value, before the type's.
    public init(
        name: String, path: String? = nil, type: FieldType, isOptional: Bool = false, defaultValue: FieldValue? = nil,
        truncatesFractions: Bool = false, epochUnit: EpochUnit = .seconds, dateFormats: [DateFormat] = DateFormat.defaults,
        enumValues: [EnumValue] = [], validators: [Validator] = [], transform: ValueTransform? = nil
    ) {
        self.name = name
        self.path = path
        self.type = type
        self.isOptional = isOptional
        let settings = Settings(
            defaultValue: defaultValue, truncatesFractions: truncatesFractions, epochUnit: epochUnit, dateFormats: dateFormats,
            enumValues: enumValues, validators: validators, transform: transform
        )
        if settings != .defaults { settingsBox = SettingsBox(settings) }
        isList = Self.readsList(path, cleanups: [])
    }
}

/// A field prints (`print`, `dump`, test failures) with its settings, as a plain struct of them would, not with
/// the box they are kept in.
extension FieldSpec: CustomReflectable {
    public var customMirror: Mirror {
        Mirror(self, children: [
            "name": name, "path": path as Any, "type": type, "isOptional": isOptional, "defaultValue": defaultValue as Any,
            "truncatesFractions": truncatesFractions, "epochUnit": epochUnit, "dateFormats": dateFormats, "decimalFormat": decimalFormat as Any, "enumValues": enumValues,
            "validators": validators, "transform": transform as Any, "isUnique": isUnique, "nullSpellings": nullSpellings as Any,
            "cleanups": cleanups, "fallbackPaths": fallbackPaths, "isList": isList, "childTable": childTable as Any,
        ], displayStyle: .struct)
    }
}

/// A value of one of the field types: defaults, and values handed to callers.
public enum FieldValue: Sendable, Hashable, CustomStringConvertible {
    /// Text (of a string, url, json, decimal or enum field).
    case string(String)
    /// A signed integer.
    case int64(Int64)
    /// An unsigned integer.
    case uint64(UInt64)
    /// A double.
    case double(Double)
    /// A Boolean.
    case bool(Bool)
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    case date(nanoseconds: Int64)
    /// Bytes (of a bytes field, decoded from base64).
    case bytes([UInt8])

    /// The field types a value of this kind can be the default of.
    var fitsTypes: Set<FieldType> {
        switch self {
        case .string: [.string, .url, .enumeration, .decimal]
        case .int64: [.int64]
        case .uint64: [.uint64]
        case .double: [.double]
        case .bool: [.bool]
        case .date: [.date]
        case .bytes: [.bytes]
        }
    }

    public var description: String {
        switch self {
        case .string(let text): "\"\(text)\""
        case .int64(let value): String(value)
        case .uint64(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): String(value)
        case .date(let nanoseconds): DateText.rfc3339(nanoseconds)
        case .bytes(let bytes): bytes.withUnsafeBufferPointer { Base64.encode($0) }
        }
    }

    /// The value taken as the field means it: Swift literals give Int64 and String values, so an integer becomes
    /// a double or uint64, and text is read by the field's rules for input strings (a date, bytes, a number, a
    /// Boolean). Values that do not convert stay as they are; callers check ``fitsTypes``.
    func coerced(for field: FieldSpec) -> FieldValue {
        switch (self, field.type) {
        case (.int64(let value), .double): return .double(Double(value))
        case (.int64(let value), .uint64) where value >= 0: return .uint64(UInt64(value))
        case (.int64(let value), .decimal): return (try? FieldValue.parse(String(value), for: field)) ?? self
        case (.uint64(let value), .decimal): return (try? FieldValue.parse(String(value), for: field)) ?? self
        // A double's shortest text is the number its literal was written as (`0.1`, not its binary expansion).
        case (.double(let value), .decimal) where value.isFinite: return (try? FieldValue.parse(String(value), for: field)) ?? self
        case (.string(let text), .decimal): return (try? FieldValue.parse(text, for: field)) ?? self
        case (.string(let text), .date), (.string(let text), .bytes), (.string(let text), .int64), (.string(let text), .uint64),
             (.string(let text), .double), (.string(let text), .bool):
            return (try? FieldValue.parse(text, for: field)) ?? self
        default: return self
        }
    }

    /// Reads a default written as text in a mapping file, by the rules the field applies to input strings.
    static func parse(_ text: String, for field: FieldSpec) throws(DefaultValueError) -> FieldValue {
        // A trailing NUL that is not counted, so that even empty text has an address.
        let bytes = Array(text.utf8) + [0]
        return try bytes.withUnsafeBufferPointer { (buffer) throws(DefaultValueError) -> FieldValue in
            guard let base = buffer.baseAddress else { throw DefaultValueError(message: "cannot read the default") }
            let count = buffer.count - 1
            func integer() throws(DefaultValueError) -> NumberConversion.ExactInteger {
                guard NumberConversion.isIntegerText(base, count) else { throw DefaultValueError(message: "the default \"\(text)\" is not an integer") }
                return NumberConversion.exactInteger(base, count)
            }
            switch field.type {
            case .string, .enumeration: return .string(text)
            case .url:
                guard URLReference.isValid(base, count) else { throw DefaultValueError(message: "the default \"\(text)\" is not a URL reference") }
                return .string(text)
            case .int64:
                guard case .value(let value) = NumberConversion.signed(try integer()) else { throw DefaultValueError(message: "the default \(text) is out of the int64 range") }
                return .int64(value)
            case .uint64:
                guard case .value(let negative, let magnitude) = try integer(), !negative || magnitude == 0 else {
                    throw DefaultValueError(message: "the default \(text) is out of the uint64 range")
                }
                return .uint64(magnitude)
            case .double:
                guard NumberConversion.isNumberText(base, count), let value = NumberConversion.double(base, count) else {
                    throw DefaultValueError(message: "the default \"\(text)\" is not a finite number")
                }
                return .double(value)
            case .bool:
                guard let value = BoolConversion.value(base, count, isNumber: false) else {
                    throw DefaultValueError(message: "the default \"\(text)\" is not true or false (or \"1\" or \"0\")")
                }
                return .bool(value)
            case .date:
                guard let parser = try? DateParser(unit: field.epochUnit, formats: field.dateFormats),
                      case .instant(let nanoseconds) = parser.text(base, count) else {
                    throw DefaultValueError(message: "the default \"\(text)\" is not a date in the field's unit or formats")
                }
                return .date(nanoseconds: nanoseconds)
            case .bytes:
                guard Base64.isValid(base, count) else { throw DefaultValueError(message: "the default \"\(text)\" is not base64") }
                var decoded: [UInt8] = []
                Base64.decode(base, count) { decoded.append($0) }
                return .bytes(decoded)
            case .decimal:
                guard let format = field.decimalFormat, format.problem == nil else { throw DefaultValueError(message: "a decimal field needs a precision before its default") }
                guard let literal = DecimalLiteral(base, count) else { throw DefaultValueError(message: "the default \"\(text)\" is not a number") }
                var canonical = ""
                if let failure = format.withText(of: literal, { canonical = String(decoding: $0, as: UTF8.self) }) {
                    throw DefaultValueError(message: "the default \(text) is not a \(format.expectation(failure))")
                }
                return .string(canonical)
            case .json:
                throw DefaultValueError(message: "json fields take no default")
            }
        }
    }
}

/// A default that does not fit its field.
struct DefaultValueError: Error {
    var message: String
}

/// Literals for defaults: `0` is an int64 (also taken by double and uint64 fields), `"x"` a string (also read by
/// date, bytes and number fields by their rules for input strings), `true` a bool, `0.5` a double.
extension FieldValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByFloatLiteral {
    public init(integerLiteral value: Int64) { self = .int64(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension FieldSpec {
    /// The kind an enum field's stored values share: integer when every stored value (and the default) is an
    /// integer, number when all are numbers, else text.
    package var enumStoredKind: EnumValue.StoredKind {
        var kinds = Set(enumValues.map(\.storedKind))
        if let defaultValue {
            if case .string(let text) = defaultValue {
                kinds.insert(Int64(text) != nil ? .integer : Double(text) != nil ? .number : .text)
            } else {
                kinds.insert(.text)
            }
        }
        if kinds.isEmpty || kinds.contains(.text) { return .text }
        return kinds == [.integer] ? .integer : .number
    }
}

/// The plan of an array's elements, as the layers below the plan see it: the fields of one element, whose batch
/// rows an array's elements fill. The compiled plan conforms; the state machine reads it as one.
protocol ElementPlanning: AnyObject, Sendable {
    var fields: [FieldSpec] { get }
}
