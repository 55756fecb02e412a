/// Arrays: of nested models, and of values, read element by element with the same conversions as fields.
///
/// The array is captured as JSON text while the record is mapped, and its elements are mapped when the model is
/// made, each element as a record of a top-level array. JSON nulls in the array are dropped. An element that
/// does not map rejects the whole record, naming the element: `$.entities.hashtags[2].text: expected string, …`.
extension Field {
    /// An array of nested models, each mapped with `mapping` (reusable elsewhere).
    public init<Element>(_ path: String, _ keyPath: WritableKeyPath<Model, [Element]> & Sendable, elements mapping: Mapping<Element>) {
        self.init(arrayAt: path, keyPath, clear: nil, mapping: mapping) { $0 }
    }

    /// An optional array of nested models: nil when the key is missing or null.
    public init<Element>(_ path: String, _ keyPath: WritableKeyPath<Model, [Element]?> & Sendable, elements mapping: Mapping<Element>) {
        self.init(arrayAt: path, keyPath, clear: { $0[keyPath: keyPath] = nil }, mapping: mapping) { $0 }
    }

    /// An array of text values (`unique: true` keeps the first of equal values, in order: an ordered set).
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, [String]> & Sendable, unique: Bool = false) {
        self.init(arrayAt: path, keyPath, clear: nil, mapping: ArrayElement<String>.mapping) { unique ? ArrayElements.firstOfEach($0.map(\.value)) : $0.map(\.value) }
    }

    /// An array of 64-bit integers (`unique: true` keeps the first of equal values, in order).
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, [Int64]> & Sendable, unique: Bool = false) {
        self.init(arrayAt: path, keyPath, clear: nil, mapping: ArrayElement<Int64>.mapping) { unique ? ArrayElements.firstOfEach($0.map(\.value)) : $0.map(\.value) }
    }

    /// An array of floating-point numbers.
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, [Double]> & Sendable) {
        self.init(arrayAt: path, keyPath, clear: nil, mapping: ArrayElement<Double>.mapping) { $0.map(\.value) }
    }

    /// An array of Booleans.
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, [Bool]> & Sendable) {
        self.init(arrayAt: path, keyPath, clear: nil, mapping: ArrayElement<Bool>.mapping) { $0.map(\.value) }
    }

    /// A set of text values (duplicates removed).
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, Set<String>> & Sendable) {
        self.init(arrayAt: path, keyPath, clear: nil, mapping: ArrayElement<String>.mapping) { Set($0.map(\.value)) }
    }

    /// A set of 64-bit integers (duplicates removed).
    public init(_ path: String, _ keyPath: WritableKeyPath<Model, Set<Int64>> & Sendable) {
        self.init(arrayAt: path, keyPath, clear: nil, mapping: ArrayElement<Int64>.mapping) { Set($0.map(\.value)) }
    }

    private init<Element, Stored>(
        arrayAt path: String, _ keyPath: WritableKeyPath<Model, Stored> & Sendable, clear: (@Sendable (inout Model) -> Void)?, mapping: Mapping<Element>?,
        wrap: @escaping @Sendable ([Element]) -> Stored
    ) {
        self.keyPath = keyPath
        spec = FieldSpec(name: "\(keyPath)", path: path, type: .json, isOptional: true)
        let displayPath = (try? FieldPath(parsing: path))?.description ?? path
        let elements: @Sendable (ColumnStorage, Int) -> Result<[Element]?, ElementFailure> = { storage, row in
            guard storage.isValid(row) else { return .success(nil) }
            let text = Array(storage.textBytes(row))
            guard text.first == UInt8(ascii: "[") else {
                if text == Array("null".utf8) { return .success(nil) }
                return .failure(ElementFailure(Rejection.Failure(keyPath: displayPath, kind: .typeMismatch, expected: "an array", found: "another value")))
            }
            guard let mapping else { return .success([]) }
            return ArrayElements.map(text, with: mapping, path: displayPath)
        }
        writer = .checked { model, storage, row in
            switch elements(storage, row) {
            case .failure(let failure):
                return failure.failure
            case .success(let values?):
                model[keyPath: keyPath] = wrap(values)
                return nil
            case .success(nil):
                if let clear {
                    clear(&model)
                    return nil
                }
                return storage.isValid(row) ? Rejection.Failure(keyPath: displayPath, kind: .null, expected: "an array", found: ValueDescription.null) : nil
            }
        }
        update = { model, storage, row in
            guard case .success(let values?) = elements(storage.pointee, row) else { return false }
            model[keyPath: keyPath] = wrap(values)
            return true
        }
        encodedValues = { _ in [nil] }
    }
}

/// A one-value model, for arrays of plain values mapped element by element.
struct ArrayElement<Value: Sendable>: Sendable {
    var value: Value
}

extension ArrayElement where Value == String {
    static var mapping: Mapping<ArrayElement<String>>? { try? Mapping({ ArrayElement(value: "") }) { Field("$", \.value) } }
}

extension ArrayElement where Value == Int64 {
    static var mapping: Mapping<ArrayElement<Int64>>? { try? Mapping({ ArrayElement(value: 0) }) { Field("$", \.value) } }
}

extension ArrayElement where Value == Double {
    static var mapping: Mapping<ArrayElement<Double>>? { try? Mapping({ ArrayElement(value: 0) }) { Field("$", \.value) } }
}

extension ArrayElement where Value == Bool {
    static var mapping: Mapping<ArrayElement<Bool>>? { try? Mapping({ ArrayElement(value: false) }) { Field("$", \.value) } }
}

enum ArrayElements {
    /// Maps the elements of the JSON array `text`; nulls are dropped, and the first element that does not map
    /// fails the whole array with the element's path.
    static func map<Element>(_ text: [UInt8], with mapping: Mapping<Element>, path: String) -> Result<[Element]?, ElementFailure> {
        do {
            let reader = try TypedReader(elementsOf: text, name: path, mapping: mapping, options: ReaderOptions(shape: .array, batchCapacity: 16, rejectionPolicy: .collect))
            var elements: [Element] = []
            while let batch = try reader.next() {
                for (model, location) in zip(batch.models, batch.locations) where !startsWithNull(text, at: location.byteOffset) {
                    elements.append(model)
                }
                for rejection in batch.rejections where rejection.rawText != Array("null".utf8) {
                    var failure = rejection.failures.first ?? Rejection.Failure(keyPath: "$", kind: .typeMismatch, expected: "an element", found: "another value")
                    failure.keyPath = "\(path)[\(rejection.location.ordinal - 1)]" + failure.keyPath.dropFirst()
                    return .failure(ElementFailure(failure))
                }
            }
            return .success(elements)
        } catch {
            if case .rejected(let rejection) = error, let failure = rejection.failures.first {
                return .failure(ElementFailure(failure))
            }
            return .failure(ElementFailure(Rejection.Failure(keyPath: path, kind: .malformedJSON, expected: "an array", found: "\(error)")))
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

/// Why an array's elements did not map: the failure of the first element that did not.
struct ElementFailure: Error {
    var failure: Rejection.Failure
    init(_ failure: Rejection.Failure) { self.failure = failure }
}
