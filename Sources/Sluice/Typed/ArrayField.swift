/// Arrays: of nested models, and of values, read element by element with the same conversions as fields.
///
/// The array is captured as JSON text while the record is mapped, and its elements are mapped when the model is
/// made, each element as a record of a top-level array. JSON nulls in the array are dropped. An element that
/// does not map rejects the whole record, naming the element: `$.entities.hashtags[2].text: expected string, …`.
/// Arrays of values (`[Int]`, `[Date]`, `Set<String>`, …) are ``MappableValue``s and use the plain initialisers.
extension Field {
    /// An array of nested models, each mapped with `mapping` (reusable elsewhere).
    public init<Element>(_ path: String, _ keyPath: WritableKeyPath<Model, [Element]> & Sendable, elements mapping: Mapping<Element>) {
        // Models need not be Equatable: an array present in an update always replaces the property's.
        self.init(path, keyPath, reading: ArrayElements.reading(of: mapping) { $0 }, isSame: { _, _ in false })
    }

    /// An optional array of nested models: nil when the key is missing or null.
    public init<Element>(_ path: String, _ keyPath: WritableKeyPath<Model, [Element]?> & Sendable, elements mapping: Mapping<Element>) {
        self.init(path, keyPath, reading: ArrayElements.reading(of: mapping) { $0 }.optional, isSame: { _, _ in false })
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
    /// Reads a JSON array of values of `Element` into a collection made by `wrap`.
    static func reading<Element: MappableValue, Collection>(
        of element: Element.Type, wrap: @escaping @Sendable ([Element]) -> Collection
    ) -> ValueReading<Collection> {
        reading(of: ArrayElement<Element>.mapping) { elements in wrap(elements.compactMap(\.value)) }
    }

    /// Reads a JSON array whose elements `mapping` maps, into a collection made by `wrap`. A missing key (or
    /// `null`) is no value: a property keeps what it was made with, an initialiser parameter gets no elements.
    static func reading<Element, Collection>(
        of mapping: Mapping<Element>?, wrap: @escaping @Sendable ([Element]) -> Collection
    ) -> ValueReading<Collection> {
        ValueReading(type: .json, isOptional: true, absent: { wrap([]) }, mayRefuse: true, read: { storage, row in
            guard storage.isValid(row) else { return .success(nil) }
            let text = storage.textBytes(row)
            guard text.first == UInt8(ascii: "[") else {
                if text.elementsEqual("null".utf8) {
                    return .failure(ValueFailure(keyPath: "$", kind: .null, expected: "an array", found: ValueDescription.null))
                }
                return .failure(ValueFailure(keyPath: "$", kind: .typeMismatch, expected: "an array", found: storage.describedValue(row)))
            }
            guard let mapping else {
                return .failure(ValueFailure(keyPath: "$", kind: .typeMismatch, expected: "an array of a mapped type", found: ValueDescription.array))
            }
            switch map(Array(text), with: mapping) {
            case .success(let elements): return .success(wrap(elements))
            case .failure(let failure): return .failure(failure)
            }
        }, encode: { _ in nil })
    }

    /// Maps the elements of the JSON array `text`; nulls are dropped, and the first element that does not map
    /// fails the whole array with the element's path relative to the array (`$[2].text`).
    static func map<Element>(_ text: [UInt8], with mapping: Mapping<Element>) -> Result<[Element], ValueFailure> {
        do {
            let reader = try TypedReader(elementsOf: text, name: "$", mapping: mapping, options: ReaderOptions(shape: .array, batchCapacity: 16, rejectionPolicy: .collect))
            var elements: [Element] = []
            while let batch = try reader.next() {
                for (model, location) in zip(batch.models, batch.locations) where !startsWithNull(text, at: location.byteOffset) {
                    elements.append(model)
                }
                for rejection in batch.rejections where rejection.rawText != Array("null".utf8) {
                    var failure = rejection.failures.first ?? Rejection.Failure(keyPath: "$", kind: .typeMismatch, expected: "an element", found: "another value")
                    failure.keyPath = "$[\(rejection.location.ordinal - 1)]" + failure.keyPath.dropFirst()
                    return .failure(ValueFailure(failure))
                }
            }
            return .success(elements)
        } catch {
            if case .rejected(let rejection) = error, let failure = rejection.failures.first {
                return .failure(ValueFailure(failure))
            }
            return .failure(ValueFailure(keyPath: "$", kind: .malformedJSON, expected: "an array", found: "\(error)"))
        }
    }

    /// The values in order, each kept only the first time it appears (an ordered set).
    static func firstOfEach<Value: Hashable>(_ values: [Value]) -> [Value] {
        var seen: Set<Value> = []
        return values.filter { seen.insert($0).inserted }
    }

    private static func startsWithNull(_ text: [UInt8], at offset: Int) -> Bool {
        offset + 4 <= text.count && text[offset] == UInt8(ascii: "n") && text[offset + 1] == UInt8(ascii: "u")
            && text[offset + 2] == UInt8(ascii: "l") && text[offset + 3] == UInt8(ascii: "l")
    }
}
