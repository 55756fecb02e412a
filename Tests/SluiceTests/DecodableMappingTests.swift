import Foundation
import Testing
@testable import Sluice

/// `Mapping(decoding:)` against `JSONDecoder`: the same models from the same records, and a rejection wherever
/// `JSONDecoder` throws, on generated records damaged many ways, with both tokenizers and one or two workers.
@Suite struct DecodableMappingTests {
    enum Mood: String, Codable, CaseIterable, Equatable { case happy, sad }
    enum Level: Int, Codable, CaseIterable, Equatable { case low = 1, high = 5 }

    struct Tag: Codable, Equatable {
        let text: String
        let indices: [Int]
    }

    struct Place: Codable, Equatable {
        let name: String?
        let country: String?
    }

    struct User: Codable, Equatable {
        let id: Int64
        let screenName: String
        let followers: Int32
        let verified: Bool
        let mood: Mood?

        enum CodingKeys: String, CodingKey {
            case id, verified, mood
            case screenName = "screen_name"
            case followers = "followers_count"
        }
    }

    struct Record: Codable, Equatable {
        let id: Int
        let text: String
        let score: Double
        let ratio: Float?
        let small: Int8?
        let big: UInt64?
        let flag: Bool?
        let user: User
        let place: Place?
        let tags: [Tag]
        let words: [String]?
        let sparse: [Int?]?
        let grid: [[Int]]?
        let level: Level?
        let created: Date?
        let link: URL?
        let ident: UUID?
        let blob: Data?
        let price: Decimal?
        let counts: [String: Int]?
    }

    /// One record's JSON, from a seeded generator: most well-formed, some damaged (a wrong kind, a null, a key
    /// missing, a number out of range, an element of the wrong kind, text that is not JSON).
    static func record(_ random: inout SplitMix, id: Int) -> String {
        func pick<T>(_ values: [T]) -> T { values[random.below(values.count)] }
        func maybe(_ key: String, _ value: String, absent: Int = 3) -> String? { random.below(absent + 1) == 0 ? nil : "\"\(key)\":\(value)" }
        var damage = random.below(4) == 0 ? random.below(24) : -1
        func damaged(_ index: Int, _ good: String, _ bad: [String]) -> String {
            guard damage == index else { return good }
            damage = -1
            return pick(bad)
        }
        let tagCount = random.below(4)
        let tags = (0..<tagCount).map { index in
            damaged(0, #"{"text":"t\#(index)","indices":[\#(index),\#(index + 3)]}"#, ["null", "5", #"{"text":7,"indices":[]}"#, #"{"indices":[1]}"#, #"{"text":"x","indices":[1,"2"]}"#])
        }
        let user = damaged(1, #"{"id":\#(id * 7),"screen_name":"u\#(id)","followers_count":\#(pick(["0", "12", "2147483647", "-5"])),"verified":\#(pick(["true", "false"]))\#(maybe("mood", pick(["\"happy\"", "\"sad\"", "null"])).map { "," + $0 } ?? "")}"#,
                           ["null", "{}", "\"u\"", #"{"id":1,"screen_name":"x","followers_count":2147483648,"verified":true}"#, #"{"id":1,"screen_name":"x","followers_count":1,"verified":"yes"}"#, #"{"id":1,"screen_name":"x","followers_count":1,"verified":true,"mood":"angry"}"#])
        var members: [String?] = [
            "\"id\":" + damaged(2, "\(id)", ["\"\(id)\"", "1.5", "null", "1e30"]),
            "\"text\":" + damaged(3, pick(["\"hello\"", "\"caf\\u00e9 \\\"q\\\"\"", "\"\""]), ["5", "null", "true"]),
            "\"score\":" + damaged(4, pick(["1.5", "-0.25", "3", "1e-5"]), ["\"1.5\"", "null", "1e400"]),
            maybe("ratio", damaged(5, pick(["0.5", "null", "3.4e38"]), ["1e39", "\"x\""])),
            maybe("small", damaged(6, pick(["-128", "127", "0", "null", "5.0"]), ["128", "-129", "1.5"])),
            maybe("big", damaged(7, pick(["18446744073709551615", "0", "null"]), ["-1", "18446744073709551616"])),
            maybe("flag", damaged(8, pick(["true", "false", "null"]), ["1", "\"true\""])),
            "\"user\":" + user,
            maybe("place", damaged(9, pick([#"{"name":"Paris","country":"FR"}"#, "{}", "null", #"{"name":null}"#]), ["5", "[]"])),
            damaged(10, "\"tags\":[" + tags.joined(separator: ",") + "]", [#""tags":null"#, #""tags":{}"#, #""tagz":[]"#]),
            maybe("words", damaged(11, pick([#"["a","b"]"#, "[]", "null"]), [#"["a",null]"#, #"["a",1]"#, #""a""#])),
            maybe("sparse", pick(["[1,null,2,null]", "[null]", "[]", "null", "[3]"])),
            maybe("grid", damaged(12, pick(["[[1,2],[],[3]]", "[]", "null"]), ["[[1,null]]", "[1]", "[[\"x\"]]"])),
            maybe("level", damaged(13, pick(["1", "5", "null"]), ["2", "\"low\""])),
            maybe("created", damaged(14, pick(["0", "12.5", "-1e9", "null"]), ["\"2024-01-01\""])),
            maybe("link", damaged(15, pick(["\"https://example.com/a?b=c\"", "\"relative/path\"", "null"]), ["\"\"", "5"])),
            maybe("ident", damaged(16, pick(["\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"", "null"]), ["\"not-a-uuid\""])),
            maybe("blob", damaged(17, pick(["\"aGVsbG8=\"", "\"\"", "null"]), ["\"aGVsbG8\"", "\"*\""])),
            maybe("price", damaged(18, pick(["0.1", "1299.99", "-3", "null"]), ["\"0.1\""])),
            maybe("counts", damaged(19, pick([#"{"a":1,"b":2}"#, "{}", "null"]), [#"{"a":"x"}"#, "[]"])),
            maybe("extra", pick([#"{"deep":[1,{"x":null}]}"#, "\"unread\""])),
        ]
        for index in members.indices.reversed() { members.swapAt(index, random.below(index + 1)) }
        var text = "{" + members.compactMap { $0 }.joined(separator: ",") + "}"
        if damage >= 20 {
            // Text that is not a JSON object: cut short, or a stray byte.
            text = damage == 20 ? String(text.prefix(text.count / 2)) : damage == 21 ? text + "}" : damage == 22 ? "[" + text + "]" : "nul"
        }
        return text
    }

    /// What `JSONDecoder` makes of each line: a model, or nil where it throws.
    static func expected<Model: Decodable>(_ lines: [String], _ type: Model.Type, decoder: JSONDecoder = JSONDecoder()) -> [Model?] {
        lines.map { try? decoder.decode(Model.self, from: Data($0.utf8)) }
    }

    /// What Sluice makes of each line: a model, or nil with the rejection's text.
    static func decoded<Model: Decodable & SendableMetatype>(
        _ lines: [String], _ type: Model.Type, decoder: JSONDecoder = JSONDecoder(), tokenizer: TokenizerChoice, workers: Int
    ) throws -> (models: [Model?], rejections: [Int: String], order: [Int]) {
        let mapping = try Mapping(decoding: Model.self, using: decoder)
        var options = ReaderOptions(shape: .ndjson, batchCapacity: 7, rejectionPolicy: .collect)
        options.tokenizer = tokenizer
        options.workers = workers
        options.chunkSize = 4096
        let reader = try TypedReader(input: .bytes(Array((lines.joined(separator: "\n") + "\n").utf8)), mapping: mapping, options: options)
        var models = [Model?](repeating: nil, count: lines.count)
        var rejections: [Int: String] = [:]
        var order: [Int] = []
        while let batch = try reader.next() {
            order += batch.locations.map(\.ordinal)
            for (model, location) in zip(batch.models, batch.locations) { models[location.ordinal - 1] = model }
            for rejection in batch.rejections { rejections[rejection.location.ordinal - 1] = rejection.description }
        }
        return (models, rejections, order)
    }

    @Test(arguments: [TokenizerChoice.simdjson, .yajl], [1, 2])
    func generatedRecordsDecodeAsJSONDecoderDecodesThem(tokenizer: TokenizerChoice, workers: Int) throws {
        var random = SplitMix(seed: 0x5EED_C0DE)
        let lines = (1...600).map { Self.record(&random, id: $0) }
        let expected = Self.expected(lines, Record.self)
        let (models, rejections, order) = try Self.decoded(lines, Record.self, tokenizer: tokenizer, workers: workers)
        #expect(expected.contains { $0 == nil } && expected.contains { $0 != nil })
        // With workers too, the models arrive in input order.
        #expect(order == order.sorted() && order.count == expected.count { $0 != nil })
        for index in lines.indices {
            #expect(models[index] == expected[index], "line \(index + 1): \(lines[index])\nrejected: \(rejections[index] ?? "no")")
            #expect((rejections[index] != nil) == (expected[index] == nil), "line \(index + 1): \(lines[index])")
        }
    }

    @Test func encodableModelsAreWrittenBackThroughTheirEncoding() throws {
        var random = SplitMix(seed: 7)
        let lines = (1...200).map { Self.record(&random, id: $0) }
        let mapping = try Mapping(decoding: Record.self)
        let models = try Self.decoded(lines, Record.self, tokenizer: .simdjson, workers: 1).models.compactMap { $0 }
        #expect(models.count > 100)
        for model in models {
            let text = mapping.jsonText(of: model)
            #expect(try JSONDecoder().decode(Record.self, from: Data(text.utf8)) == model, "\(text)")
            #expect(try TypedReader(input: .bytes(Array(text.utf8)), mapping: mapping).nextModel() == model)
        }
        struct OnlyDecodable: Decodable { let id: Int }
        #expect(try Mapping(decoding: OnlyDecodable.self).jsonText(of: OnlyDecodable(id: 1)) == "null")
    }
}

/// Decoder strategies, models with their own `init(from:)`, and what is refused when the mapping is built.
@Suite struct DecodableStrategyTests {
    struct Stamped: Codable, Equatable {
        let userName: String
        let createdAt: Date
        let updatedAt: Date?
        let payload: Data?
        let userID: Int?
        let _private: Int?
    }

    static func lines(_ records: [String]) -> [String] { records }

    func expectSameAsJSONDecoder<Model: Decodable & Equatable & SendableMetatype>(
        _ type: Model.Type, _ lines: [String], decoder: JSONDecoder = JSONDecoder(), sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let expected = DecodableMappingTests.expected(lines, Model.self, decoder: decoder)
        for tokenizer in [TokenizerChoice.simdjson, .yajl] {
            let (models, rejections, _) = try DecodableMappingTests.decoded(lines, Model.self, decoder: decoder, tokenizer: tokenizer, workers: 1)
            for index in lines.indices {
                #expect(models[index] == expected[index], "\(tokenizer) line \(index + 1): \(lines[index]); rejected: \(rejections[index] ?? "no")", sourceLocation: sourceLocation)
                #expect((rejections[index] != nil) == (expected[index] == nil), "\(tokenizer) line \(index + 1): \(lines[index])", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func snakeCaseKeysAndDateStrategies() throws {
        let lines = [
            #"{"user_name":"a","created_at":1700000000,"updated_at":null,"payload":"aGk=","user_i_d":3,"_private":1}"#,
            #"{"user_name":"b","created_at":-1.5}"#,
            #"{"user_name":"d","created_at":"1700000000"}"#,
            #"{"user_name":"e","created_at":1,"user_id":5}"#,
        ]
        for strategy in [JSONDecoder.DateDecodingStrategy.secondsSince1970, .millisecondsSince1970, .deferredToDate] {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            decoder.dateDecodingStrategy = strategy
            try expectSameAsJSONDecoder(Stamped.self, lines, decoder: decoder)
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        // Values are also read from the other spellings JSONDecoder matches: digits apart, and as written.
        struct Address: Decodable, Equatable { let addressLine1: String?; let zipCode: Int?; let nested: Inner?; struct Inner: Decodable, Equatable { let cityName: String? } }
        try expectSameAsJSONDecoder(Address.self, [
            #"{"address_line_1":"a","zip_code":1}"#, #"{"address_line1":"b","zipCode":2}"#, #"{"addressLine1":"c","nested":{"cityName":"x"}}"#,
            #"{"nested":{"city_name":"y"}}"#, "{}",
        ], decoder: decoder)
        // The documented difference: an object or array is read under its first spelling only.
        struct Holder: Decodable, Equatable { let innerValue: Address.Inner? }
        let camel = [#"{"innerValue":{"city_name":"z"}}"#]
        #expect(DecodableMappingTests.expected(camel, Holder.self, decoder: decoder)[0]?.innerValue != nil)
        let (models, _, _) = try DecodableMappingTests.decoded(camel, Holder.self, decoder: decoder, tokenizer: .simdjson, workers: 1)
        #expect(models[0] == Holder(innerValue: nil))
        #expect(SnakeCaseKeys.spellings(of: "addressLine1") == ["address_line1", "address_line_1", "addressLine1"])
        #expect(SnakeCaseKeys.jsonKey(for: "userID") == "user_i_d" && SnakeCaseKeys.jsonKey(for: "URLString") == "URLString")
        // A coding key with an inner underscore, which no converted key matches, is read as it is written.
        #expect(SnakeCaseKeys.jsonKey(for: "already_snake") == "already_snake")
        for key in ["userName", "userID", "_id", "__xY__", "a1B2", "URLString", "eTag"] {
            #expect(SnakeCaseKeys.convertFromSnakeCase(SnakeCaseKeys.jsonKey(for: key)) == key)
            struct One: Decodable { let value: Int; init(from decoder: any Decoder) throws { value = try decoder.container(keyedBy: RecordKey.self).decode(Int.self, forKey: RecordKey(stringValue: Self.key)) }; nonisolated(unsafe) static var key = "" }
            One.key = key
            #expect((try? decoder.decode(One.self, from: Data("{\"\(SnakeCaseKeys.jsonKey(for: key))\":1}".utf8)))?.value == 1, "\(key)")
        }
    }

    @Test func textDateStrategiesAndByteArraysGoThroughTheDecoder() throws {
        let lines = [
            #"{"userName":"a","createdAt":"2024-01-02T03:04:05Z","updatedAt":"2024-01-02T03:04:05.250+01:00","payload":[104,105]}"#,
            #"{"userName":"b","createdAt":"2024-01-02 03:04:05Z"}"#,
            #"{"userName":"c","createdAt":"2024-01-02T03:04:05Z","payload":[1,300]}"#,
            #"{"userName":"d","createdAt":5}"#,
        ]
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.dataDecodingStrategy = .deferredToData
        try expectSameAsJSONDecoder(Stamped.self, lines, decoder: decoder)
        let custom = JSONDecoder()
        custom.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let seconds = Double(text.dropFirst()) else { throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not @seconds")) }
            return Date(timeIntervalSince1970: seconds)
        }
        try expectSameAsJSONDecoder(Stamped.self, [#"{"userName":"a","createdAt":"@12.5"}"#, #"{"userName":"a","createdAt":"12.5"}"#], decoder: custom)
    }

    /// A model of its own making: keys read depending on a value, a fallback through `try?`, a dictionary, and a
    /// subclass decoding its superclass's keys through the same decoder.
    struct Shape: Decodable, Equatable {
        enum Kind: String, Decodable, CaseIterable { case circle, square }
        let kind: Kind
        let size: Double
        let label: String
        let extra: [String: Int]

        enum CodingKeys: String, CodingKey { case kind, radius, side, label, extra }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            kind = try container.decodeIfPresent(Kind.self, forKey: .kind) ?? .circle
            switch kind {
            case .circle: size = try container.decode(Double.self, forKey: .radius)
            case .square: size = try container.decode(Double.self, forKey: .side)
            }
            label = (try? container.decode(String.self, forKey: .label)) ?? "none"
            extra = try container.decodeIfPresent([String: Int].self, forKey: .extra) ?? [:]
        }
    }

    @Test func modelsWithTheirOwnInitialisers() throws {
        let lines = [
            #"{"kind":"circle","radius":2,"label":"a"}"#,
            #"{"kind":"square","side":3,"extra":{"x":1}}"#,
            #"{"radius":1.5}"#,
            #"{"kind":"square","radius":1}"#,
            #"{"kind":"oval","radius":1}"#,
            #"{"kind":"circle","radius":1,"extra":{"x":"y"}}"#,
        ]
        try expectSameAsJSONDecoder(Shape.self, lines)
    }

    class Animal: Decodable {
        let name: String
        init(name: String) { self.name = name }
        private enum CodingKeys: String, CodingKey { case name }
        required init(from decoder: any Decoder) throws {
            name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
        }
    }

    final class Dog: Animal, @unchecked Sendable {
        let barks: Int
        private enum CodingKeys: String, CodingKey { case barks }
        required init(from decoder: any Decoder) throws {
            barks = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .barks)
            try super.init(from: decoder)
        }
    }

    @Test func subclassesDecodeTheirSuperclassesKeys() throws {
        let lines = [#"{"name":"rex","barks":3}"#, #"{"name":"rex"}"#]
        let (models, rejections, _) = try DecodableMappingTests.decoded(lines, Dog.self, tokenizer: .simdjson, workers: 1)
        #expect(models[0]?.name == "rex" && models[0]?.barks == 3)
        #expect(rejections[1]?.contains("$.barks") == true)
    }

    @Test func rootsOfDynamicKeysAreDecodedFromTheirText() throws {
        try expectSameAsJSONDecoder([String: Int].self, [#"{"a":1,"b":2}"#, #"{"a":"x"}"#, "{}", "[]"])
        try expectSameAsJSONDecoder([Int].self, ["[1,2,3]", "[]", "[null]", "{}"])
    }

    enum Opaque: String, Decodable { case one, two }
    struct NeedsOpaque: Decodable { let value: Opaque }
    struct OptionalOpaque: Decodable, Equatable { let value: Opaque?; let values: [Opaque]? }
    struct Validated: Decodable {
        let count: Int
        init(from decoder: any Decoder) throws {
            count = try decoder.singleValueContainer().decode(Int.self)
            guard count > 100 else { throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "too small")) }
        }
    }
    struct Holder: Decodable { let inner: Validated }
    class Base: Decodable {}
    final class Derived: Base, @unchecked Sendable {
        private enum CodingKeys: CodingKey { case x }
        required init(from decoder: any Decoder) throws {
            try super.init(from: try decoder.container(keyedBy: CodingKeys.self).superDecoder())
        }
    }

    @Test func whatCannotBeDiscoveredIsRefusedNamingTheTypeAndKey() throws {
        func refusal<Model: Decodable & SendableMetatype>(_ type: Model.Type, decoder: JSONDecoder = JSONDecoder()) -> String {
            do {
                _ = try Mapping(decoding: Model.self, using: decoder)
                return "built"
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal(NeedsOpaque.self).contains("$.value: Opaque is an enum Sluice cannot make a sample of"))
        #expect(refusal(Holder.self).contains("$.inner: Validated.init(from:) threw when decoded from sample values"))
        #expect(refusal(Derived.self).contains("super decoder"))
        let custom = JSONDecoder()
        custom.keyDecodingStrategy = .custom { $0.last ?? RecordKey(stringValue: "") }
        #expect(refusal(OptionalOpaque.self, decoder: custom).contains("custom key decoding strategy"))
        // Where no sample is needed, such an enum is read as the single value it asks for.
        try expectSameAsJSONDecoder(OptionalOpaque.self, [#"{"value":"one","values":["two",null]}"#, #"{"value":"three"}"#, #"{"values":["two","x"]}"#, "{}"])
    }

    /// A tree of replies: below the first level, the replies are decoded from their text.
    struct Reply: Decodable, Equatable {
        let id: Int
        let replies: [Reply]
        let parent: Box?
        final class Box: Decodable, Equatable, @unchecked Sendable {
            let reply: Reply
            static func == (left: Box, right: Box) -> Bool { left.reply == right.reply }
        }
    }
    final class Endless: Decodable, @unchecked Sendable { let again: Endless }

    @Test func recursiveModelsAreReadAndNeverDiscoveredForever() throws {
        try expectSameAsJSONDecoder(Reply.self, [
            #"{"id":1,"replies":[{"id":2,"replies":[{"id":3,"replies":[]}]},{"id":4,"replies":[],"parent":{"reply":{"id":1,"replies":[]}}}]}"#,
            #"{"id":1,"replies":[{"id":2,"replies":[{"id":"x","replies":[]}]}]}"#,
            #"{"id":1,"replies":[null]}"#,
        ])
        #expect(throws: SluiceError.self) { try Mapping(decoding: Endless.self) }
    }

    @Test func lenientConversionsTakeNumbersFromText() throws {
        struct Counts: Decodable, Equatable, Sendable { let count: Int; let ratio: Double; let on: Bool; let name: String }
        let mapping = try Mapping(decoding: Counts.self, conversions: .lenient)
        let reader = try TypedReader(input: .bytes(Array(#"{"count":"42","ratio":"0.5","on":"true","name":7}"#.utf8)), mapping: mapping)
        #expect(try reader.nextModel() == Counts(count: 42, ratio: 0.5, on: true, name: "7"))
        let strict = try TypedReader(input: .bytes(Array(#"{"count":"42","ratio":0.5,"on":true,"name":"n"}"#.utf8)),
                                     mapping: try Mapping(decoding: Counts.self), options: ReaderOptions(rejectionPolicy: .collect))
        let batch = try strict.next()
        #expect(batch?.models.isEmpty == true && batch?.rejections.first?.description.contains("$.count: expected int64, found string \"42\"") == true)
    }
}

/// The real samples: the statuses of `realdata/twitter.json` as a Codable model, against JSONDecoder.
@Suite struct DecodableRealDataTests {
    struct Tweet: Decodable, Equatable {
        struct User: Decodable, Equatable {
            let id: Int64
            let screenName: String
            let followersCount: Int
            let url: URL?
            let verified: Bool
            let utcOffset: Int?
        }
        struct Mention: Decodable, Equatable {
            let screenName: String
            let id: UInt64
            let indices: [Int]
        }
        struct Entities: Decodable, Equatable {
            let hashtags: [[String: JSONValueless]]
            let userMentions: [Mention]
            let urls: [[String: JSONValueless]]?
        }
        let id: Int64
        let idStr: String
        let text: String
        let createdAt: String
        let user: User
        let entities: Entities
        let retweetCount: Int
        let favorited: Bool
        let inReplyToStatusId: Int64?
        let place: [String: JSONValueless]?
        let lang: String
    }

    /// Any JSON value, compared by nothing but its presence: the dictionaries above are decoded from text.
    struct JSONValueless: Decodable, Equatable {
        init(from decoder: any Decoder) throws {}
    }

    @Test(arguments: [TokenizerChoice.simdjson, .yajl])
    func statusesDecodeAsJSONDecoderDecodesThem(tokenizer: TokenizerChoice) throws {
        struct Document: Decodable { let statuses: [Tweet] }
        let bytes = try Data(contentsOf: corporaDirectory.appendingPathComponent("realdata/twitter.json"))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let expected = try decoder.decode(Document.self, from: bytes).statuses
        var options = ReaderOptions(shape: .document, rejectionPolicy: .collect)
        options.tokenizer = tokenizer
        let mapping = try Mapping(decoding: Tweet.self, using: decoder, options: MappingOptions(recordsPath: "statuses"))
        let reader = try TypedReader(input: .bytes(Array(bytes)), mapping: mapping, options: options)
        var tweets: [Tweet] = []
        var rejections: [Rejection] = []
        while let batch = try reader.next() {
            tweets += batch.models
            rejections += batch.rejections
        }
        #expect(rejections.isEmpty, "\(rejections.prefix(3))")
        #expect(tweets.count == 100 && tweets == expected)
    }
}
