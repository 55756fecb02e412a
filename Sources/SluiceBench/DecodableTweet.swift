import Foundation

/// The bench mapping as `Decodable` models, the way Swift users write them for `JSONDecoder`; `created_at` is
/// `String`, parsed by hand afterwards.
struct DecodableTweet: Decodable {
    struct User: Decodable {
        var id: Int64
        var screen_name: String
        var followers_count: Int64
        var verified: Bool
        var location: String?
        var created_ms: Int64
    }
    struct Coordinates: Decodable {
        var coordinates: [Double]
    }
    struct Hashtag: Decodable {
        var text: String
    }
    struct Entities: Decodable {
        var hashtags: [Hashtag]
    }

    var id: Int64
    var id_str: String
    var created_at: String
    var text: String
    var user: User
    var retweet_count: Int64
    var favorite_count: Int64
    var favorited: Bool
    var lang: String
    var score: Double
    var coordinates: Coordinates?
    var entities: Entities
}

extension Checksum {
    /// A decoded tweet's fields, with its `created_at` in seconds as the contender read it.
    mutating func add(_ tweet: DecodableTweet, createdSeconds: Int64) {
        add(id: tweet.id, followers: tweet.user.followers_count, retweets: tweet.retweet_count, createdSeconds: createdSeconds,
            userCreatedMilliseconds: tweet.user.created_ms, textBytes: tweet.text.utf8.count, verified: tweet.user.verified,
            firstHashtagBytes: tweet.entities.hashtags.first?.text.utf8.count)
    }
}

/// ``DecodableTweet`` with `created_at` also decoded as a `Date`, by the decoder's date strategy (a `DateFormatter`).
struct DatedDecodableTweet: Decodable {
    var tweet: DecodableTweet
    var created_at: Date

    private enum CodingKeys: String, CodingKey { case created_at }

    init(from decoder: any Decoder) throws {
        tweet = try DecodableTweet(from: decoder)
        created_at = try decoder.container(keyedBy: CodingKeys.self).decode(Date.self, forKey: .created_at)
    }
}
