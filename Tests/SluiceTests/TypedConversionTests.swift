import Foundation
import Testing
@testable import Sluice

/// The typed door over the whole conversion table: every property type, optional or not, and the modifiers.
@Suite struct TypedConversionTests {
    enum Gender: String, CaseIterable, Sendable { case male, female, unknown }
    enum Level: Int, CaseIterable, Sendable { case low = 1, high = 2 }

    struct Profile: Sendable, Equatable {
        var id: UInt64 = 0
        var followers: UInt64?
        var createdAt = Date(timeIntervalSince1970: -1)
        var seenAt: Date?
        var home = URL(fileURLWithPath: "/unset")
        var avatar: URL?
        var key = Data()
        var thumbnail: Data?
        var gender = Gender.unknown
        var level: Level?
        var rank = Level.low
        var count: Int64 = -1
        var ratio = 0.0
    }

    static func mapping() throws -> Mapping<Profile> {
        try Mapping(Profile.init) {
            Field("id", \.id)
            Field("followers", \.followers)
            Field("created_at", \.createdAt, formats: [.twitter, .iso8601, .epoch])
            Field("seen_ms", \.seenAt, unit: .milliseconds)
            Field("home", \.home)
            Field("avatar", \.avatar)
            Field("key", \.key)
            Field("thumb", \.thumbnail)
            Field("gender", \.gender).defaulting(to: Gender.unknown)
            Field("level", \.level)
            Field("rank", \.rank)
            Field("count", \.count).truncatingFractions().defaulting(to: 0)
            Field("ratio", \.ratio).defaulting(to: 1)
        }
    }

    @Test func everyPropertyTypeTakesItsValue() throws {
        let text = """
            {"id":"18446744073709551615","followers":12,"created_at":"Sun Aug 31 00:29:15 +0000 2014","seen_ms":1409444955123,"home":"https://example.com/a","avatar":"/img/a.png","key":"aGVsbG8","thumb":"AAE=","gender":"female","level":2,"rank":"1","count":41.9,"ratio":0.5}
            {"id":7,"created_at":"2014-08-31T00:29:15Z","home":"http://x/","key":"","gender":"other","rank":2}

            """
        let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: try Self.mapping())
        let first = try #require(try reader.nextModel())
        #expect(first == Profile(
            id: .max, followers: 12, createdAt: Date(timeIntervalSince1970: 1_409_444_955), seenAt: Date(timeIntervalSince1970: 1_409_444_955.123),
            home: URL(string: "https://example.com/a")!, avatar: URL(string: "/img/a.png"), key: Data("hello".utf8), thumbnail: Data([0, 1]),
            gender: .female, level: .high, rank: .low, count: 41, ratio: 0.5))
        let second = try #require(try reader.nextModel())
        #expect(second == Profile(
            id: 7, followers: nil, createdAt: Date(timeIntervalSince1970: 1_409_444_955), seenAt: nil, home: URL(string: "http://x/")!, avatar: nil,
            key: Data(), thumbnail: nil, gender: .unknown, level: nil, rank: .high, count: 0, ratio: 1))
        #expect(try reader.nextModel() == nil)
    }

    @Test func valuesOutsideAnEnumAreRejectedNamingTheAllowedOnes() throws {
        let reader = try TypedReader(
            input: .bytes(Array(#"{"id":1,"created_at":0,"home":"h:x","key":"","rank":3}"#.utf8)), mapping: try Self.mapping(),
            options: ReaderOptions(rejectionPolicy: .collect))
        let batch = try #require(try reader.next())
        #expect(batch.models.isEmpty)
        #expect(batch.rejections.map(\.description) == [#"record 1 (line 1, byte 0): $.rank: expected one of "1", "2", found number 3"#])
    }

    @Test func typedURLsAreOnesFoundationAccepts() throws {
        struct Link: Sendable { var url: URL? }
        let mapping = try Mapping(Link.init) { Field("u", \.url) }
        let text = #"{"u":"http://[::1]:8080/x"}"# + "\n" + #"{"u":"http://x:port/"}"# + "\n" + #"{"u":"http://[::1/"}"# + "\n"
        let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: mapping, options: ReaderOptions(rejectionPolicy: .collect))
        let batch = try #require(try reader.next())
        #expect(batch.models.map { $0.url?.absoluteString } == ["http://[::1]:8080/x"])
        #expect(batch.rejections.count == 2)
    }

    @Test func defaultsOfTheWrongTypeDoNotCompile() {
        struct Counter: Sendable { var count: Int64 = 0; var when = Date() }
        #expect(throws: SluiceError.self) {
            try Mapping(Counter.init) { Field("count", \.count).defaulting(to: "many") }
        }
        #expect(throws: SluiceError.self) {
            try Mapping(Counter.init) { Field("when", \.when).defaulting(to: "yesterday") }
        }
        #expect(throws: Never.self) {
            try Mapping(Counter.init) { Field("when", \.when).defaulting(to: "2020-01-01") }
        }
    }
}
