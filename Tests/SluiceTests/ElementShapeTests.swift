import SluiceFixtures
import Testing
@testable import Sluice

/// Element models of typed arrays in shapes other than an object read by its keys: an element that is itself an
/// array read by index (a point written `[lon, lat]`), and a field at an element's `$` beside its keys. The matched
/// walks read them in the record's pass, and give what yajl's events gave (``EventWalkDigests``), with either tokenizer.
@Suite struct ElementShapeTests {
    struct Point: Sendable, Equatable {
        var lon = 0.0
        var lat = 0.0
    }

    struct Route: Sendable, Equatable {
        var id: Int64 = 0
        var points: [Point] = []
    }

    struct Tag: Sendable, Equatable {
        var whole: String?
        var text: String?
    }

    struct Post: Sendable, Equatable {
        var id: Int64 = 0
        var tags: [Tag] = []
    }

    struct Outcome<Model: Equatable>: Equatable {
        var models: [Model]
        var rejections: [String]
    }

    static func points() throws -> Mapping<Route> {
        let point = try Mapping(Point.init) {
            Field("0", \.lon)
            Field("1", \.lat)
        }
        return try Mapping(Route.init) {
            Field("id", \.id)
            Field("points", \.points, elements: point)
        }
    }

    /// Tags kept whole as json beside the key read in them: a field at the element's `$` beside its keys.
    static func tags() throws -> Mapping<Post> {
        let tag = try Mapping(Tag.init) {
            Field(json: "$", \.whole)
            Field("text", \.text)
        }
        return try Mapping(Post.init) {
            Field("id", \.id)
            Field("tags", \.tags, elements: tag)
        }
    }

    static func read<Model>(_ text: String, mapping: Mapping<Model>, tokenizer: TokenizerChoice, workers: Int) throws -> Outcome<Model> {
        let options = TokenizerDifferentialTests.options(tokenizer, workers: workers, chunkSize: 256)
        let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: mapping, options: options)
        var outcome = Outcome<Model>(models: [], rejections: [])
        while let batch = try reader.next() {
            outcome.models += batch.models
            outcome.rejections += batch.rejections.map(\.description)
        }
        return outcome
    }

    /// Reads `records` (one a line) with the matched walks and expects what yajl's events gave, recorded under
    /// `name`; returns what was read. `walksWhole`: every record is also walked whole, none handed back as damaged.
    static func expectWalksAgree<Model: Equatable>(
        _ records: [String], named name: String, mapping: Mapping<Model>, tokenizer: TokenizerChoice, workers: Int, walksWhole: Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Outcome<Model> {
        let text = records.joined(separator: "\n") + "\n"
        let matched = try read(text, mapping: mapping, tokenizer: tokenizer, workers: workers)
        EventWalkDigests.expect("\(matched.models)\n\(matched.rejections)", named: "element shapes/\(name)/\(tokenizer), \(workers) workers", sourceLocation: sourceLocation)
        if walksWhole {
            let walked = MatchedWalkTests.walkDirectly(records, plan: mapping.plan, tokenizer: tokenizer)
            #expect(walked.readWhole == records.map { _ in true }, "\(walked)", sourceLocation: sourceLocation)
        }
        return matched
    }

    static let routes = [
        #"{"id":1,"points":[[1.5,2.5],[3,4]]}"#,
        #"{"id":2,"points":[]}"#,
        #"{"id":3,"points":[[1,2],null,[5,6,7]]}"#,
        #"{"id":4,"points":[[1]]}"#,
        #"{"id":5,"points":[[1,"x"]]}"#,
        #"{"id":6,"points":["x"]}"#,
        #"{"id":7,"points":[{"0":7,"1":8}]}"#,
        #"{"id":8,"points":[[1,[2]]]}"#,
        #"{"id":9,"points":[[[1],2]]}"#,
        #"{"id":10,"points":[[1,2],{"0":1}]}"#,
        #"{"id":11,"points":[[1e2,-0.5]],"more":[[1,2]]}"#,
        #"{"id":12,"points":[[1,2] ,[3, 4] ]}"#,
    ]

    @Test(arguments: [TokenizerChoice.simdjson, .yajl], [1, 2])
    func pointsWrittenAsArraysAgree(_ tokenizer: TokenizerChoice, workers: Int) throws {
        let outcome = try Self.expectWalksAgree(Self.routes, named: "points", mapping: try Self.points(), tokenizer: tokenizer, workers: workers, walksWhole: true)
        #expect(outcome.models.count >= 5 && outcome.rejections.count >= 4, "\(outcome)")
        #expect(outcome.models.first == Route(id: 1, points: [Point(lon: 1.5, lat: 2.5), Point(lon: 3, lat: 4)]))
    }

    static let posts = [
        #"{"id":1,"tags":["a","b"]}"#,
        #"{"id":2,"tags":[{"text":"t"}]}"#,
        #"{"id":3,"tags":["a",{"text":"t"},null]}"#,
        #"{"id":4,"tags":[1,true]}"#,
        #"{"id":5,"tags":[["x"]]}"#,
        #"{"id":6,"tags":[{"text":"t","name":"n"},{}]}"#,
        #"{"id":8,"tags":[{ "text" : "t\u00e9" , "x":[1,{"y":2}] } ]}"#,
        #"{"id":9,"tags":[{"text":1}]}"#,
        #"{"id":7,"tags":[]}"#,
    ]

    @Test(arguments: [TokenizerChoice.simdjson, .yajl], [1, 2])
    func aFieldAtAnElementsRootBesideItsKeysAgrees(_ tokenizer: TokenizerChoice, workers: Int) throws {
        let outcome = try Self.expectWalksAgree(Self.posts, named: "tags", mapping: try Self.tags(), tokenizer: tokenizer, workers: workers, walksWhole: true)
        #expect(outcome.models.first == Post(id: 2, tags: [Tag(whole: #"{"text":"t"}"#, text: "t")]), "\(outcome)")
        #expect(outcome.rejections.count == 4 && outcome.models.count == 5, "\(outcome)")
    }

    struct Mention: Sendable, Equatable {
        var id: Int64 = 0
        var whole: String?
    }

    struct Tweet: Sendable, Equatable {
        var id: Int64 = 0
        var text = ""
        var mentions: [Mention]?
    }

    /// The tweets' mentions as a typed array of models that keep each mention whole beside its id.
    static func mentions() throws -> Mapping<Tweet> {
        let mention = try Mapping(Mention.init) {
            Field("id", \.id)
            Field(json: "$", \.whole)
        }
        return try Mapping(Tweet.init) {
            Field("id", \.id)
            Field("text", \.text)
            Field("entities.user_mentions", \.mentions, elements: mention)
        }
    }

    /// Generated tweets, damaged, with their mentions mapped so: from the matched walks what yajl's events gave.
    @Test(arguments: [TokenizerChoice.simdjson, .yajl], [1, 2])
    func damagedTweetsWithAWholeElementAgree(_ tokenizer: TokenizerChoice, workers: Int) throws {
        let text = String(decoding: TokenizerDifferentialTests.damagedTweets(count: 300, seed: 11), as: UTF8.self)
        // Its lines as they stand, so that the text read is the same.
        let records = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0).map(String.init)
        let outcome = try Self.expectWalksAgree(records, named: "damaged tweets", mapping: try Self.mentions(), tokenizer: tokenizer, workers: workers, walksWhole: false)
        #expect(outcome.models.count > 100 && outcome.models.contains { $0.mentions?.first?.whole != nil }, "\(outcome.models.prefix(2))")
    }
}
