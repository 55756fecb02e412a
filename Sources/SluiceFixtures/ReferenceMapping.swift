import Foundation
import Sluice

/// The mapping benchmarks and tests run over ``TweetGenerator`` output: sixteen fields of every basic type, from
/// the top level, nested objects and array elements.
public enum ReferenceMapping {
    /// The dynamic (columnar) form.
    public static let fields: [FieldSpec] = [
        FieldSpec(name: "id", type: .int64),
        FieldSpec(name: "id_str", type: .string),
        FieldSpec(name: "created_at", type: .string),
        FieldSpec(name: "text", type: .string),
        FieldSpec(name: "user_id", path: "user.id", type: .int64),
        FieldSpec(name: "screen_name", path: "user.screen_name", type: .string),
        FieldSpec(name: "followers", path: "user.followers_count", type: .int64),
        FieldSpec(name: "verified", path: "user.verified", type: .bool),
        FieldSpec(name: "location", path: "user.location", type: .string, isOptional: true),
        FieldSpec(name: "retweets", path: "retweet_count", type: .int64),
        FieldSpec(name: "favorites", path: "favorite_count", type: .int64),
        FieldSpec(name: "favorited", type: .bool),
        FieldSpec(name: "lang", type: .string),
        FieldSpec(name: "score", type: .double),
        FieldSpec(name: "longitude", path: "coordinates.coordinates.0", type: .double, isOptional: true),
        FieldSpec(name: "first_hashtag", path: "entities.hashtags.0.text", type: .string, isOptional: true),
    ]

    /// The reference fields with conversions from the mapping-semantics issue: `created_at` as a Twitter date,
    /// `user.created_ms` as an epoch-milliseconds date, `lang` as an enum with a default, `id_str` as a numeric
    /// string into uint64, and a truncating integer.
    public static let richFields: [FieldSpec] = fields.map { field in
        var field = field
        switch field.name {
        case "created_at":
            field.type = .date
            field.dateFormats = [.pattern("EEE MMM dd HH:mm:ss Z yyyy"), .iso8601]
        case "lang":
            field.type = .enumeration
            field.enumValues = ["en", "ja", "es", "fr", "de"].map { EnumValue($0) }
            field.defaultValue = .string("other")
        case "id_str":
            field.type = .uint64
        case "retweets":
            field.truncatesFractions = true
        case "screen_name":
            field.validators = [.lengthRange(1...30)]
        case "followers":
            field.validators = [.range(0, 1_000_000)]
        default:
            break
        }
        return field
    } + [
        FieldSpec(name: "user_created", path: "user.created_ms", type: .date, epochUnit: .milliseconds),
        FieldSpec(name: "hashtags", path: "entities.hashtags", type: .json),
    ]

    /// The same mapping as a Swift model.
    public struct Tweet: Sendable, Equatable {
        public var id: Int64 = 0
        public var idString = ""
        public var createdAt = ""
        public var text = ""
        public var userID: Int64 = 0
        public var screenName = ""
        public var followers: Int64 = 0
        public var isVerified = false
        public var location: String?
        public var retweets: Int64 = 0
        public var favorites: Int64 = 0
        public var isFavorited = false
        public var language = ""
        public var score = 0.0
        public var longitude: Double?
        public var firstHashtag: String?

        public init() {}
    }

    /// A language, as an enum with a fallback.
    public enum Language: String, CaseIterable, Sendable { case en, ja, es, fr, de, other }

    /// A hashtag, a nested model inside an array.
    public struct Hashtag: Sendable, Equatable {
        public var text = ""
        public var start: Int64 = 0
        public init() {}
    }

    /// The richer mapping as a Swift model: dates, an enum, an array of nested models, validators.
    public struct RichTweet: Sendable, Equatable {
        public var id: Int64 = 0
        public var createdAt = Date(timeIntervalSince1970: 0)
        public var text = ""
        public var screenName = ""
        public var followers: Int64 = 0
        public var language = Language.other
        public var userCreated = Date(timeIntervalSince1970: 0)
        public var hashtags: [Hashtag] = []
        public init() {}
    }

    /// The typed form of the richer mapping.
    public static func richTyped() throws(SluiceError) -> Mapping<RichTweet> {
        let hashtag = try Mapping(Hashtag.init) {
            Field("text", \.text)
            Field("indices.0", \.start)
        }
        return try Mapping(RichTweet.init) {
            Field("id", \.id)
            Field("created_at", \.createdAt, formats: [.twitter])
            Field("text", \.text)
            Field("user.screen_name", \.screenName).validated(.lengthRange(1...30))
            Field("user.followers_count", \.followers).validated(.range(0, 1_000_000))
            Field("lang", \.language).defaulting(to: Language.other)
            Field("user.created_ms", \.userCreated, unit: .milliseconds)
            Field("entities.hashtags", \.hashtags, elements: hashtag)
        }
    }

    /// The typed form.
    public static func typed() throws(SluiceError) -> Mapping<Tweet> {
        try Mapping(Tweet.init) {
            Field("id", \.id)
            Field("id_str", \.idString)
            Field("created_at", \.createdAt)
            Field("text", \.text)
            Field("user.id", \.userID)
            Field("user.screen_name", \.screenName)
            Field("user.followers_count", \.followers)
            Field("user.verified", \.isVerified)
            Field("user.location", \.location)
            Field("retweet_count", \.retweets)
            Field("favorite_count", \.favorites)
            Field("favorited", \.isFavorited)
            Field("lang", \.language)
            Field("score", \.score)
            Field("coordinates.coordinates.0", \.longitude)
            Field("entities.hashtags.0.text", \.firstHashtag)
        }
    }
}
