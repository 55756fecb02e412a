import Foundation

/// Where a discovered value lies in a batch's columns, and how it is read when a model is made: the discovered
/// nodes compiled into columns of one plan (an array's elements into an element plan of their own).
final class DecodingNode: @unchecked Sendable {
    enum Kind {
        /// An object: its keys in ``DecodingNode/keyNames`` (coding keys' string values), their nodes in
        /// ``DecodingNode/children``.
        case object
        /// An array: its column holds element rows (or, read by another field too, its text); its element's node,
        /// in the element plan, is ``DecodingNode/element``.
        case array
        case scalar(DecodedScalar)
        /// The value's JSON text, decoded by the JSONDecoder.
        case text
        /// Nothing but whether the value is there.
        case presence
    }

    let kind: Kind
    /// The column of an array, a scalar or a text value; -1 for the others.
    let column: Int
    let keyNames: [String]
    let children: [DecodingNode]
    /// The keys, their UTF-8 lengths and their nodes in plain memory, for the lookup each decoded key makes.
    private let lookupNames: UnsafeMutableBufferPointer<String>
    private let lookupLengths: UnsafeMutableBufferPointer<Int>
    private let lookupChildren: UnsafeMutableBufferPointer<Unmanaged<DecodingNode>>
    let element: DecodingNode?
    /// For an object without a presence column: the columns of the keys it requires on every path, which stand in
    /// for it (all missing, the object may be missing or null).
    let presenceStandIns: [Int]
    /// The presence columns of a value's other spellings (``SnakeCaseKeys/spellings(of:)``), in their order.
    let otherSpellingsPresence: [Int]
    /// A json column holding the value's text where the model asks whether it is there or null: an optional
    /// object (an object of absent keys is still an object), or a key asked about with `contains`.
    let presence: Int?
    /// The value's key path from its plan's root, as rejections show it.
    let path: String
    /// The same path as coding keys named by their JSON keys, for errors the model's own code throws.
    let codingPath: [any CodingKey]
    let context: DecodingContext

    init(
        kind: Kind, column: Int = -1, keyNames: [String] = [], children: [DecodingNode] = [], element: DecodingNode? = nil, presence: Int?,
        presenceStandIns: [Int] = [], otherSpellingsPresence: [Int] = [], path: String, codingPath: [any CodingKey], context: DecodingContext
    ) {
        self.kind = kind
        self.otherSpellingsPresence = otherSpellingsPresence
        self.presenceStandIns = presenceStandIns
        self.column = column
        self.keyNames = keyNames
        self.children = children
        self.element = element
        self.presence = presence
        self.path = path
        self.codingPath = codingPath
        self.context = context
        lookupNames = .allocate(capacity: keyNames.count)
        _ = lookupNames.initialize(from: keyNames)
        lookupLengths = .allocate(capacity: keyNames.count)
        _ = lookupLengths.initialize(from: keyNames.map(\.utf8.count))
        lookupChildren = .allocate(capacity: children.count)
        _ = lookupChildren.initialize(from: children.map { Unmanaged.passUnretained($0) })
    }

    deinit {
        lookupNames.deinitialize().deallocate()
        lookupLengths.deallocate()
        lookupChildren.deallocate()
    }

    /// The node of an object's key: a scan, not a hash, since objects read a few keys, each a short literal; the
    /// lengths first, since comparing two strings that differ costs more than finding that they are equal.
    @inline(__always)
    func child(named name: String) -> Unmanaged<DecodingNode>? {
        let length = name.utf8.count
        var index = 0
        while index < lookupLengths.count {
            if lookupLengths[index] == length && lookupNames[index] == name { return lookupChildren[index] }
            index += 1
        }
        return nil
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
    /// The spellings a coding key is read from in the record, the first the one read everywhere, the others for
    /// values of their own (scalars), tried in turn when the first gives none.
    let keySpellings: @Sendable (String) -> [String]
    /// Whether values come only from their type's JSON kind, as `JSONDecoder` takes them.
    let isStrict: Bool
    private(set) var columns: [FieldSpec] = []
    private(set) var problems: [String] = []

    init(context: DecodingContext, keySpellings: @escaping @Sendable (String) -> [String], isStrict: Bool) {
        self.context = context
        self.keySpellings = keySpellings
        self.isStrict = isStrict
    }

    /// The node of a plan's root (a record, or an array's element).
    mutating func root(_ node: DiscoveredNode) -> DecodingNode {
        build(node, keys: [], codingKeys: [])
    }

    private mutating func build(_ node: DiscoveredNode, keys: [String], codingKeys: [any CodingKey], otherSpellings: [String] = []) -> DecodingNode {
        let path = Self.display(keys)
        if let problem = node.problem { problems.append("\(path): \(problem)") }
        var presence: Int?
        switch node.kind {
        case .object:
            var names: [String] = []
            var children: [DecodingNode] = []
            for key in node.keys {
                guard let child = node.child(ifKnown: key) else { continue }
                names.append(key)
                let spellings = keySpellings(key)
                let jsonKey = spellings.first ?? key
                children.append(build(child, keys: keys + [jsonKey], codingKeys: codingKeys + [RecordKey(stringValue: jsonKey)], otherSpellings: Array(spellings.dropFirst())))
            }
            // Without a key it must hold on every path through `init(from:)`, an absent or null object would read
            // as one of absent keys.
            let required = node.keysRequiredOnEveryPath
            let holdsRequiredKey = node.keys.contains { key in
                guard required.contains(key), let child = node.child(ifKnown: key), !child.isOptional else { return false }
                switch child.kind {
                case .scalar, .array, .text: return true
                case .object, .unknown: return false
                }
            }
            if !keys.isEmpty && (node.isOptional || node.isProbed || !holdsRequiredKey) { presence = addColumn(keys, .json, suffix: " (present)") }
            let standIns = zip(names, children).compactMap { name, child in required.contains(name) && child.column >= 0 ? child.column : nil }
            return DecodingNode(kind: .object, keyNames: names, children: children, presence: presence, presenceStandIns: presence == nil && !keys.isEmpty ? standIns : [],
                                path: path, codingPath: codingKeys, context: context)
        case .array:
            var elementLayout = DecodableLayout(context: context, keySpellings: keySpellings, isStrict: isStrict)
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
            // Its column keeps `null` as text: it tells a missing key from null itself.
            let column = addColumn(keys, .json) { $0.elementPlan = plan }
            return DecodingNode(kind: .array, column: column, element: plan == nil ? nil : element, presence: presence, path: path, codingPath: codingKeys, context: context)
        case .scalar(let scalar):
            let column = addColumn(keys, scalar.columnType) { spec in
                spec.fallbackPaths = otherSpellings.map { Self.path(keys.dropLast() + [$0]) }
            }
            var spellingsPresence: [Int] = []
            if node.isProbed {
                // Whether the value is there is asked of each spelling it is read from.
                presence = addColumn(keys, .json, suffix: " (present)")
                spellingsPresence = otherSpellings.map { addColumn(Array(keys.dropLast()) + [$0], .json, suffix: " (present)") }
            }
            return DecodingNode(kind: .scalar(scalar), column: column, presence: presence, otherSpellingsPresence: spellingsPresence, path: path,
                                codingPath: codingKeys, context: context)
        case .text:
            if node.isReadThroughNestedContainer {
                problems.append("\(path): read by position or by its keys through a nested container, which Sluice cannot hand to the JSONDecoder; decode a type of its own there")
            }
            return DecodingNode(kind: .text, column: addColumn(keys, .json), presence: nil, path: path, codingPath: codingKeys, context: context)
        case .unknown:
            return DecodingNode(kind: .presence, presence: addColumn(keys, .json, suffix: " (present)"), path: path, codingPath: codingKeys, context: context)
        }
    }

    /// A column reading the value at `keys`: optional, since the model's `init(from:)` decides what is required.
    private mutating func addColumn(_ keys: [String], _ type: FieldType, suffix: String = "", configure: (inout FieldSpec) -> Void = { _ in }) -> Int {
        var spec = FieldSpec(name: Self.display(keys) + suffix, path: Self.path(keys), type: type, isOptional: true)
        spec.takesOnlyItsKind = isStrict
        spec.keepsNullText = type.keepsJSONText
        configure(&spec)
        columns.append(spec)
        return columns.count - 1
    }

    static func path(_ keys: [String]) -> String {
        keys.isEmpty ? "$" : keys.map(FieldPath.escaped(key:)).joined(separator: ".")
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

    /// The spellings of a coding key's JSON key that `convertFromSnakeCase` turns back into it, the one
    /// ``jsonKey(for:)`` gives first: then the others with digits apart from the words around them or not
    /// (`address_line_1`, `image_2x`), and the key as written, which a key without an inner underscore is left as.
    static func spellings(of codingKey: String) -> [String] {
        var spellings = [jsonKey(for: codingKey)]
        let characters = Array(codingKey)
        // Where an underscore may go: before a digit that follows a letter, and before a capital that follows a digit.
        let optional = characters.indices.filter { index in
            guard index > 0 else { return false }
            let previous = characters[index - 1], character = characters[index]
            return (character.isNumber && previous.isLetter) || (character.isUppercase && previous.isNumber)
        }.prefix(4)
        for choice in 0..<(1 << optional.count) {
            var spelling = ""
            for (index, character) in characters.enumerated() {
                let mandatory = index > 0 && character.isUppercase && !characters[index - 1].isNumber && spelling.last != "_"
                if let bit = optional.firstIndex(of: index), choice & (1 << (bit - optional.startIndex)) != 0 { spelling.append("_") } else if mandatory { spelling.append("_") }
                spelling += character.lowercased()
            }
            if !spellings.contains(spelling) && convertFromSnakeCase(spelling) == codingKey { spellings.append(spelling) }
        }
        if !spellings.contains(codingKey) && convertFromSnakeCase(codingKey) == codingKey { spellings.append(codingKey) }
        return spellings
    }

    /// What `JSONDecoder` makes of a JSON key under `.convertFromSnakeCase`: underscores at either end kept, the
    /// words between lower-cased, then capitalised after the first (Foundation's `capitalized`, which also capitalises
    /// a letter after a digit); a key without an inner underscore unchanged.
    static func convertFromSnakeCase(_ key: String) -> String {
        guard let first = key.firstIndex(where: { $0 != "_" }), let last = key.lastIndex(where: { $0 != "_" }) else { return key }
        let words = key[first...last].split(separator: "_")
        guard words.count > 1 else { return key }
        let joined = words[0].lowercased() + words.dropFirst().map(\.capitalized).joined()
        return String(key[..<first]) + joined + String(key[key.index(after: last)...])
    }
}
