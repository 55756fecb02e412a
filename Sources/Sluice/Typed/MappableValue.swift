import Foundation

/// A type a mapped property (or initialiser argument) can have: Sluice knows how to read it from a JSON value.
///
/// Conforming types: `String`; `Int`, `Int8`, `Int16`, `Int32`, `Int64`, `UInt`, `UInt8`, `UInt16`, `UInt32`,
/// `UInt64`; `Double`, `Float`, `Decimal` (exact, from the number's text); `Bool`; `Date`; `URL`; `UUID`;
/// `Data` (from base64); ``JSONValue``; and `Optional`, `Array` and `Set` of any of these. Enums with `String` or
/// `Int` raw values have initialisers of their own on ``Field``.
///
/// The conformances are Sluice's: a property of another type does not compile, and the compiler names the type
/// (`type 'Money' does not conform to protocol 'MappableValue'`); read such a property with a transform.
public protocol MappableValue: Sendable, Equatable {
    /// How values of this type are read from a field's column; its parts are Sluice's own.
    static var valueReading: ValueReading<Self> { get }
}

/// How a ``MappableValue`` is read from a field's column (opaque: its parts are Sluice's own).
public struct ValueReading<Value>: Sendable {
    /// The column's type.
    let type: FieldType
    /// Whether a missing key or `null` is a value of this type (optionals) rather than a rejection.
    let isOptional: Bool
    /// The value for a missing key when the type is not optional but the column is (arrays: empty).
    let absent: (@Sendable () -> Value)?
    /// Where the column holds the value as the property stores it: the fast write at a property's offset.
    let kind: StoredValueKind?
    /// Whether `read` may refuse a committed row (a conversion made only now, when the model is made).
    let mayRefuse: Bool
    /// Field options the type implies (date formats, a Foundation URL).
    let configure: @Sendable (inout FieldSpec) -> Void
    /// The value of a committed row: `nil` when the row has none; a failure (its key path relative to the value,
    /// `$` for the value itself) when a conversion made now refuses it.
    let read: @Sendable (ColumnStorage, Int) -> Result<Value?, ValueFailure>
    /// The value as a field value, for writing records back as JSON (`nil` for null or no way back).
    let encode: @Sendable (Value) -> FieldValue?

    init(
        type: FieldType, isOptional: Bool = false, absent: (@Sendable () -> Value)? = nil, kind: StoredValueKind? = nil,
        mayRefuse: Bool = false, configure: @escaping @Sendable (inout FieldSpec) -> Void = { _ in },
        read: @escaping @Sendable (ColumnStorage, Int) -> Result<Value?, ValueFailure>, encode: @escaping @Sendable (Value) -> FieldValue?
    ) {
        self.type = type
        self.isOptional = isOptional
        self.absent = absent
        self.kind = kind
        self.mayRefuse = mayRefuse
        self.configure = configure
        self.read = read
        self.encode = encode
    }

    /// A type whose column always holds a convertible value: `value` reads a valid row.
    init(type: FieldType, kind: StoredValueKind?, configure: @escaping @Sendable (inout FieldSpec) -> Void = { _ in },
         value: @escaping @Sendable (ColumnStorage, Int) -> Value, encode: @escaping @Sendable (Value) -> FieldValue?) {
        self.init(type: type, kind: kind, configure: configure, read: { storage, row in .success(storage.isValid(row) ? value(storage, row) : nil) }, encode: encode)
    }

    /// A type converted once more when the model is made: `convert` gives nil for a value it refuses, which is
    /// then described as `expected \(name), found …`.
    init(type: FieldType, name: String, configure: @escaping @Sendable (inout FieldSpec) -> Void = { _ in },
         convert: @escaping @Sendable (ColumnStorage, Int) -> Value?, encode: @escaping @Sendable (Value) -> FieldValue?) {
        // The engine's own rejections (a missing value, a mismatch) then name this type too, not the column's.
        let shown = ShownType(refusal: name)
        let configured: @Sendable (inout FieldSpec) -> Void = { spec in
            configure(&spec)
            spec.shownType = shown
        }
        self.init(type: type, mayRefuse: true, configure: configured, read: { storage, row in
            guard storage.isValid(row) else { return .success(nil) }
            guard let value = convert(storage, row) else {
                return .failure(ValueFailure(keyPath: "$", kind: .outOfRange, expected: name, found: storage.describedValue(row)))
            }
            return .success(value)
        }, encode: encode)
    }
}

/// Why a value was refused when its model was made; the key path is relative to the value (`$`, `$[2].text`).
struct ValueFailure: Error {
    var failure: Rejection.Failure

    init(_ failure: Rejection.Failure) { self.failure = failure }

    init(keyPath: String, kind: Rejection.Kind, expected: String, found: String) {
        failure = Rejection.Failure(keyPath: keyPath, kind: kind, expected: expected, found: found)
    }

    /// The failure with its key path placed under `path` (the value's own path in the record).
    func placed(under path: String) -> Rejection.Failure {
        var placed = failure
        placed.keyPath = path + failure.keyPath.dropFirst()
        return placed
    }
}

extension ValueReading {
    /// The reading of `Value?`: missing or `null` gives nil.
    var optional: ValueReading<Value?> {
        let read = read
        let encode = encode
        let type = type
        return ValueReading<Value?>(
            type: type, isOptional: true, kind: kind?.optional, mayRefuse: mayRefuse, configure: configure,
            read: { storage, row in
                // A json column may hold `null` as text where the type's own reading refuses it.
                if type.keepsJSONText, storage.isValid(row), storage.textBytes(row).elementsEqual("null".utf8) { return .success(.some(nil)) }
                return read(storage, row).map { value -> Value?? in .some(value) }
            },
            encode: { $0.flatMap(encode) }
        )
    }
}

// MARK: Text, numbers, Booleans

extension String: MappableValue {
    public static var valueReading: ValueReading<String> {
        ValueReading(type: .string, kind: .string, value: { $0.text($1) ?? "" }, encode: { .string($0) })
    }
}

extension Int64: MappableValue {
    public static var valueReading: ValueReading<Int64> {
        ValueReading(type: .int64, kind: .int64, value: { $0.int64($1) ?? 0 }, encode: { .int64($0) })
    }
}

extension Int: MappableValue {
    public static var valueReading: ValueReading<Int> {
        ValueReading(type: .int64, kind: .int, value: { Int(truncatingIfNeeded: $0.int64($1) ?? 0) }, encode: { .int64(Int64($0)) })
    }
}

extension UInt64: MappableValue {
    public static var valueReading: ValueReading<UInt64> {
        ValueReading(type: .uint64, kind: .uint64, value: { $0.uint64($1) ?? 0 }, encode: { .uint64($0) })
    }
}

extension Double: MappableValue {
    public static var valueReading: ValueReading<Double> {
        ValueReading(type: .double, kind: .double, value: { $0.double($1) ?? 0 }, encode: { .double($0) })
    }
}

extension Bool: MappableValue {
    public static var valueReading: ValueReading<Bool> {
        ValueReading(type: .bool, kind: .bool, value: { $0.bool($1) ?? false }, encode: { .bool($0) })
    }
}

/// Narrower integers (`Int32`, `UInt8`, …): read as 64-bit integers, then refused when outside the type's range
/// (`expected int32 (-2147483648 to 2147483647), found number 3000000000`). `Int64`, `Int` and `UInt64` have
/// readings of their own, which the column holds as is.
extension MappableValue where Self: FixedWidthInteger {
    public static var valueReading: ValueReading<Self> {
        let name = (Self.isSigned ? "int" : "uint") + "\(Self.bitWidth) (\(Self.min) to \(Self.max))"
        if Self.isSigned {
            return ValueReading(type: .int64, name: name, convert: { storage, row in storage.int64(row).flatMap { Self(exactly: $0) } }, encode: { .int64(Int64($0)) })
        }
        return ValueReading(type: .uint64, name: name, convert: { storage, row in storage.uint64(row).flatMap { Self(exactly: $0) } }, encode: { .uint64(UInt64($0)) })
    }
}

extension Int32: MappableValue {}
extension Int16: MappableValue {}
extension Int8: MappableValue {}
extension UInt: MappableValue {}
extension UInt32: MappableValue {}
extension UInt16: MappableValue {}
extension UInt8: MappableValue {}

/// Read as a `Double` (correctly rounded), then rounded to the nearest `Float`; refused when that rounds to
/// infinity (beyond `Float`'s finite range).
extension Float: MappableValue {
    public static var valueReading: ValueReading<Float> {
        ValueReading(type: .double, name: "float (finite)", convert: { storage, row in
            storage.double(row).map(Float.init).flatMap { $0.isFinite ? $0 : nil }
        }, encode: { .double(Double($0)) })
    }
}

/// Exact: read from the number's literal text (or a numeric string), never through a `Double`; refused when
/// it has more significant digits than `Decimal` holds (38) or an exponent beyond its range.
extension Decimal: MappableValue {
    public static var valueReading: ValueReading<Decimal> {
        ValueReading(type: .string, name: "decimal (at most 38 significant digits)", convert: { storage, row in
            DecimalText.decimal(storage.textBytes(row))
        }, encode: { .string($0.description) })
    }
}

// MARK: Dates, URLs, identifiers, data, JSON

extension Date: MappableValue {
    public static var valueReading: ValueReading<Date> {
        ValueReading(type: .date, kind: .date, value: { $0.date($1) ?? Date(timeIntervalSince1970: 0) }, encode: FieldValue.init(encoding:))
    }
}

/// An absolute or relative reference that Foundation's `URL` also accepts (the engine checks it while mapping).
extension URL: MappableValue {
    public static var valueReading: ValueReading<URL> {
        ValueReading(type: .url, mayRefuse: false, configure: { $0.requiresFoundationURL = true }, read: { storage, row in
            .success(storage.url(row))
        }, encode: { .string($0.absoluteString) })
    }
}

/// Text in the 8-4-4-4-12 hexadecimal form, in either case (`UUID(uuidString:)`).
extension UUID: MappableValue {
    public static var valueReading: ValueReading<UUID> {
        ValueReading(type: .string, name: "uuid (8-4-4-4-12 hexadecimal digits)", convert: { storage, row in
            storage.text(row).flatMap(UUID.init(uuidString:))
        }, encode: { .string($0.uuidString) })
    }
}

/// From base64 text.
extension Data: MappableValue {
    public static var valueReading: ValueReading<Data> {
        ValueReading(type: .bytes, kind: .data, value: { $0.data($1) ?? Data() }, encode: { .bytes(Array($0)) })
    }
}

/// Any value as it is (objects and arrays as their JSON text). As for a `json` field, a `JSONValue` property
/// requires a value other than `null`; a `JSONValue?` is nil for `null` and for a missing key.
extension JSONValue: MappableValue {
    public static var valueReading: ValueReading<JSONValue> {
        ValueReading(type: .json, name: "a JSON value", convert: { storage, row in
            JSONValue(jsonText: storage.textBytes(row))
        }, encode: { .string($0.jsonText) })
    }
}

// MARK: Optionals and collections

/// Missing or `null` gives nil.
extension Optional: MappableValue where Wrapped: MappableValue {
    public static var valueReading: ValueReading<Wrapped?> { Wrapped.valueReading.optional }
}

/// A JSON array, element by element with the element type's conversion; `null` elements are dropped, and an
/// element that does not convert rejects the record, naming it (`$.scores[2]: expected int32 …`). A missing key
/// (or `null`) leaves a property as the model was made, and gives an initialiser parameter an empty array.
extension Array: MappableValue where Element: MappableValue {
    public static var valueReading: ValueReading<[Element]> {
        ArrayElements.reading(of: Element.self, wrap: { $0 }, unwrap: { $0 })
    }
}

/// A JSON array as a set: duplicates removed.
extension Set: MappableValue where Element: MappableValue {
    public static var valueReading: ValueReading<Set<Element>> {
        ArrayElements.reading(of: Element.self, wrap: { Set($0) }, unwrap: { Array($0) })
    }
}

extension StoredValueKind {
    /// The same type, optional.
    var optional: StoredValueKind? {
        switch self {
        case .string: .optionalString
        case .int64: .optionalInt64
        case .int: .optionalInt
        case .uint64: .optionalUInt64
        case .double: .optionalDouble
        case .bool: .optionalBool
        case .date: .optionalDate
        case .data: .optionalData
        default: nil
        }
    }
}

extension ColumnStorage {
    /// A committed value for a rejection's message: `number 3000000000`, `string "abc"`.
    func describedValue(_ row: Int) -> String {
        switch type {
        case .double: "number \(double(row).map { "\($0)" } ?? "")"
        case .uint64: "number \(uint64(row).map { "\($0)" } ?? "")"
        case .int64, .date: "number \(int64(row).map { "\($0)" } ?? "")"
        case .bool: bool(row).map(ValueDescription.bool) ?? ValueDescription.null
        case .json: ValueDescription.jsonText(textBytes(row))
        case .decimal: "number " + String(decoding: textBytes(row), as: UTF8.self)
        case .string, .url, .bytes, .enumeration: ValueDescription.string(textBytes(row))
        }
    }
}

/// `Date` and `Date?`: the properties a field with date formats and an epoch unit can read.
public protocol DateProperty: MappableValue {}

extension Date: DateProperty {}

extension Optional: DateProperty where Wrapped == Date {}

/// The raw value types of enums a field maps: `String` and `Int`.
public protocol EnumRawValue: Sendable {
    /// The raw value of an enum case as it stands in the JSON (the key of the field's value map).
    var enumKey: String { get }
    /// The raw value a mapped value's text stands for.
    init?(enumKey: String)
}

extension String: EnumRawValue {
    /// The string itself.
    public var enumKey: String { self }
    /// The string itself.
    public init?(enumKey: String) { self = enumKey }
}

extension Int: EnumRawValue {
    /// The integer's decimal digits.
    public var enumKey: String { String(self) }
    /// The integer whose decimal digits `enumKey` holds; nil for other text.
    public init?(enumKey: String) { self.init(enumKey) }
}

/// How enum properties are read: the cases' raw values are the field's value map, so the engine has matched
/// the value (or applied the default) before the model is made.
enum EnumReading<Value: RawRepresentable & CaseIterable & Equatable & Sendable> where Value.RawValue: EnumRawValue {
    static func configure(_ spec: inout FieldSpec) {
        spec.enumValues = Value.allCases.map { EnumValue($0.rawValue.enumKey) }
    }

    static func value(_ storage: ColumnStorage, _ row: Int) -> Value? {
        storage.text(row).flatMap(Value.RawValue.init(enumKey:)).flatMap(Value.init(rawValue:))
    }

    static var reading: ValueReading<Value> {
        ValueReading(type: .enumeration, configure: configure, read: { .success(value($0, $1)) }, encode: { .string($0.rawValue.enumKey) })
    }

    static var optionalReading: ValueReading<Value?> {
        ValueReading(type: .enumeration, isOptional: true, configure: configure, read: { .success(.some(value($0, $1))) }, encode: { $0.map { .string($0.rawValue.enumKey) } })
    }
}
