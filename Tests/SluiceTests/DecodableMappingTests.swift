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
    ) throws -> (models: [Model?], rejections: [Int: String]) {
        let mapping = try Mapping(decoding: Model.self, using: decoder)
        var options = ReaderOptions(shape: .ndjson, batchCapacity: 7, rejectionPolicy: .collect)
        options.tokenizer = tokenizer
        options.workers = workers
        options.chunkSize = 4096
        let reader = try TypedReader(input: .bytes(Array((lines.joined(separator: "\n") + "\n").utf8)), mapping: mapping, options: options)
        var models = [Model?](repeating: nil, count: lines.count)
        var rejections: [Int: String] = [:]
        while let batch = try reader.next() {
            for (model, location) in zip(batch.models, batch.locations) { models[location.ordinal - 1] = model }
            for rejection in batch.rejections { rejections[rejection.location.ordinal - 1] = rejection.description }
        }
        return (models, rejections)
    }

    @Test(arguments: [TokenizerChoice.simdjson, .yajl], [1, 2])
    func generatedRecordsDecodeAsJSONDecoderDecodesThem(tokenizer: TokenizerChoice, workers: Int) throws {
        var random = SplitMix(seed: 0x5EED_C0DE)
        let lines = (1...600).map { Self.record(&random, id: $0) }
        let expected = Self.expected(lines, Record.self)
        let (models, rejections) = try Self.decoded(lines, Record.self, tokenizer: tokenizer, workers: workers)
        #expect(expected.contains { $0 == nil } && expected.contains { $0 != nil })
        for index in lines.indices {
            #expect(models[index] == expected[index], "line \(index + 1): \(lines[index])\nrejected: \(rejections[index] ?? "no")")
            #expect((rejections[index] != nil) == (expected[index] == nil), "line \(index + 1): \(lines[index])")
        }
    }
}
