import Foundation

/// The bench mapping as `Decodable` models, the way Swift users write them for `JSONDecoder`; `CreatedAt` is
/// `String` (parsed by hand afterwards) or `Date` (decoded by a `DateFormatter`).
struct DecodableTweet<CreatedAt: Decodable>: Decodable {
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
    var created_at: CreatedAt
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
