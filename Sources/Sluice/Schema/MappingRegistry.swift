/// Named code that mapping files can refer to: validators (`validate: {custom: isEven}`) and transforms
/// (`transform: centsFromPrice`). Register once, pass the registry to every schema that uses the names.
public struct MappingRegistry: Sendable {
    var validators: [String: @Sendable (FieldValue) -> Bool] = [:]
    var transforms: [String: ValueTransform] = [:]

    /// An empty registry.
    public init() {}

    /// Registers a validator under `name`.
    public mutating func registerValidator(named name: String, _ check: @escaping @Sendable (FieldValue) -> Bool) {
        validators[name] = check
    }

    /// Registers a transform under `name`: it receives each value present at the field's key path (`null`
    /// included) and returns the JSON value the field then converts by its type, or nil for no value; it throws
    /// to reject the record. See ``ValueTransform``.
    public mutating func registerTransform(named name: String, _ body: @escaping @Sendable (JSONValue) throws -> JSONValue?) {
        transforms[name] = ValueTransform(name: name, body)
    }
}
