/// One property of a typed model and the key path its value is read from.
///
/// ```swift
/// Field("user_stats.views", \.views)          // Int64 or Int: required
/// Field("user.name", \.userName)               // String?: optional (missing or null gives nil)
/// Field(json: "entities", \.entitiesJSON)      // the value's JSON text
/// ```
///
/// The property's type picks the conversion: `String`, `Int64`, `Int`, `Double`, `Bool`, each optional or not.
/// A misspelled property does not compile.
public struct Field<Model>: Sendable {
    let path: String
    let type: FieldType
    let isOptional: Bool
    let name: String
    let writer: FieldWriter<Model>

    private init<Value>(
        _ path: String, _ keyPath: WritableKeyPath<Model, Value> & Sendable, type: FieldType, isOptional: Bool,
        kind: StoredValueKind, read: @escaping @Sendable (ColumnStorage, Int) -> Value
    ) {
        self.path = path
        self.type = type
        self.isOptional = isOptional
        name = "\(keyPath)"
        // A stored property of a struct has a fixed offset: values are written there directly, which costs a
        // fraction of applying the key path. Anything else (computed properties, classes) goes through the key path.
        if let offset = MemoryLayout<Model>.offset(of: keyPath) {
            writer = .stored(offset: offset, kind: kind)
        } else {
            writer = .keyPath { model, storage, row in model[keyPath: keyPath] = read(storage, row) }
        }
    }

    /// A required text property.
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, String> & Sendable) {
        self.init(path, keyPath, type: .string, isOptional: false, kind: .string) { $0.text($1) ?? "" }
    }

    /// An optional text property.
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, String?> & Sendable) {
        self.init(path, keyPath, type: .string, isOptional: true, kind: .optionalString) { $0.text($1) }
    }

    /// A required 64-bit integer property.
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, Int64> & Sendable) {
        self.init(path, keyPath, type: .int64, isOptional: false, kind: .int64) { $0.int64($1) ?? 0 }
    }

    /// An optional 64-bit integer property.
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, Int64?> & Sendable) {
        self.init(path, keyPath, type: .int64, isOptional: true, kind: .optionalInt64) { $0.int64($1) }
    }

    /// A required `Int` property (64 bits on the platforms Sluice supports).
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, Int> & Sendable) {
        self.init(path, keyPath, type: .int64, isOptional: false, kind: .int) { Int(truncatingIfNeeded: $0.int64($1) ?? 0) }
    }

    /// An optional `Int` property.
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, Int?> & Sendable) {
        self.init(path, keyPath, type: .int64, isOptional: true, kind: .optionalInt) { $0.int64($1).map { Int(truncatingIfNeeded: $0) } }
    }

    /// A required floating-point property.
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, Double> & Sendable) {
        self.init(path, keyPath, type: .double, isOptional: false, kind: .double) { $0.double($1) ?? 0 }
    }

    /// An optional floating-point property.
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, Double?> & Sendable) {
        self.init(path, keyPath, type: .double, isOptional: true, kind: .optionalDouble) { $0.double($1) }
    }

    /// A required Boolean property.
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, Bool> & Sendable) {
        self.init(path, keyPath, type: .bool, isOptional: false, kind: .bool) { $0.bool($1) ?? false }
    }

    /// An optional Boolean property.
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, Bool?> & Sendable) {
        self.init(path, keyPath, type: .bool, isOptional: true, kind: .optionalBool) { $0.bool($1) }
    }

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
}

/// The Swift type of a stored property a field writes.
enum StoredValueKind: Sendable {
    case string, optionalString, int64, optionalInt64, int, optionalInt, double, optionalDouble, bool, optionalBool
}

extension ColumnStorage {
    // Readers for committed rows; a required field's row is always valid, so the fallbacks above never apply.
    func text(_ row: Int) -> String? {
        isValid(row) ? String(decoding: textBytes(row), as: UTF8.self) : nil
    }

    func int64(_ row: Int) -> Int64? {
        isValid(row) ? values.assumingMemoryBound(to: Int64.self)[row] : nil
    }

    func double(_ row: Int) -> Double? {
        isValid(row) ? values.assumingMemoryBound(to: Double.self)[row] : nil
    }

    func bool(_ row: Int) -> Bool? {
        isValid(row) ? values.assumingMemoryBound(to: UInt8.self)[row] != 0 : nil
    }
}
