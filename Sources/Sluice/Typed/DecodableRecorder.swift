import Foundation

/// Why a `Decodable` type cannot be mapped: the mapping is refused with this, naming the type and key path.
struct DiscoveryRefusal: Error {
    let message: String
    /// Whether a model was met inside itself where a value is required: the nearest optional value or array
    /// around it is then read from its text instead.
    var isRecursion = false
}

/// Decodes a type from sample values, recording what it asks for into ``DiscoveredNode``s.
final class ShapeRecorder {
    let pass: DiscoveryPass
    let strategies: DecodingStrategies
    let userInfo: [CodingUserInfoKey: Any]
    /// The most cases of any enum met: that many passes after the first see each case once.
    private(set) var mostCases = 1
    /// The types being decoded, outermost first: a type met again inside itself is a recursive model.
    private var decoding: [ObjectIdentifier] = []

    init(pass: DiscoveryPass, strategies: DecodingStrategies, userInfo: [CodingUserInfoKey: Any]) {
        self.pass = pass
        self.strategies = strategies
        self.userInfo = userInfo
    }

    /// Records what `type` asks for at `node` and returns a sample of it.
    func discover<T: Decodable>(_ type: T.Type, at node: DiscoveredNode, path: [String]) throws -> T {
        if let sample = special(type, at: node) { return sample }
        if let collection = T.self as? any DiscoverableCollection.Type {
            try collection.discoverElements(into: node, by: self, path: path)
            if let sample = collection.discoverySample as? T { return sample }
        }
        if let optional = T.self as? any DiscoverableOptional.Type {
            try optional.discoverWrapped(into: node, by: self, path: path)
            if let sample = optional.discoverySample as? T { return sample }
        }
        let decoder = RecordingDecoder(recorder: self, node: node, path: path)
        if decoding.contains(ObjectIdentifier(T.self)) {
            // A model inside itself (a tree of replies) would be discovered forever: below the first level its
            // values go to the JSONDecoder as text. Where it is optional or an element, no sample is needed.
            node.kind = .text
            throw DiscoveryRefusal(message: "\(Self.display(path)): \(T.self) holds itself where a value is required, which no finite record can", isRecursion: true)
        }
        decoding.append(ObjectIdentifier(T.self))
        defer { decoding.removeLast() }
        if let cases = T.self as? any CaseIterable.Type {
            // The cases are the samples: one made from a sample string might not exist.
            _ = try? T(from: decoder)
            if let sample = caseSample(cases) as? T { return sample }
        }
        do {
            return try T(from: decoder)
        } catch let refusal as DiscoveryRefusal {
            throw refusal
        } catch {
            if case .scalar = node.kind, T.self is any RawRepresentable.Type {
                throw DiscoveryRefusal(message: "\(Self.display(path)): \(T.self) is an enum Sluice cannot make a sample of to go on discovering; make it CaseIterable")
            }
            throw DiscoveryRefusal(message: "\(Self.display(path)): \(T.self).init(from:) threw when decoded from sample values (\(error)); Sluice discovers what a type reads by decoding it once from samples")
        }
    }

    /// Records what `type` asks for at `node` where no sample of it is needed (optional values, elements): an enum
    /// that cannot be made from a sample string is read all the same, as the single value it asked for.
    func discoverWithoutSample<T: Decodable>(_ type: T.Type, at node: DiscoveredNode, path: [String] = []) throws {
        do {
            _ = try discover(type, at: node, path: path)
        } catch let refusal as DiscoveryRefusal {
            if refusal.isRecursion { node.kind = .text }
            if node.isReadWithoutSample { return }
            throw refusal
        }
    }

    /// Types Sluice reads itself, and those `JSONDecoder` reads by its strategies rather than through their own
    /// `init(from:)`.
    private func special<T>(_ type: T.Type, at node: DiscoveredNode) -> T? {
        if T.self == String.self { return scalar(.string, at: node, sample: pass.string) as? T }
        if T.self == Bool.self { return scalar(.bool, at: node, sample: pass.bool) as? T }
        if let integer = T.self as? any FixedWidthInteger.Type {
            return scalar(.integer(signed: integer.isSigned, bits: integer.bitWidth), at: node, sample: Self.sample(integer, pass.integer)) as? T
        }
        if T.self == Double.self && !strategies.readsNonConformingFloats { return scalar(.double, at: node, sample: Double(pass.integer)) as? T }
        if T.self == Date.self {
            if let reading = strategies.dateFromNumber { node.settle(.scalar(.date(reading)), type: T.self) } else { node.kind = .text }
            return Date(timeIntervalSince1970: Double(pass.integer)) as? T
        }
        if T.self == Data.self {
            // Under `.deferredToData` the data is an array of bytes, which `Data`'s own `init(from:)` reads.
            if strategies.readsDataAsBytes { return nil }
            if strategies.readsBase64Data { node.settle(.scalar(.base64Data), type: T.self) } else { node.kind = .text }
            return Data() as? T
        }
        // Read through its own `init(from:)`, from a string; an empty sample string is no UUID.
        if T.self == UUID.self { return scalar(.string, at: node, sample: UUID()) as? T }
        if T.self == URL.self {
            node.settle(.scalar(.url), type: T.self)
            return URL(fileURLWithPath: "/") as? T
        }
        // Read by the JSONDecoder from the number's text, so that every digit and every limit is its own.
        if T.self == Decimal.self {
            node.kind = .text
            return Decimal(pass.integer) as? T
        }
        if T.self == Float.self || (T.self == Double.self && strategies.readsNonConformingFloats) {
            node.kind = .text
            return (T.self == Float.self ? Float(pass.integer) as Any : Double(pass.integer) as Any) as? T
        }
        return nil
    }

    private static func sample(_ type: any FixedWidthInteger.Type, _ value: Int) -> Any {
        func make<Integer: FixedWidthInteger>(_ type: Integer.Type) -> Any { Integer(truncatingIfNeeded: value) }
        return make(type)
    }

    /// A scalar Sluice reads itself, asked for at `node`.
    func scalar<T>(_ scalar: DecodedScalar, at node: DiscoveredNode, sample: T) -> T {
        node.settle(.scalar(scalar), type: T.self)
        return sample
    }

    static func superDecoderRefusal(_ path: [String]) -> DiscoveryRefusal {
        DiscoveryRefusal(message: "\(display(path)): a super decoder hands a decoder on whose reading Sluice cannot discover; decode the superclass's keys in the subclass's init(from:)")
    }

    static func display(_ path: [String]) -> String {
        path.isEmpty ? "$" : "$" + path.map { "." + $0 }.joined()
    }

    /// This pass's case of an enum.
    private func caseSample(_ type: any CaseIterable.Type) -> Any? {
        func sample<Cases: CaseIterable>(_ type: Cases.Type) -> Any? {
            let cases = Array(Cases.allCases)
            guard !cases.isEmpty else { return nil }
            mostCases = max(mostCases, cases.count)
            return cases[pass.caseIndex(of: cases.count)]
        }
        return sample(type)
    }
}

/// The decoder discovery hands a type's `init(from:)`.
struct RecordingDecoder: Decoder {
    let recorder: ShapeRecorder
    let node: DiscoveredNode
    let path: [String]

    var codingPath: [any CodingKey] { path.map(RecordKey.init(stringValue:)) }
    var userInfo: [CodingUserInfoKey: Any] { recorder.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        node.settle(.object, type: Key.self)
        node.noteRead(in: recorder.pass)
        return KeyedDecodingContainer(RecordingObject<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        node.settle(.array, type: [Any].self)
        if node.element == nil { node.element = DiscoveredNode() }
        return RecordingArray(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        RecordingValue(decoder: self)
    }

    func child(_ key: String) -> RecordingDecoder {
        RecordingDecoder(recorder: recorder, node: node.child(key), path: path + [key])
    }

    func discover<T: Decodable>(_ type: T.Type) throws -> T { try recorder.discover(type, at: node, path: path) }
}

/// A coding key named by its string alone.
struct RecordKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) { (self.stringValue, intValue) = (stringValue, nil) }
    init(intValue: Int) { (stringValue, self.intValue) = ("\(intValue)", intValue) }
}

/// An object's keys as discovery sees them: each asked-for key becomes a child node.
struct RecordingObject<Key: CodingKey>: GenericKeyedDecodingContainer {
    let decoder: RecordingDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    private var pass: DiscoveryPass { decoder.recorder.pass }

    /// Keys read from the record itself: the value goes to the JSONDecoder whole.
    var allKeys: [Key] {
        decoder.node.kind = .text
        return []
    }

    func contains(_ key: Key) -> Bool {
        let child = decoder.node.child(key.stringValue)
        child.isOptional = true
        child.isProbed = true
        return !pass.isAbsent
    }

    func decodeNil(forKey key: Key) throws -> Bool { !contains(key) }



    func decodeValue<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        decoder.node.noteRequired(key.stringValue, in: pass)
        return try decoder.child(key.stringValue).discover(type)
    }

    /// An optional value: discovered in both passes, given only in the second.
    func decodeValueIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let child = decoder.child(key.stringValue)
        child.node.isOptional = true
        if pass.isAbsent {
            try decoder.recorder.discoverWithoutSample(type, at: child.node, path: child.path)
            return nil
        }
        do {
            return try child.discover(type)
        } catch let refusal as DiscoveryRefusal {
            // A single value no sample can be made of (an enum that is not CaseIterable), or a recursive model's
            // text, is read all the same.
            if refusal.isRecursion { child.node.kind = .text }
            if child.node.isReadWithoutSample { return nil }
            throw refusal
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let child = decoder.child(key.stringValue)
        child.node.isReadThroughNestedContainer = true
        return try child.container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let child = decoder.child(key.stringValue)
        child.node.isReadThroughNestedContainer = true
        return try child.unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { throw ShapeRecorder.superDecoderRefusal(decoder.path) }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw ShapeRecorder.superDecoderRefusal(decoder.path) }
}

/// An array as discovery sees it: one element, decoded as every element will be (the first pass sees none). An
/// array read by position (a tuple-like `[latitude, longitude]`) goes to the JSONDecoder whole.
struct RecordingArray: GenericUnkeyedDecodingContainer {
    let decoder: RecordingDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var currentIndex = 0
    var count: Int? { decoder.recorder.pass.isAbsent ? 0 : 1 }
    var isAtEnd: Bool { currentIndex >= (count ?? 0) }

    init(decoder: RecordingDecoder) {
        self.decoder = decoder
    }

    private var element: RecordingDecoder {
        RecordingDecoder(recorder: decoder.recorder, node: decoder.node.element ?? DiscoveredNode(), path: decoder.path + ["*"])
    }

    /// The next element: past the end, the array is read by position, and a few elements past that, it ends as
    /// `JSONDecoder`'s arrays end, with an error (a model reading until one throws would go on for ever).
    private mutating func next() throws -> RecordingDecoder {
        if isAtEnd { decoder.node.kind = .text }
        if currentIndex >= (count ?? 0) + 16 {
            throw DecodingError.valueNotFound(Any.self, DecodingError.Context(codingPath: codingPath, debugDescription: "Unkeyed container is at end."))
        }
        currentIndex += 1
        return element
    }

    mutating func decodeNil() throws -> Bool {
        element.node.isOptional = true
        return false
    }


    mutating func decodeValue<T: Decodable>(_ type: T.Type) throws -> T { try next().discover(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let element = try next()
        element.node.isReadThroughNestedContainer = true
        return try element.container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let element = try next()
        element.node.isReadThroughNestedContainer = true
        return try element.unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { throw ShapeRecorder.superDecoderRefusal(decoder.path) }
}

/// A single value as discovery sees it.
struct RecordingValue: GenericSingleValueDecodingContainer {
    let decoder: RecordingDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    /// A value that reads `null` itself (a wrapper of an optional): whether the key is there is asked too, so that
    /// a missing key is still refused as `JSONDecoder` refuses it.
    func decodeNil() -> Bool {
        decoder.node.isOptional = true
        decoder.node.isProbed = true
        return decoder.recorder.pass.isAbsent
    }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T { try decoder.discover(type) }
}
