import Foundation

/// Where a discovered value lies in a batch's columns, and how it is read when a model is made: the discovered
/// nodes compiled into columns of one plan (an array's elements into an element plan of their own).
final class DecodingNode: @unchecked Sendable {
    enum Reading {
        /// An object: its keys (coding keys' string values) and their nodes.
        case object(keys: [String: Int], children: [DecodingNode])
        /// An array: its column, holding element rows (or, read by another field too, its text); its element's
        /// node, in the element plan.
        case array(column: Int, element: DecodingNode?)
        case scalar(column: Int, DecodedScalar)
        /// The value's JSON text, decoded by the JSONDecoder.
        case text(column: Int)
        /// Nothing but whether the value is there.
        case presence
    }

    let reading: Reading
    /// A json column holding the value's text where the model asks whether it is there or null: an optional
    /// object (an object of absent keys is still an object), or a key asked about with `contains`.
    let presence: Int?
    /// The value's key path from its plan's root, as rejections show it.
    let path: String
    /// The same path as coding keys named by their JSON keys, for errors the model's own code throws.
    let codingPath: [any CodingKey]
    let context: DecodingContext

    init(reading: Reading, presence: Int?, path: String, codingPath: [any CodingKey], context: DecodingContext) {
        self.reading = reading
        self.presence = presence
        self.path = path
        self.codingPath = codingPath
        self.context = context
    }
}

/// What every node of one mapping shares: the JSONDecoder for values Sluice does not read itself, and the user
/// info its models' `init(from:)` see.
///
/// `JSONDecoder` decodes from any thread at once (it copies its settings into each decoding); it is only read here.
final class DecodingContext: @unchecked Sendable {
    let decoder: JSONDecoder
    let userInfo: [CodingUserInfoKey: Any]

    init(decoder: JSONDecoder) {
        self.decoder = decoder
        userInfo = decoder.userInfo
    }
}

/// Compiles discovered nodes into the columns of a plan and the ``DecodingNode``s that read them.
struct DecodableLayout {
    let context: DecodingContext
    let keyName: @Sendable (String) -> String
    /// Whether values come only from their type's JSON kind, as `JSONDecoder` takes them.
    let isStrict: Bool
    private(set) var columns: [FieldSpec] = []
    private(set) var problems: [String] = []

    init(context: DecodingContext, keyName: @escaping @Sendable (String) -> String, isStrict: Bool) {
        self.context = context
        self.keyName = keyName
        self.isStrict = isStrict
    }

    /// The node of a plan's root (a record, or an array's element).
    mutating func root(_ node: DiscoveredNode) -> DecodingNode {
        build(node, keys: [], codingKeys: [])
    }

    private mutating func build(_ node: DiscoveredNode, keys: [String], codingKeys: [any CodingKey]) -> DecodingNode {
        let path = Self.display(keys)
        if let problem = node.problem { problems.append("\(path): \(problem)") }
        var presence: Int?
        let reading: DecodingNode.Reading
        switch node.kind {
        case .object:
            var children: [DecodingNode] = []
            var index: [String: Int] = [:]
            for key in node.keys {
                guard let child = node.child(ifKnown: key) else { continue }
                index[key] = children.count
                let jsonKey = keyName(key)
                children.append(build(child, keys: keys + [jsonKey], codingKeys: codingKeys + [RecordKey(stringValue: jsonKey)]))
            }
            // Without a key it must hold, an absent object would read as one of absent keys.
            let holdsRequiredKey = node.keys.contains { key in
                guard let child = node.child(ifKnown: key), !child.isOptional else { return false }
                switch child.kind {
                case .scalar, .array, .text: return true
                case .object, .unknown: return false
                }
            }
            if !keys.isEmpty && (node.isOptional || node.isProbed || !holdsRequiredKey) { presence = addColumn(keys, .json, suffix: " (present)") }
            reading = .object(keys: index, children: children)
        case .array:
            var elementLayout = DecodableLayout(context: context, keyName: keyName, isStrict: isStrict)
            let element = node.element.map { elementLayout.root($0) }
            problems += elementLayout.problems.map { "\(path)[*]\($0.dropFirst())" }
            var plan: CompiledPlan?
            if element != nil {
                do {
                    plan = try PlanCompiler.compile(elementLayout.columns)
                } catch {
                    problems.append("\(path): \(error)")
                }
            }
            let column = addColumn(keys, .json) { $0.elementPlan = plan }
            if node.isProbed { presence = addColumn(keys, .json, suffix: " (present)") }
            reading = .array(column: column, element: plan == nil ? nil : element)
        case .scalar(let scalar):
            let column = addColumn(keys, scalar.columnType)
            if node.isProbed { presence = addColumn(keys, .json, suffix: " (present)") }
            reading = .scalar(column: column, scalar)
        case .text:
            reading = .text(column: addColumn(keys, .json))
        case .unknown:
            presence = addColumn(keys, .json, suffix: " (present)")
            reading = .presence
        }
        return DecodingNode(reading: reading, presence: presence, path: path, codingPath: codingKeys, context: context)
    }

    /// A column reading the value at `keys`: optional, since the model's `init(from:)` decides what is required.
    private mutating func addColumn(_ keys: [String], _ type: FieldType, suffix: String = "", configure: (inout FieldSpec) -> Void = { _ in }) -> Int {
        let path = keys.isEmpty ? "$" : keys.map(FieldPath.escaped(key:)).joined(separator: ".")
        var spec = FieldSpec(name: Self.display(keys) + suffix, path: path, type: type, isOptional: true)
        spec.takesOnlyItsKind = isStrict
        configure(&spec)
        columns.append(spec)
        return columns.count - 1
    }

    static func display(_ keys: [String]) -> String {
        keys.isEmpty ? "$" : (try? FieldPath(parsing: keys.map(FieldPath.escaped(key:)).joined(separator: ".")))?.description ?? "$." + keys.joined(separator: ".")
    }
}

extension DiscoveredNode {
    func child(ifKnown key: String) -> DiscoveredNode? { keys.contains(key) ? child(key) : nil }
}

extension DecodedScalar {
    /// The column a scalar is read into.
    var columnType: FieldType {
        switch self {
        case .string, .base64Data, .url: .string
        case .bool: .bool
        case .double, .date: .double
        case .integer(let signed, _): signed ? .int64 : .uint64
        }
    }
}

/// `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase` turned around: the JSON key a coding key is read from.
enum SnakeCaseKeys {
    /// The snake_case spelling of a coding key that `convertFromSnakeCase` turns back into it (`userName` from
    /// `user_name`, `userID` from `user_i_d`), or the key as it is where none does (`URLString`).
    static func jsonKey(for codingKey: String) -> String {
        var snake = ""
        for character in codingKey {
            if character.isUppercase && !snake.isEmpty && snake.last != "_" { snake.append("_") }
            snake += character.lowercased()
        }
        return convertFromSnakeCase(snake) == codingKey ? snake : codingKey
    }

    /// What `JSONDecoder` makes of a JSON key under `.convertFromSnakeCase`: underscores at either end kept, the
    /// words between lower-cased, then capitalised after the first; a key without an inner underscore unchanged.
    static func convertFromSnakeCase(_ key: String) -> String {
        guard let first = key.firstIndex(where: { $0 != "_" }), let last = key.lastIndex(where: { $0 != "_" }) else { return key }
        let words = key[first...last].split(separator: "_")
        guard words.count > 1 else { return key }
        let joined = words[0].lowercased() + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }.joined()
        return String(key[..<first]) + joined + String(key[key.index(after: last)...])
    }
}
