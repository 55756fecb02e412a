import Foundation
import Testing
import SluiceFixtures
@testable import Sluice

@Suite struct TypedMappingTests {
    struct Person: Sendable, Equatable {
        var id: Int64 = 0
        var name = ""
        var email: String?
        var score: Double?
        var isActive: Bool?
        var age = 0
        var tags: String?
        var note = "untouched"
    }

    static func mapping() throws -> Mapping<Person> {
        try Mapping(Person.init) {
            Field("id", \.id)
            Field("profile.name", \.name)
            Field("profile.contact.email", \.email)
            Field("score", \.score)
            Field("active", \.isActive)
            Field(json: "tags", \.tags)
        }
    }

    @Test func mapsIntoTheModelAndLeavesUnmappedPropertiesAlone() throws {
        let input = Input.bytes(Array("""
            {"id":1,"profile":{"name":"Ann","contact":{"email":"a@x"}},"score":2.5,"active":true,"tags":["a"]}
            {"id":2,"profile":{"name":"Bo"}}

            """.utf8))
        let reader = try TypedReader(input: input, mapping: try Self.mapping())
        var people: [Person] = []
        while let person = try reader.nextModel() { people.append(person) }
        #expect(people == [
            Person(id: 1, name: "Ann", email: "a@x", score: 2.5, isActive: true, tags: "[\"a\"]"),
            Person(id: 2, name: "Bo"),
        ])
    }

    @Test func batchesCarryLocationsAndRejections() throws {
        let input = Input.bytes(Array("{\"id\":1,\"profile\":{\"name\":\"A\"}}\n{\"id\":\"x\",\"profile\":{}}\n{\"id\":3,\"profile\":{\"name\":\"C\"}}\n".utf8))
        let reader = try TypedReader(input: input, mapping: try Self.mapping(), options: ReaderOptions(rejectionPolicy: .collect))
        let batch = try #require(try reader.next())
        #expect(batch.models.map(\.id) == [1, 3])
        #expect(batch.locations.map(\.line) == [1, 3])
        #expect(batch.rejections.map(\.description) == [
            #"record 2 (line 2, byte 32): $.id: expected int64, found string "x"; $.profile.name: expected string, found no value"#,
        ])
        #expect(try reader.next() == nil)
        #expect(reader.statistics.recordsRead == 3)
    }

    @Test func stopPolicyThrowsTheRejection() throws {
        let input = Input.bytes(Array("{\"id\":1,\"profile\":{\"name\":\"A\"}}\n{\"id\":null}\n".utf8))
        let reader = try TypedReader(input: input, mapping: try Self.mapping())
        #expect(try reader.nextModel()?.id == 1)
        #expect(throws: SluiceError.self) { try reader.nextModel() }
    }

    @Test func theMappingIsCheckedWhenItCompiles() {
        #expect(throws: SluiceError.self) {
            try Mapping(Person.init) {
                Field("profile", \.name)
                Field("profile.name", \.email)
            }
        }
    }

    @Test func intPropertiesReadInt64Values() throws {
        struct Counter: Sendable { var age = 0; var big: Int? }
        let mapping = try Mapping(Counter.init) {
            Field("age", \.age)
            Field("big", \.big)
        }
        let reader = try TypedReader(input: .bytes(Array("{\"age\":41,\"big\":9223372036854775807}".utf8)), mapping: mapping)
        let counter = try #require(try reader.nextModel())
        #expect(counter.age == 41 && counter.big == Int.max)
    }

    /// The typed and the dynamic door give the same values for the same records.
    @Test func typedAndColumnarAgreeOnGeneratedTweets() throws {
        var generator = TweetGenerator(seed: 99)
        let text = (1...300).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n")
        let input = Input.bytes(Array(text.utf8))
        let typed = try TypedReader(input: input, mapping: try ReferenceMapping.typed(), options: ReaderOptions(batchCapacity: 64))
        var tweets: [ReferenceMapping.Tweet] = []
        while let batch = try typed.next() { tweets += batch.models }

        let columnar = try ColumnarReader(input: input, schema: try MappingSchema(fields: ReferenceMapping.fields), options: ReaderOptions(batchCapacity: 64))
        var index = 0
        while let batch = try columnar.next() {
            for row in 0..<batch.count {
                let tweet = tweets[index]
                #expect(batch.column(named: "id")?.int64(row) == tweet.id)
                #expect(batch.column(named: "text")?.string(row) == tweet.text)
                #expect(batch.column(named: "location")?.string(row) == tweet.location)
                #expect(batch.column(named: "score")?.double(row) == tweet.score)
                #expect(batch.column(named: "longitude")?.double(row) == tweet.longitude)
                #expect(batch.column(named: "verified")?.bool(row) == tweet.isVerified)
                #expect(batch.column(named: "first_hashtag")?.string(row) == tweet.firstHashtag)
                index += 1
            }
        }
        #expect(index == 300 && tweets.count == 300)
    }

    /// A differential check against Foundation: the same records decoded with JSONDecoder into a Codable twin.
    @Test func agreesWithJSONDecoder() throws {
        struct User: Decodable { var id: Int64; var screen_name: String; var followers_count: Int64; var verified: Bool; var location: String? }
        struct Coordinates: Decodable { var coordinates: [Double] }
        struct Hashtag: Decodable { var text: String }
        struct Entities: Decodable { var hashtags: [Hashtag] }
        struct Twin: Decodable {
            var id: Int64; var id_str: String; var created_at: String; var text: String; var user: User
            var retweet_count: Int64; var favorite_count: Int64; var favorited: Bool; var lang: String; var score: Double
            var coordinates: Coordinates?; var entities: Entities
        }
        var generator = TweetGenerator(seed: 5)
        let lines = (1...200).map { generator.nextRecord(ordinal: $0) }
        let reader = try TypedReader(input: .bytes(Array(lines.joined(separator: "\n").utf8)), mapping: try ReferenceMapping.typed())
        for line in lines {
            let twin = try JSONDecoder().decode(Twin.self, from: Data(line.utf8))
            let tweet = try #require(try reader.nextModel())
            #expect(tweet.id == twin.id && tweet.idString == twin.id_str && tweet.createdAt == twin.created_at)
            #expect(tweet.text == twin.text && tweet.userID == twin.user.id && tweet.screenName == twin.user.screen_name)
            #expect(tweet.followers == twin.user.followers_count && tweet.isVerified == twin.user.verified && tweet.location == twin.user.location)
            #expect(tweet.retweets == twin.retweet_count && tweet.favorites == twin.favorite_count && tweet.isFavorited == twin.favorited)
            #expect(tweet.language == twin.lang && tweet.score == twin.score)
            #expect(tweet.longitude == twin.coordinates?.coordinates.first && tweet.firstHashtag == twin.entities.hashtags.first?.text)
        }
        #expect(try reader.nextModel() == nil)
    }
}

/// The differential check on the richer model: dates, an enum, an array of nested models, against a Codable twin.
@Suite struct RichDifferentialTests {
    struct Twin: Decodable {
        struct User: Decodable { var screen_name: String; var followers_count: Int64; var created_ms: Int64 }
        struct Hashtag: Decodable { var text: String; var indices: [Int64] }
        struct Entities: Decodable { var hashtags: [Hashtag] }
        var id: Int64; var created_at: Date; var text: String; var user: User; var lang: String; var entities: Entities
    }

    @Test func agreesWithJSONDecoderOnDatesEnumsAndNestedArrays() throws {
        var generator = TweetGenerator(seed: 21)
        let lines = (1...150).map { generator.nextRecord(ordinal: $0) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "EEE MMM dd HH:mm:ss Z yyyy"
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .formatted(formatter)
        let reader = try TypedReader(input: .bytes(Array(lines.joined(separator: "\n").utf8)), mapping: try ReferenceMapping.richTyped())
        for line in lines {
            let twin = try decoder.decode(Twin.self, from: Data(line.utf8))
            let tweet = try #require(try reader.nextModel())
            #expect(tweet.id == twin.id && tweet.text == twin.text && tweet.createdAt == twin.created_at)
            #expect(tweet.screenName == twin.user.screen_name && tweet.followers == twin.user.followers_count)
            #expect(tweet.userCreated == Date(timeIntervalSince1970: Double(twin.user.created_ms) / 1000))
            #expect(tweet.language == (ReferenceMapping.Language(rawValue: twin.lang) ?? .other))
            #expect(tweet.hashtags.map(\.text) == twin.entities.hashtags.map(\.text))
            #expect(tweet.hashtags.map(\.start) == twin.entities.hashtags.map { $0.indices[0] })
        }
        #expect(try reader.nextModel() == nil)
    }
}
