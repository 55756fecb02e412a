import Foundation

/// What a `Decodable` type reads from a record, found before any record is read by decoding the type from sample
/// values with a recording decoder: every key its `init(from:)` asks for, in the container it asks through, and the
/// type it asks for there. The type is decoded several times (``DiscoveryPass``), and what any decoding read is what
/// the mapping reads.
final class DiscoveredNode {
    enum Kind: Equatable {
        /// Nothing asked yet (or only whether the value is null).
        case unknown
        /// An object: keys in ``DiscoveredNode/keys``.
        case object
        /// An array of elements like ``DiscoveredNode/element``.
        case array
        /// A value of one of the types Sluice reads itself.
        case scalar(DecodedScalar)
        /// A value whose JSON text the configured `JSONDecoder` decodes when the model is made: dynamic keys (a
        /// dictionary), arrays read by position, and values under strategies Sluice does not read itself.
        case text
    }

    var kind = Kind.unknown
    /// For an object: its keys, in the order first asked for (coding keys' string values), and their nodes.
    private(set) var keys: [String] = []
    private(set) var children: [String: DiscoveredNode] = [:]
    /// For an array: its element.
    var element: DiscoveredNode?
    /// Whether a missing or null value is asked about: `decodeIfPresent`, `Optional`, `decodeNil`, `contains`.
    var isOptional = false
    /// Whether the record is asked whether it holds the value at all (`contains`, `decodeNil(forKey:)`), which
    /// takes the value's text.
    var isProbed = false
    /// Why the node cannot be read, if it cannot: the mapping is refused with this.
    var problem: String?
    /// Whether the model reads the value through a nested container rather than a type's `init(from:)`: then it
    /// cannot be handed to the JSONDecoder as text, since no type of it is asked for.
    var isReadThroughNestedContainer = false
    /// For an object: the passes that read it, and the keys each asked for with `decode` (a value it requires).
    private var passesRead: Set<Int> = []
    private var requiredByPass: [Int: Set<String>] = [:]

    func noteRead(in pass: DiscoveryPass) { passesRead.insert(pass.index) }
    func noteRequired(_ key: String, in pass: DiscoveryPass) { requiredByPass[pass.index, default: []].insert(key) }

    /// The keys every pass that read the object required: a record without the object fails on one of them. A
    /// key required only on some paths through `init(from:)` proves nothing.
    var keysRequiredOnEveryPath: Set<String> {
        guard let first = passesRead.first else { return [] }
        return passesRead.reduce(requiredByPass[first] ?? []) { $0.intersection(requiredByPass[$1] ?? []) }
    }

    /// Whether what was discovered is enough to read the value though no sample of it could be made: a single value
    /// (an enum that is not `CaseIterable`), or a value whose text goes to the JSONDecoder (a recursive model).
    var isReadWithoutSample: Bool {
        switch kind {
        case .scalar, .text: true
        case .unknown, .object, .array: false
        }
    }

    func child(_ key: String) -> DiscoveredNode {
        if let node = children[key] { return node }
        let node = DiscoveredNode()
        keys.append(key)
        children[key] = node
        return node
    }

    /// Makes the node an object, an array or a scalar; asked as two different things, it cannot be read.
    func settle(_ settled: Kind, type: Any.Type) {
        if kind == .unknown || kind == settled { kind = settled; return }
        if kind == .text { return }
        problem = problem ?? "\(type) is asked for as \(settled.words) where it was asked for as \(kind.words)"
    }
}

extension DiscoveredNode.Kind {
    var words: String {
        switch self {
        case .unknown: "nothing"
        case .object: "an object"
        case .array: "an array"
        case .scalar(let scalar): "\(scalar)"
        case .text: "a JSON value"
        }
    }
}

/// The values Sluice reads itself, by the Swift type asked for.
enum DecodedScalar: Equatable, CustomStringConvertible {
    case string, bool, double
    /// A signed or unsigned integer of `bits` bits.
    case integer(signed: Bool, bits: Int)
    /// A date from a number, by the decoder's date strategy.
    case date(DateFromNumber)
    /// Base64 text, as `JSONDecoder`'s default data strategy reads it.
    case base64Data
    /// Text that `URL(string:)` accepts.
    case url

    var description: String {
        switch self {
        case .string: "String"
        case .bool: "Bool"
        case .double: "Double"
        case .integer(let signed, let bits): (signed ? "Int" : "UInt") + "\(bits)"
        case .date: "Date"
        case .base64Data: "Data"
        case .url: "URL"
        }
    }
}

/// The date strategies that read a number, computed as `JSONDecoder` computes them.
enum DateFromNumber: Equatable {
    case sinceReferenceDate, secondsSince1970, millisecondsSince1970

    func date(_ number: Double) -> Date {
        switch self {
        case .sinceReferenceDate: Date(timeIntervalSinceReferenceDate: number)
        case .secondsSince1970: Date(timeIntervalSince1970: number)
        case .millisecondsSince1970: Date(timeIntervalSince1970: number / 1000.0)
        }
    }
}

/// One decoding of a type from sample values. The first takes optional values as absent, arrays as empty, zeros
/// and empty strings; the others take optional values as present, arrays of one element, ones and non-empty
/// strings, and each enum's next case, so that a model that reads other keys for each case is seen reading them all.
struct DiscoveryPass: Equatable {
    let index: Int

    var isAbsent: Bool { index == 0 }
    var string: String { isAbsent ? "" : "s" }
    var integer: Int { isAbsent ? 0 : 1 }
    var bool: Bool { !isAbsent }

    /// The case of an enum of `count` cases this pass takes.
    func caseIndex(of count: Int) -> Int { index == 0 ? 0 : (index - 1) % count }
}

/// How discovery reads what a decoder strategy means.
struct DecodingStrategies: Sendable {
    let dateFromNumber: DateFromNumber?
    let readsBase64Data: Bool
    let readsDataAsBytes: Bool
    let readsNonConformingFloats: Bool

    init(_ decoder: JSONDecoder) {
        switch decoder.dateDecodingStrategy {
        case .deferredToDate: dateFromNumber = .sinceReferenceDate
        case .secondsSince1970: dateFromNumber = .secondsSince1970
        case .millisecondsSince1970: dateFromNumber = .millisecondsSince1970
        default: dateFromNumber = nil
        }
        switch decoder.dataDecodingStrategy {
        case .base64: (readsBase64Data, readsDataAsBytes) = (true, false)
        case .deferredToData: (readsBase64Data, readsDataAsBytes) = (false, true)
        default: (readsBase64Data, readsDataAsBytes) = (false, false)
        }
        if case .throw = decoder.nonConformingFloatDecodingStrategy { readsNonConformingFloats = false } else { readsNonConformingFloats = true }
    }
}

/// Arrays, sets and dictionaries, known by discovery without making one: their elements are discovered from the
/// element type, and the sample is empty.
protocol DiscoverableCollection {
    static func discoverElements(into node: DiscoveredNode, by recorder: ShapeRecorder, path: [String]) throws
    static var discoverySample: Self { get }
}

extension Array: DiscoverableCollection where Element: Decodable {
    static func discoverElements(into node: DiscoveredNode, by recorder: ShapeRecorder, path: [String]) throws {
        node.settle(.array, type: Self.self)
        let element = node.element ?? DiscoveredNode()
        node.element = element
        try recorder.discoverWithoutSample(Element.self, at: element, path: path + ["*"])
    }
    static var discoverySample: Self { [] }
}

extension ContiguousArray: DiscoverableCollection where Element: Decodable {
    static func discoverElements(into node: DiscoveredNode, by recorder: ShapeRecorder, path: [String]) throws {
        try [Element].discoverElements(into: node, by: recorder, path: path)
    }
    static var discoverySample: Self { [] }
}

extension Set: DiscoverableCollection where Element: Decodable {
    static func discoverElements(into node: DiscoveredNode, by recorder: ShapeRecorder, path: [String]) throws {
        try [Element].discoverElements(into: node, by: recorder, path: path)
    }
    static var discoverySample: Self { [] }
}

extension Dictionary: DiscoverableCollection where Key: Decodable, Value: Decodable {
    static func discoverElements(into node: DiscoveredNode, by recorder: ShapeRecorder, path: [String]) throws {
        // Dynamic keys: the value's text goes to the JSONDecoder, which reads dictionaries its own way.
        node.kind = .text
    }
    static var discoverySample: Self { [:] }
}

/// `Optional` asked for as a type (`decode(Int?.self, forKey:)`): the wrapped type, where null is a value.
protocol DiscoverableOptional {
    static func discoverWrapped(into node: DiscoveredNode, by recorder: ShapeRecorder, path: [String]) throws
    /// `nil`: the sample, and what a null array element gives.
    static var discoverySample: Self { get }
}

extension Optional: DiscoverableOptional where Wrapped: Decodable {
    static func discoverWrapped(into node: DiscoveredNode, by recorder: ShapeRecorder, path: [String]) throws {
        // As a type, `Optional` takes `null` but not a missing key: whether the key is there is asked.
        node.isOptional = true
        node.isProbed = true
        try recorder.discoverWithoutSample(Wrapped.self, at: node, path: path)
    }
    static var discoverySample: Self { nil }
}
