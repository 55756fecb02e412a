import Foundation

/// The decoder a model's `init(from:)` reads one record through: the record's values are already in the batch's
/// columns, converted by the engine, and are only picked out here. Three words, so that handing it on as an
/// existential `Decoder` allocates nothing.
struct ColumnsDecoder: Decoder {
    // The mapping holds every node for as long as it decodes: no reference counting per value.
    private let nodeReference: Unmanaged<DecodingNode>
    let columns: UnsafeMutablePointer<ColumnStorage>
    let row: Int

    init(node: Unmanaged<DecodingNode>, columns: UnsafeMutablePointer<ColumnStorage>, row: Int) {
        nodeReference = node
        self.columns = columns
        self.row = row
    }

    var node: DecodingNode { nodeReference.takeUnretainedValue() }

    var codingPath: [any CodingKey] { node.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { node.context.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object = node.kind else { throw undiscovered("an object") }
        try requireObject()
        if node.presence == nil, !node.presenceStandIns.isEmpty, !node.presenceStandIns.contains(where: { columns[$0].isValid(row) }) {
            // The keys that stand in for the object's presence are all missing: the object may be missing or null,
            // which `JSONDecoder` refuses whatever the model catches.
            let refused = failure(.missing, expected: "an object holding the keys it requires", found: "none of them")
            DecodingStrikes.current.strike(refused.failure)
            throw refused
        }
        return KeyedDecodingContainer(ColumnsObject<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let column = node.column
        guard case .array = node.kind, let element = node.element else { throw undiscovered("an array") }
        guard columns[column].isValid(row) else { throw failure(.missing, expected: "an array", found: "no value") }
        guard let elements = ElementRows(columns[column], row: row) else {
            if isNull(column) { throw failure(.null, expected: "an array", found: ValueDescription.null) }
            throw failure(.typeMismatch, expected: "an array", found: ValueDescription.jsonText(columns[column].textBytes(row)))
        }
        if let failed = elements.failure, failed < elements.batch.rejections.count {
            // An element the engine refused: the elements after it were not read, so the array stands or falls whole,
            // whatever the model does with the error.
            let rejection = elements.batch.rejections[failed]
            let element = Rejection.Failure(keyPath: "$", kind: .typeMismatch, expected: "an element", found: "another value")
            let refused = DecodedValueFailure(rejection.failures.first ?? element).placed(under: node.path + "[\(rejection.location.ordinal - 1)]")
            DecodingStrikes.current.strike(refused.failure)
            throw refused
        }
        return ColumnsArray(decoder: self, elements: elements, element: element)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { ColumnsValue(decoder: self) }

    // MARK: Values

    /// Whether the record holds the value (`null` included), where that can be told (``canTellPresence``).
    var isPresent: Bool {
        if node.presence != nil { return givenPresence != nil }
        switch node.kind {
        case .scalar, .text, .array: return columns[node.column].isValid(row)
        case .object, .presence: return true
        }
    }

    /// Whether a missing key is told apart from `null` here: by a column that keeps `null` as its text.
    var canTellPresence: Bool {
        if node.presence != nil { return true }
        switch node.kind {
        case .text, .array: return true
        case .scalar, .object, .presence: return false
        }
    }

    /// Whether the value is missing or `null`.
    var isNil: Bool {
        if node.presence != nil { return givenPresence.map(isNull) ?? true }
        switch node.kind {
        case .scalar: return !columns[node.column].isValid(row)
        case .text, .array: return !columns[node.column].isValid(row) || isNull(node.column)
        case .object, .presence: return false
        }
    }

    /// The first presence column that holds the value: the key's own, then its other spellings'.
    private var givenPresence: Int? {
        if let presence = node.presence, columns[presence].isValid(row) { return presence }
        return node.otherSpellingsPresence.first { columns[$0].isValid(row) }
    }

    private func isNull(_ column: Int) -> Bool {
        ElementRows(columns[column], row: row) == nil && columns[column].textBytes(row).elementsEqual("null".utf8)
    }

    /// A key asked for with `decode` must be there, as `JSONDecoder` requires it (`null` included), where that can
    /// be told.
    func requireKey() throws {
        if canTellPresence && !isPresent { throw failure(.missing, expected: "a value", found: "no value") }
    }

    /// An object asked for must be there, not `null`, and an object.
    private func requireObject() throws {
        guard let presence = node.presence else { return }
        guard columns[presence].isValid(row) else { throw failure(.missing, expected: "an object", found: "no value") }
        let text = columns[presence].textBytes(row)
        if text.first != UInt8(ascii: "{") {
            if isNull(presence) { throw failure(.null, expected: "an object", found: ValueDescription.null) }
            throw failure(.typeMismatch, expected: "an object", found: ValueDescription.jsonText(text))
        }
    }

    /// Whether `T` is a type Sluice reads itself, whose own `init(from:)` would only ask for itself again.
    /// Compared type by type: a conformance check (`is any FixedWidthInteger.Type`) would cost a lookup per value.
    private static func isPlainValue<T>(_ type: T.Type) -> Bool {
        let type: Any.Type = T.self
        return type == String.self || type == Bool.self || type == Double.self || type == Float.self || type == Int.self || type == Int64.self
            || type == Int32.self || type == Int16.self || type == Int8.self || type == UInt.self || type == UInt64.self || type == UInt32.self
            || type == UInt16.self || type == UInt8.self
    }

    /// The plain values, and the types `JSONDecoder` reads by its strategies rather than by their own `init(from:)`
    /// (which would read a date since 2001, or data as an array of bytes, whatever the strategy).
    private static func isReadBySluice<T>(_ type: T.Type) -> Bool {
        let type: Any.Type = T.self
        return isPlainValue(T.self) || type == Date.self || type == Data.self || type == URL.self || type == Decimal.self
    }

    /// A value of type `T`: one Sluice read itself, one the JSONDecoder reads from its text, or one made by its
    /// own `init(from:)` from this decoder.
    @inline(__always)
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let column = node.column
        switch node.kind {
        case .scalar(let scalar):
            if columns[column].isValid(row) {
                if let value = try read(T.self, column, scalar) { return value }
                // A type Sluice reads itself, asked for where discovery saw another: its reading here is not known.
                if Self.isReadBySluice(T.self) { throw undiscovered("\(T.self)") }
            } else if Self.isReadBySluice(T.self) || (node.presence == nil && !(T.self is any DiscoverableOptional.Type)) {
                // No type here reads `null` itself (one that does was seen asking, and has its presence column).
                throw failure(node.presence == nil ? .missing : .null, expected: "\(T.self)", found: node.presence == nil ? "no value" : ValueDescription.null)
            }
            // A type that reads itself through a single value: an enum, a wrapper, an optional.
            return try T(from: self)
        case .text:
            if isNil, let none = (T.self as? any DiscoverableOptional.Type)?.discoverySample as? T { return none }
            return try decodeText(T.self, column)
        case .array:
            if columns[column].isValid(row) && ElementRows(columns[column], row: row) == nil && !isNull(column) { return try decodeText(T.self, column) }
            if Self.isPlainValue(T.self) { throw failure(.typeMismatch, expected: "\(T.self)", found: ValueDescription.array) }
            return try T(from: self)
        case .object, .presence:
            if Self.isReadBySluice(T.self) { throw undiscovered("\(T.self)") }
            return try T(from: self)
        }
    }

    /// A value of a type Sluice read into the column, or nil for a type that reads itself through a single value.
    @inline(__always)
    private func read<T>(_ type: T.Type, _ column: Int, _ scalar: DecodedScalar) throws -> T? {
        let storage = columns[column]
        switch scalar {
        case .string:
            if T.self == String.self { return storage.text(row) as? T }
        case .bool:
            if T.self == Bool.self { return storage.bool(row) as? T }
        case .double:
            if T.self == Double.self { return storage.double(row) as? T }
        case .integer(let signed, _):
            // The usual widths without an existential's generic call.
            if signed, T.self == Int64.self { return storage.int64(row) as? T }
            if signed, T.self == Int.self { return storage.int64(row).flatMap { Int(exactly: $0) } as? T }
            if !signed, T.self == UInt64.self { return storage.uint64(row) as? T }
            guard let integer = T.self as? any FixedWidthInteger.Type else { return nil }
            return try exactly(integer, signed ? storage.int64(row).map(IntegerValue.signed) : storage.uint64(row).map(IntegerValue.unsigned)) as? T
        case .date(let reading):
            if T.self == Date.self, let number = storage.double(row) { return reading.date(number) as? T }
        case .base64Data:
            if T.self == Data.self {
                guard let data = storage.text(row).flatMap({ Data(base64Encoded: $0) }) else {
                    throw failure(.typeMismatch, expected: "base64 data", found: storage.describedValue(row))
                }
                return data as? T
            }
        case .url:
            if T.self == URL.self {
                guard let url = storage.text(row).flatMap(URL.init(string:)) else { throw failure(.typeMismatch, expected: "URL", found: storage.describedValue(row)) }
                return url as? T
            }
        }
        return nil
    }

    private enum IntegerValue {
        case signed(Int64), unsigned(UInt64)
    }

    /// An integer column's value in the integer type asked for, refused when it does not fit.
    private func exactly(_ type: any FixedWidthInteger.Type, _ value: IntegerValue?) throws -> Any {
        func convert<Integer: FixedWidthInteger>(_ type: Integer.Type) -> Integer? {
            switch value {
            case .signed(let number)?: Integer(exactly: number)
            case .unsigned(let number)?: Integer(exactly: number)
            case nil: nil
            }
        }
        guard let converted = convert(type) else {
            let shown = switch value {
            case .signed(let number)?: "number \(number)"
            case .unsigned(let number)?: "number \(number)"
            case nil: "no value"
            }
            throw failure(.outOfRange, expected: "\(type) (\(type.min) to \(type.max))", found: shown)
        }
        return converted
    }

    /// A value the JSONDecoder decodes from its text, with the strategies it was configured with.
    private func decodeText<T: Decodable>(_ type: T.Type, _ column: Int) throws -> T {
        guard columns[column].isValid(row) else { throw failure(.missing, expected: "\(T.self)", found: "no value") }
        let text = columns[column].textBytes(row)
        do {
            return try node.context.decoder.decode(T.self, from: Data(text))
        } catch {
            throw DecodedValueFailure(error, under: node.path)
        }
    }

    func failure(_ kind: Rejection.Kind, expected: String, found: String) -> DecodedValueFailure {
        DecodedValueFailure(Rejection.Failure(keyPath: node.path, kind: kind, expected: expected, found: found))
    }

    /// The model asked for something discovery did not see it ask for: its reading depends on the values.
    /// It rejects the record whatever the model does with the error: `JSONDecoder` would have read something here.
    func undiscovered(_ what: String) -> DecodedValueFailure {
        let refused = failure(.custom, expected: "a value read as discovered", found: "the model read \(what) here, which it did not read when its keys were discovered")
        DecodingStrikes.current.strike(refused.failure)
        return refused
    }

    /// The decoder of a key of this object.
    @inline(__always)
    func child(_ name: String) throws -> ColumnsDecoder {
        guard let child = nodeReference._withUnsafeGuaranteedRef({ $0.child(named: name) }) else { throw undiscovered("the key \"\(name)\"") }
        return ColumnsDecoder(node: child, columns: columns, row: row)
    }
}

/// Why a value was refused while its model was made, named by its key path from the plan's root.
struct DecodedValueFailure: Error {
    var failure: Rejection.Failure

    init(_ failure: Rejection.Failure) {
        self.failure = failure
    }

    /// Any error a model's decoding threw, as a failure: a `DecodingError` at its coding path under `path` (`$`
    /// for errors thrown through these decoders, whose coding paths start at the plan's root).
    init(_ error: any Error, under path: String) {
        if let known = error as? DecodedValueFailure {
            self = known
            return
        }
        guard let decoding = error as? DecodingError else {
            failure = Rejection.Failure(keyPath: path, kind: .custom, expected: "init(from:)", found: "\(error)")
            return
        }
        let (kind, expected, context): (Rejection.Kind, String, DecodingError.Context) = switch decoding {
        case .typeMismatch(let type, let context): (.typeMismatch, "\(type)", context)
        case .valueNotFound(let type, let context): (.null, "\(type)", context)
        case .keyNotFound(let key, let context): (.missing, "a value at \"\(key.stringValue)\"", context)
        case .dataCorrupted(let context): (.custom, "init(from:)", context)
        @unknown default: (.custom, "init(from:)", DecodingError.Context(codingPath: [], debugDescription: "\(error)"))
        }
        let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
        failure = Rejection.Failure(keyPath: path + keys, kind: kind, expected: expected, found: context.debugDescription)
    }

    /// The failure placed under an element of an array (`$.tags[2]` + the element's own path).
    func placed(under path: String) -> DecodedValueFailure {
        var placed = failure
        placed.keyPath = path + failure.keyPath.dropFirst()
        return DecodedValueFailure(placed)
    }
}
