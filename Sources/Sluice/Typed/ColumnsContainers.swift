import Foundation

/// An object's keys, read from the columns discovery laid out for them.
struct ColumnsObject<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ColumnsDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    /// The keys the record holds, among those the model was seen to read.
    var allKeys: [Key] {
        return decoder.node.keyNames.compactMap { name in
            guard let child = try? decoder.child(name), child.isPresent else { return nil }
            return Key(stringValue: name)
        }
    }

    func contains(_ key: Key) -> Bool { (try? decoder.child(key.stringValue))?.isPresent ?? false }

    func decodeNil(forKey key: Key) throws -> Bool {
        let child = try decoder.child(key.stringValue)
        guard child.isPresent else { throw child.failure(.missing, expected: "a value", found: "no value") }
        return child.isNil
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try required(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try required(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try required(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try required(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try required(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try required(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try required(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try required(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try required(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try required(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try required(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try required(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try required(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try required(key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try required(key).decode(type) }

    /// The decoder of a key asked for with `decode`: it must be there (`null` included) where that can be told.
    @inline(__always)
    private func required(_ key: Key) throws -> ColumnsDecoder {
        let child = try decoder.child(key.stringValue)
        try child.requireKey()
        return child
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try decodeIfPresent(type, key) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try decodeIfPresent(type, key) }

    /// Missing or `null` gives nil, as `JSONDecoder` gives it.
    @inline(__always)
    private func decodeIfPresent<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        let child = try decoder.child(key.stringValue)
        return child.isNil ? nil : try child.decode(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(key.stringValue).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try decoder.child(key.stringValue).unkeyedContainer() }

    // Refused when the mapping was built: discovery never hands one out.
    func superDecoder() throws -> any Decoder { throw decoder.undiscovered("a super decoder") }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw decoder.undiscovered("a super decoder") }
}

/// An array's elements: rows of the element batch, with nulls where the rows' places in the array skip one.
struct ColumnsArray: UnkeyedDecodingContainer {
    let decoder: ColumnsDecoder
    let elements: ElementRows
    unowned(unsafe) let element: DecodingNode
    private(set) var currentIndex = 0
    /// The element batch's row of the next element that is not null.
    private var nextRow: Int

    init(decoder: ColumnsDecoder, elements: ElementRows, element: DecodingNode) {
        self.decoder = decoder
        self.elements = elements
        self.element = element
        nextRow = elements.rows.lowerBound
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.arrayCount }
    var isAtEnd: Bool { currentIndex >= elements.arrayCount }

    /// Whether the element at `currentIndex` is null (it has no row: element rows carry their 1-based places).
    private var isNullHere: Bool {
        nextRow >= elements.rows.upperBound || elements.batch.ordinals[nextRow] - 1 != currentIndex
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw pastEnd() }
        guard isNullHere else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type) }

    /// The next element, decoded, then passed; its failure named from the array (`$.tags[2].text`), and the
    /// element not passed, as `JSONDecoder` leaves it.
    @inline(__always)
    private mutating func next<T: Decodable>(_ type: T.Type) throws -> T {
        guard !isAtEnd else { throw pastEnd() }
        let index = currentIndex
        guard !isNullHere else {
            if let none = (T.self as? any DiscoverableOptional.Type)?.discoverySample as? T {
                currentIndex += 1
                return none
            }
            // Null elements have no rows: the JSONDecoder hands the type its null, as it would (a type that reads `null`
            // itself takes it; the others throw, and the element is not passed).
            let value: T
            do {
                value = try element.context.decoder.decode(T.self, from: Data("null".utf8))
            } catch {
                throw DecodedValueFailure(error, under: decoder.node.path + "[\(index)]")
            }
            currentIndex += 1
            return value
        }
        let value: T
        do {
            value = try elementDecoder.decode(type)
        } catch {
            throw DecodedValueFailure(error, under: "$").placed(under: decoder.node.path + "[\(index)]")
        }
        currentIndex += 1
        nextRow += 1
        return value
    }

    /// The decoder of the element at ``currentIndex``, which is not null.
    private var elementDecoder: ColumnsDecoder {
        ColumnsDecoder(node: Unmanaged.passUnretained(element), columns: elements.batch.columns, row: nextRow)
    }

    /// A container of the element at ``currentIndex``, which is then passed.
    private mutating func nested<Container>(_ make: (ColumnsDecoder) throws -> Container) throws -> Container {
        guard !isAtEnd else { throw pastEnd() }
        guard !isNullHere else {
            throw DecodedValueFailure(Rejection.Failure(keyPath: decoder.node.path + "[\(currentIndex)]", kind: .null, expected: "a container", found: ValueDescription.null))
        }
        let container = try make(elementDecoder)
        currentIndex += 1
        nextRow += 1
        return container
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try nested { try $0.container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try nested { try $0.unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder { throw decoder.undiscovered("a super decoder") }

    private func pastEnd() -> DecodedValueFailure {
        decoder.failure(.missing, expected: "another element", found: "the end of the array (\(elements.arrayCount) elements)")
    }
}

/// A single value: the decoder's own.
struct ColumnsValue: SingleValueDecodingContainer {
    let decoder: ColumnsDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.isNil }

    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decode(type) }
    func decode(_ type: String.Type) throws -> String { try decoder.decode(type) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decode(type) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decode(type) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decode(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decode(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decode(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decode(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decode(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decode(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decode(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decode(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decode(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decode(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }
}
