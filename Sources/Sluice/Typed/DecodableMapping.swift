import Foundation

/// How values of a `Decodable` model convert from JSON.
public enum DecodingConversions: Sendable, Hashable {
    /// As `JSONDecoder` converts them: text only from strings, numbers only from numbers, Booleans only from
    /// `true` and `false`.
    case strict
    /// As Sluice's own fields convert them: numbers and Booleans also from their text (`"42"`, `"true"`), and text
    /// also from numbers (`0.1` gives `"0.1"`).
    case lenient
}

extension Mapping where Model: Decodable & SendableMetatype {
    /// Compiles a mapping from a `Decodable` model, unchanged: its `init(from:)` is called for each record, with a
    /// decoder that reads the record's values from the columns Sluice's tokenizers filled, not from JSON.
    ///
    /// ```swift
    /// struct Tweet: Decodable { let id: Int64; let text: String; let user: User; let hashtags: [String]? }
    /// let decoder = JSONDecoder()
    /// decoder.keyDecodingStrategy = .convertFromSnakeCase
    /// let mapping = try Mapping(decoding: Tweet.self, using: decoder)
    /// for try await tweet in try TypedReader(input: .file("tweets.ndjson"), mapping: mapping).models { … }
    /// ```
    ///
    /// What the model reads is discovered once, here, by decoding it from sample values (optional keys absent,
    /// then present, and once more for each case of its enums): its coding keys, nested objects and arrays of nested models, optionals, enums,
    /// dates, data and URLs, under the decoder's key, date and data strategies.
    ///
    /// - Values convert as `JSONDecoder` converts them (unless `conversions` is ``DecodingConversions/lenient``),
    ///   and `null`, missing keys and values out of a type's range are refused as it refuses them: the record is
    ///   rejected, naming the key path (`$.user.followers_count: expected Int32 (…), found number 3000000000`).
    ///   A value of the wrong kind is refused while the record is read, before `init(from:)` runs, so that a model
    ///   catching a decoding error (`try?`) does not see that value.
    /// - Dictionaries, arrays read by position, `Float`, `Decimal`, and dates and data under `.iso8601`,
    ///   `.formatted` or `.custom` strategies are handed to `decoder` as their value's JSON text, and decoded by it
    ///   at its speed.
    /// - `.convertFromSnakeCase` reads a value from the spellings of its key Sluice can name (`user_name`,
    ///   `address_line_1`, `userName`), the first that holds a value winning; objects and arrays under the first
    ///   spelling only.
    /// - The differences from `JSONDecoder` are listed in the article "Codable models".
    /// - ``update(_:from:)`` decodes the record whole, as `init(from:)` does.
    ///
    /// - Parameters:
    ///   - type: The model.
    ///   - decoder: The key, date, data and float strategies, and the user info `init(from:)` sees; it decodes the
    ///     values Sluice does not read itself.
    ///   - conversions: How values convert: ``DecodingConversions/strict`` as `JSONDecoder`, or as Sluice's fields.
    ///   - options: Options of the mapping as a whole (unmapped keys, ignored paths, records path); its naming
    ///     convention and null spellings do not apply: the decoder's key strategy does, and `null` is `null`.
    /// - Throws: ``SluiceError/invalidMapping(_:)`` naming the type and key path of what cannot be read this way:
    ///   a custom key strategy, a super decoder, an enum that is not `CaseIterable` where a sample of it is
    ///   needed, an `init(from:)` that throws on the samples, or a key asked for as two different things.
    public init(
        decoding type: Model.Type, using decoder: JSONDecoder = JSONDecoder(), conversions: DecodingConversions = .strict,
        options: MappingOptions = MappingOptions()
    ) throws(SluiceError) {
        let keySpellings: @Sendable (String) -> [String]
        switch decoder.keyDecodingStrategy {
        case .useDefaultKeys: keySpellings = { [$0] }
        case .convertFromSnakeCase: keySpellings = SnakeCaseKeys.spellings(of:)
        default:
            throw .invalidMapping([MappingProblem(field: "\(Model.self)", message: "a custom key decoding strategy maps the record's keys to coding keys, and Sluice needs the way back; use .useDefaultKeys or .convertFromSnakeCase")])
        }
        // The decoder's settings as they are now: the mapping is compiled from them, and changing them later must not
        // make its values disagree with its keys.
        let decoder = Self.snapshot(of: decoder)
        var options = options
        options.nullSpellings = []
        let discovered = DiscoveredNode()
        let strategies = DecodingStrategies(decoder)
        var passes = 2
        var pass = 0
        while pass < passes {
            do {
                let recorder = ShapeRecorder(pass: DiscoveryPass(index: pass), strategies: strategies, userInfo: decoder.userInfo)
                _ = try recorder.discover(Model.self, at: discovered, path: [])
                passes = max(passes, min(recorder.mostCases, 256) + 1)
                pass += 1
            } catch let refusal as DiscoveryRefusal {
                throw .invalidMapping([MappingProblem(field: "\(Model.self)", message: refusal.message)])
            } catch {
                throw .invalidMapping([MappingProblem(field: "\(Model.self)", message: "\(error)")])
            }
        }
        var layout = DecodableLayout(context: DecodingContext(decoder: decoder), keySpellings: keySpellings, isStrict: conversions == .strict)
        let root = layout.root(discovered)
        if !layout.problems.isEmpty {
            throw .invalidMapping(layout.problems.map { MappingProblem(field: "\(Model.self)", message: $0) })
        }
        let columns = layout.columns
        let field = Field<Model>(describing: \Model.self, columns: columns) { _ in Array(repeating: nil, count: columns.count) }
        let construct: @Sendable (ArgumentSource<Model>) -> Result<Model, RefusedValues> = { source in
            let strikes = DecodingStrikes.current
            strikes.reset()
            do {
                let model = try withExtendedLifetime(root) {
                    try ColumnsDecoder(node: Unmanaged.passUnretained(root), columns: source.columns, row: source.row).decode(Model.self)
                }
                // The model caught an error that rejects the record all the same.
                if let struck = strikes.first { return .failure(RefusedValues([struck])) }
                return .success(model)
            } catch {
                return .failure(RefusedValues([strikes.first ?? DecodedValueFailure(error, under: "$").failure]))
            }
        }
        try self.init(assembly: .initializer(construct, differs: [{ _, _ in true }]), options: options, fields: [field], finish: nil)
        encodesModel = Self.encoder(undoing: decoder)
    }

    private static func snapshot(of decoder: JSONDecoder) -> JSONDecoder {
        let copy = JSONDecoder()
        copy.keyDecodingStrategy = decoder.keyDecodingStrategy
        copy.dateDecodingStrategy = decoder.dateDecodingStrategy
        copy.dataDecodingStrategy = decoder.dataDecodingStrategy
        copy.nonConformingFloatDecodingStrategy = decoder.nonConformingFloatDecodingStrategy
        copy.userInfo = decoder.userInfo
        return copy
    }

    /// Writes a model through its `Encodable` conformance, if it has one, with the strategies that undo `decoder`'s;
    /// nothing (`null`) for a model that has none.
    private static func encoder(undoing decoder: JSONDecoder) -> @Sendable (Model) -> String? {
        guard Model.self is any Encodable.Type else { return { _ in nil } }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        if case .convertFromSnakeCase = decoder.keyDecodingStrategy { encoder.keyEncodingStrategy = .convertToSnakeCase }
        switch decoder.dateDecodingStrategy {
        case .secondsSince1970: encoder.dateEncodingStrategy = .secondsSince1970
        case .millisecondsSince1970: encoder.dateEncodingStrategy = .millisecondsSince1970
        case .iso8601: encoder.dateEncodingStrategy = .iso8601
        default: break
        }
        if case .deferredToData = decoder.dataDecodingStrategy { encoder.dataEncodingStrategy = .deferredToData }
        let box = EncoderBox(encoder)
        return { model in
            guard let encodable = model as? any Encodable, let data = try? box.encoder.encode(encodable) else { return nil }
            return String(decoding: data, as: UTF8.self)
        }
    }
}

/// A `JSONEncoder` configured once and only used to encode, which it does from any thread at once.
private final class EncoderBox: @unchecked Sendable {
    let encoder: JSONEncoder
    init(_ encoder: JSONEncoder) { self.encoder = encoder }
}
