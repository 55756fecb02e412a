import Foundation
import Testing
@testable import Sluice

/// Models whose properties are `let` constants, made by their memberwise initialiser.
@Suite struct InitializerMappingTests {
    enum Language: String, CaseIterable, Sendable { case en, fr, unknown }

    struct User: Sendable, Equatable {
        let name: String
        let followers: Int32
    }

    struct Hashtag: Sendable, Equatable {
        let text: String
        let start: Int
    }

    struct Tweet: Sendable, Equatable {
        let id: Int64
        let text: String
        let createdAt: Date
        let language: Language
        let price: Decimal?
        let user: User
        let place: User?
        let hashtags: [Hashtag]
        let scores: [Int]?
    }

    static let user = (try? Mapping(User.init, Parameter("name", \.name), Parameter("followers", \.followers)))
    static let hashtag = (try? Mapping(Hashtag.init, Parameter("text", \.text), Parameter("indices.0", \.start)))

    static func mapping() throws -> Mapping<Tweet> {
        guard let user, let hashtag else { throw SluiceError.invalidOptions("the nested mappings did not compile") }
        return try Mapping(
            Tweet.init,
            Parameter("id", \.id),
            Parameter("text", \.text),
            Parameter("created_at", \.createdAt, formats: [.twitter]),
            Parameter("lang", \.language),
            Parameter("price", \.price),
            Parameter("user", \.user, mapping: user),
            Parameter("place", \.place, mapping: user),
            Parameter("entities.hashtags", \.hashtags, elements: hashtag),
            Parameter("scores", \.scores)
        )
    }

    static let first = #"{"id":1,"text":"hi","created_at":"Sun Aug 31 00:29:15 +0000 2014","lang":"fr","price":"9.99","user":{"name":"ann","followers":7},"entities":{"hashtags":[{"text":"a","indices":[3,5]}]},"scores":[1,2]}"#
    static let second = #"{"id":2,"text":"yo","created_at":"Mon Sep 01 00:00:00 +0000 2014","lang":"en","user":{"name":"bob","followers":0},"place":{"name":"x","followers":1}}"#

    static func read(_ lines: [String], workers: Int = 1) throws -> (tweets: [Tweet], rejections: [String]) {
        let text = lines.joined(separator: "\n") + "\n"
        let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: try mapping(), options: ReaderOptions(rejectionPolicy: .collect, workers: workers))
        var tweets: [Tweet] = []
        var rejections: [String] = []
        while let batch = try reader.next() {
            tweets += batch.models
            rejections += batch.rejections.map(\.description)
        }
        return (tweets, rejections)
    }

    static let expectedFirst = Tweet(
        id: 1, text: "hi", createdAt: Date(timeIntervalSince1970: 1_409_444_955), language: .fr, price: Decimal(sign: .plus, exponent: -2, significand: 999),
        user: User(name: "ann", followers: 7), place: nil, hashtags: [Hashtag(text: "a", start: 3)], scores: [1, 2]
    )
    static let expectedSecond = Tweet(
        id: 2, text: "yo", createdAt: Date(timeIntervalSince1970: 1_409_529_600), language: .en, price: nil,
        user: User(name: "bob", followers: 0), place: User(name: "x", followers: 1), hashtags: [], scores: nil
    )

    @Test func theInitialiserIsCalledWithEveryParametersValue() throws {
        let result = try Self.read([Self.first, Self.second])
        #expect(result.rejections.isEmpty)
        #expect(result.tweets == [Self.expectedFirst, Self.expectedSecond])
    }

    @Test func aRecordIsAllOrNothingAndEveryRefusedValueIsNamed() throws {
        let bad = #"{"id":3,"text":"x","created_at":"Sun Aug 31 00:29:15 +0000 2014","lang":"en","price":"1,5","user":{"name":"c","followers":3000000000},"entities":{"hashtags":[{"text":"a","indices":["x"]}]}}"#
        let result = try Self.read([Self.first, bad, Self.second])
        #expect(result.tweets == [Self.expectedFirst, Self.expectedSecond])
        #expect(result.rejections == [
            "record 2 (line 2, byte \(Self.first.utf8.count + 1)): "
                + #"$.price: expected decimal (at most 38 significant digits), found string "1,5"; "#
                + "$.user.followers: expected int32 (-2147483648 to 2147483647), found number 3000000000; "
                + #"$.entities.hashtags[0].indices[0]: expected int64, found string "x""#,
        ])
    }

    @Test func requiredValuesAreRequiredAndOptionalNestedModelsCheckTheirOwn() throws {
        let result = try Self.read([
            #"{"id":4,"text":"x","created_at":"Sun Aug 31 00:29:15 +0000 2014","lang":"en"}"#,
            #"{"id":5,"text":"x","created_at":"Sun Aug 31 00:29:15 +0000 2014","lang":"en","user":{"name":"d","followers":1},"place":{"name":"p"}}"#,
            #"{"id":6,"text":"x","created_at":"Sun Aug 31 00:29:15 +0000 2014","lang":"de","user":{"name":"d","followers":1}}"#,
        ])
        #expect(result.tweets.isEmpty)
        #expect(result.rejections.count == 3)
        #expect(result.rejections[0].hasSuffix("$.user.name: expected string, found no value; $.user.followers: expected int32, found no value"))
        #expect(result.rejections[1].hasSuffix("): $.place.followers: expected int32, found no value"))
        #expect(result.rejections[2].hasSuffix(#"$.lang: expected one of "en", "fr", "unknown", found string "de""#))
    }

    @Test func workersGiveTheSameModelsAsOneThread() throws {
        let lines = (0..<3000).map { $0 % 2 == 0 ? Self.first : Self.second }
        let one = try Self.read(lines)
        let two = try Self.read(lines, workers: 2)
        #expect(one.tweets.count == 3000)
        #expect(one.tweets == two.tweets)
    }

    @Test func modelsGoBackToJSONAndMapToTheSameModel() throws {
        let mapping = try Self.mapping()
        let text = mapping.jsonText(of: Self.expectedSecond)
        let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: mapping)
        #expect(try reader.nextModel() == Self.expectedSecond)
    }

    @Test func anUpdateRebuildsTheModelFromTheRecordAndTheModelsOwnValues() throws {
        let mapping = try Self.mapping()
        var tweet = Self.expectedFirst
        let changed = try mapping.update(&tweet, from: .bytes(Array(#"{"text":"edited","price":null,"lang":"fr"}"#.utf8)))
        #expect(tweet.text == "edited")
        #expect(tweet.price == nil)
        #expect(tweet.user == Self.expectedFirst.user)
        #expect(tweet.hashtags == Self.expectedFirst.hashtags)
        #expect(changed.count == 2)
        #expect(changed.contains { $0 == \Tweet.text })
        #expect(changed.contains { $0 == \Tweet.price })
        #expect(throws: SluiceError.self) { try mapping.update(&tweet, from: .bytes(Array(#"{"scores":[1,"x"]}"#.utf8))) }
        #expect(tweet.text == "edited")
    }

    @Test func theFinishingHookRunsOnTheModelMadeAndMayReject() throws {
        struct Range: Sendable { let low: Int; let high: Int }
        let mapping = try Mapping(Range.init, Parameter("low", \.low), Parameter("high", \.high), finish: { range in
            if range.low > range.high { throw MappingFailure("low above high") }
        })
        let reader = try TypedReader(input: .bytes(Array("{\"low\":1,\"high\":2}\n{\"low\":3,\"high\":2}\n".utf8)), mapping: mapping, options: ReaderOptions(rejectionPolicy: .collect))
        let batch = try #require(try reader.next())
        #expect(batch.models.map(\.low) == [1])
        #expect(batch.rejections.map(\.description) == ["record 2 (line 2, byte 19): $: finishing hook failed: low above high"])
    }

    @Test func parametersWithoutAPathReadTheKeyNamedLikeTheProperty() throws {
        struct Point: Sendable, Equatable { let latitudeDegrees: Double; let label: String? }
        let mapping = try Mapping(Point.init, options: MappingOptions(naming: .snakeCase()), Parameter(\.latitudeDegrees), Parameter(\.label))
        #expect(try mapping.model(from: ["latitude_degrees": 1.5]) == Point(latitudeDegrees: 1.5, label: nil))
    }

    @Test func anErrorsLocalizedDescriptionSaysWhatHappened() throws {
        let mapping = try Self.mapping()
        var tweet = Self.expectedFirst
        do {
            try mapping.update(&tweet, from: .bytes(Array(#"{"scores":[1,"x"]}"#.utf8)))
            Issue.record("the update was accepted")
        } catch {
            #expect(error.localizedDescription == #"rejected record 1 (line 1, byte 0): $.scores[1]: expected int64, found string "x""#)
            #expect(error.localizedDescription == error.description)
        }
    }

    @Test func aModelNestedInANestedModelNamesItsValuesFromTheRecordRoot() throws {
        struct Inner: Sendable, Equatable { let count: Int32; let tags: [Int] }
        struct Middle: Sendable, Equatable { let inner: Inner? }
        struct Outer: Sendable, Equatable { let middle: Middle }
        let inner = try Mapping(Inner.init, Parameter("n", \.count), Parameter("tags", \.tags))
        let middle = try Mapping(Middle.init, Parameter("b", \.inner, mapping: inner))
        let outer = try Mapping(Outer.init, Parameter("a", \.middle, mapping: middle))
        let reader = try TypedReader(input: .bytes(Array(NestedInNested.records.utf8)), mapping: outer, options: ReaderOptions(rejectionPolicy: .collect))
        let batch = try #require(try reader.next())
        #expect(batch.models == [Outer(middle: Middle(inner: Inner(count: 1, tags: [2])))])
        #expect(batch.rejections.map { $0.failures.map(\.description) } == NestedInNested.failures)
    }
}
