/// One field of a dynamic schema: where its value comes from and what type it has.
public struct FieldSpec: Sendable, Hashable {
    /// The field's (column's) name. Unique within a schema.
    public var name: String
    /// The key path the value is read from, in the syntax of ``KeyPath`` (`user.stats.views`, `media.0.url`, `$`).
    public var path: String
    /// The type the value is converted to.
    public var type: FieldType
    /// Whether a missing key or a JSON `null` maps to null instead of rejecting the record.
    public var isOptional: Bool

    /// Creates a field.
    /// - Parameters:
    ///   - name: The field's name.
    ///   - path: The key path to read; defaults to the name, with dots in it escaped.
    ///   - type: The type to convert to.
    ///   - isOptional: Whether missing and `null` are allowed.
    public init(name: String, path: String? = nil, type: FieldType, isOptional: Bool = false) {
        self.name = name
        self.path = path ?? KeyPath.escaped(key: name)
        self.type = type
        self.isOptional = isOptional
    }
}
