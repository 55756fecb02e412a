/// Arrays: of nested models, and of values, read element by element with the same conversions as fields.
///
/// An array that only this field reads is mapped in the record's own pass, each element as a record of the
/// element mapping's plan, into rows of an element batch (``ElementRows``); one that another field also reads is
/// captured as JSON text and its elements mapped from it by engines kept for the next value. Either way the models
/// are made when the record's model is, JSON nulls in the array are dropped, and an element that does not map
/// rejects the whole record, naming the element: `$.entities.hashtags[2].text: expected string, …`.
/// Arrays of values (`[Int]`, `[Date]`, `Set<String>`, …) are ``MappableValue``s and use the plain initialisers.
extension Field {
    /// An array of nested models, each mapped with `mapping` (reusable elsewhere).
    public init<Element>(_ path: String, _ keyPath: WritableKeyPath<Model, [Element]> & Sendable, elements mapping: Mapping<Element>) {
        // Models need not be Equatable: an array present in an update always replaces the property's.
        self.init(path, keyPath, reading: ArrayElements.reading(of: mapping, wrap: { $0 }, unwrap: { $0 }), isSame: { _, _ in false })
    }

    /// An optional array of nested models: nil when the key is missing or null.
    public init<Element>(_ path: String, _ keyPath: WritableKeyPath<Model, [Element]?> & Sendable, elements mapping: Mapping<Element>) {
        self.init(path, keyPath, reading: ArrayElements.reading(of: mapping, wrap: { $0 }, unwrap: { $0 }).optional, isSame: { _, _ in false })
    }
}

/// A one-value model, for arrays of plain values mapped element by element.
struct ArrayElement<Value: MappableValue>: Sendable {
    var value: Value?

    /// Maps one element into `value`; `null` gives nil, which the array drops.
    static var mapping: Mapping<ArrayElement<Value>>? {
        try? Mapping({ ArrayElement(value: nil) }) { Field("$", \.value) }
    }
}

enum ArrayElements {
    /// Reads a JSON array of values of `Element` into a collection made by `wrap`; `unwrap` gives the elements
    /// back, for writing the collection as JSON.
    static func reading<Element: MappableValue, Collection>(
        of element: Element.Type, wrap: @escaping @Sendable ([Element]) -> Collection, unwrap: @escaping @Sendable (Collection) -> [Element]
    ) -> ValueReading<Collection> {
        reading(of: ArrayElement<Element>.mapping, wrap: { elements in wrap(elements.compactMap(\.value)) },
                unwrap: { collection in unwrap(collection).map { ArrayElement(value: $0) } })
    }

    /// Reads a JSON array whose elements `mapping` maps, into a collection made by `wrap`. A missing key (or
    /// `null`) is no value: a property keeps what it was made with, an initialiser parameter gets no elements.
    /// Written back as JSON, the collection is the array of `unwrap`'s elements, each written by `mapping`.
    static func reading<Element, Collection>(
        of mapping: Mapping<Element>?, wrap: @escaping @Sendable ([Element]) -> Collection, unwrap: @escaping @Sendable (Collection) -> [Element]
    ) -> ValueReading<Collection> {
        let mappers = mapping.map { ElementMappers(mapping: $0) }
        return ValueReading(type: .json, isOptional: true, absent: { wrap([]) }, mayRefuse: true, configure: { $0.elementPlan = mapping?.plan }, read: { storage, row in
            guard storage.isValid(row) else { return .success(nil) }
            if let mapping, let elements = ElementRows(storage, row: row) {
                return mapping.models(of: elements).map(wrap)
            }
            let text = storage.textBytes(row)
            guard text.first == UInt8(ascii: "[") else {
                if text.elementsEqual("null".utf8) {
                    return .failure(ValueFailure(keyPath: "$", kind: .null, expected: "an array", found: ValueDescription.null))
                }
                return .failure(ValueFailure(keyPath: "$", kind: .typeMismatch, expected: "an array", found: storage.describedValue(row)))
            }
            guard let mappers else {
                return .failure(ValueFailure(keyPath: "$", kind: .typeMismatch, expected: "an array of a mapped type", found: ValueDescription.array))
            }
            switch mappers.map(Array(text)) {
            case .success(let elements): return .success(wrap(elements))
            case .failure(let failure): return .failure(failure)
            }
        }, encode: { collection in
            guard let mapping else { return nil }
            // The json column's text: each element as its mapping writes it.
            return .string("[" + unwrap(collection).map { mapping.jsonText(of: $0) }.joined(separator: ",") + "]")
        })
    }

    /// The failure of an array whose element at 1-based `ordinal` (nulls counted) did not map: the element's own
    /// first failure (or an unnamed one), named from the array (`$[2].text`).
    static func failure(ofElement failure: Rejection.Failure?, ordinal: Int) -> ValueFailure {
        var failure = failure ?? Rejection.Failure(keyPath: "$", kind: .typeMismatch, expected: "an element", found: "another value")
        failure.keyPath = "$[\(ordinal - 1)]" + failure.keyPath.dropFirst()
        return ValueFailure(failure)
    }

    /// The values in order, each kept only the first time it appears (an ordered set).
    static func firstOfEach<Value: Hashable>(_ values: [Value]) -> [Value] {
        var seen: Set<Value> = []
        return values.filter { seen.insert($0).inserted }
    }
}
