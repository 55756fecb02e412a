/// Your own conversion of a JSON value, run before a field's type converts it: the dynamic schema's counterpart
/// of a typed field's `transform:` closure.
///
/// The transform sees every value present at the field's key path, `null` and whole objects and arrays included
/// (as their JSON text); a missing key does not call it. What it returns is converted by the field's type as if
/// the input had held it (`.number("150")` into an int64 column gives 150); nil counts as `null` (an optional
/// field becomes null; a required one takes its default or rejects the record). If it throws, the record is
/// rejected with the key path and the error's description:
/// `$.price: transform centsFromPrice failed: expected a price like "$1.50"`.
///
/// Transforms run on the mapping's worker threads, for each value: keep them free of shared mutable state.
/// Because a transform has no way back, encoding skips transformed fields.
public struct ValueTransform: Sendable, Hashable, CustomStringConvertible {
    /// The name mapping files refer to it by; transforms compare by name.
    public let name: String
    let body: @Sendable (JSONValue) throws -> JSONValue?

    /// A transform named `name` (see the type's description for what `body` receives and returns).
    public init(name: String, _ body: @escaping @Sendable (JSONValue) throws -> JSONValue?) {
        self.name = name
        self.body = body
    }

    public var description: String { "transform \(name)" }

    public static func == (left: ValueTransform, right: ValueTransform) -> Bool { left.name == right.name }

    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
