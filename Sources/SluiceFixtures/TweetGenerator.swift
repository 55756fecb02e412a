/// Writes deterministic, tweet-like NDJSON records for tests and benchmarks.
///
/// Each record is 1–2 KB with what real dumps hold: non-ASCII text and escapes, integers above 2^53 beside their
/// string form, dates in three formats (Twitter's text, epoch milliseconds, ISO 8601 with an offset), URLs,
/// base64, nulls, nested objects, arrays of objects, and about as many bytes again in fields the reference
/// mapping does not read. The same seed always gives the same bytes.
public struct TweetGenerator {
    private var state: UInt64

    /// A generator whose output depends only on `seed`.
    public init(seed: UInt64 = 42) {
        state = seed &+ 0x9E37_79B9_7F4A_7C15
    }

    private mutating func nextRandom() -> UInt64 {
        // SplitMix64: small, fast, and the same on every platform.
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func below(_ bound: Int) -> Int { Int(nextRandom() % UInt64(bound)) }

    private static let words = [
        "stream", "batch", "sluice", "gate", "river", "json", "record", "swift", "column", "index", "café", "naïve",
        "東京", "データ", "привет", "😀", "rocket🚀", "quote\\\"d", "tab\\tbed", "line\\nbreak", "emoji\\ud83d\\ude00",
    ]
    private static let languages = ["en", "ja", "es", "fr", "de", "pt", "ru"]
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private mutating func sentence(_ count: Int) -> String {
        (0..<count).map { _ in Self.words[below(Self.words.count)] }.joined(separator: " ")
    }

    private mutating func base64(_ count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        return String((0..<count).map { _ in alphabet[below(64)] }) + "=="
    }

    /// The next record, as one line of JSON text (no line feed).
    public mutating func nextRecord(ordinal: Int) -> String {
        let id = 505_874_924_095_815_681 + UInt64(ordinal) * 7919 + UInt64(below(1000))
        let userID = 1_000_000 + below(2_000_000_000)
        let created = "\(Self.days[below(7)]) \(Self.months[below(12)]) \(String(format2: 1 + below(28))) \(String(format2: below(24))):\(String(format2: below(60))):\(String(format2: below(60))) +0000 20\(10 + below(15))"
        let hasCoordinates = below(4) == 0
        let coordinates = hasCoordinates
            ? "{\"type\":\"Point\",\"coordinates\":[\(Double(below(360_000_000)) / 1_000_000 - 180),\(Double(below(180_000_000)) / 1_000_000 - 90)]}"
            : "null"
        let hashtags = (0..<below(3)).map { _ in
            "{\"text\":\"\(Self.words[below(6)])\",\"indices\":[\(below(50)),\(50 + below(50))]}"
        }.joined(separator: ",")
        let mentions = (0..<below(3)).map { _ in
            "{\"screen_name\":\"user\(below(100_000))\",\"name\":\"\(sentence(2))\",\"id\":\(below(1_000_000_000)),\"id_str\":\"\(below(1_000_000_000))\",\"indices\":[\(below(40)),\(40 + below(40))]}"
        }.joined(separator: ",")
        let mapped = """
            {"id":\(id),"id_str":"\(id)","created_at":"\(created)","text":"\(sentence(8 + below(12)))",\
            "user":{"id":\(userID),"id_str":"\(userID)","screen_name":"user\(below(1_000_000))","name":"\(sentence(2))",\
            "followers_count":\(below(1_000_000)),"verified":\(below(10) == 0),"location":\(below(2) == 0 ? "null" : "\"\(sentence(2))\""),\
            "created_ms":\(1_300_000_000_000 + below(400_000_000_000))},\
            "retweet_count":\(below(5000)),"favorite_count":\(below(5000)),"favorited":\(below(3) == 0),"lang":"\(Self.languages[below(7)])",\
            "score":\(Double(below(1_000_000)) / 997),"coordinates":\(coordinates),\
            "entities":{"hashtags":[\(hashtags)],"user_mentions":[\(mentions)]}
            """
        // Fields no reference mapping reads: about as many bytes again.
        let unmapped = """
            ,"source":"<a href=\\"http://twitter.com/download/iphone\\" rel=\\"nofollow\\">Twitter for iPhone</a>",\
            "metadata":{"result_type":"recent","iso_language_code":"\(Self.languages[below(7)])","counts":[\(below(100)),\(below(100)),\(below(100)),\(below(100))],\
            "indexed_at":"20\(10 + below(15))-\(String(format2: 1 + below(12)))-\(String(format2: 1 + below(28)))T\(String(format2: below(24))):\(String(format2: below(60))):\(String(format2: below(60))).\(100 + below(900))+09:00"},\
            "profile":{"description":"\(sentence(10 + below(10)))","url":"http://example.com/\(below(100_000))/profile?lang=en&ref=\(below(1000))",\
            "background":"http://a\(below(4)).twimg.com/profile_background_images/\(below(1_000_000))/bg.png","colors":["C0DEED","333333","0084B4","DDEEF6"],\
            "counts":{"friends":\(below(10_000)),"listed":\(below(1000)),"statuses":\(below(100_000)),"favourites":\(below(50_000))},"utc_offset":\(below(2) == 0 ? "null" : "\(below(50_000) - 25_000)")},\
            "thumbnail":"\(base64(120 + below(120)))","contributors":null,"place":null,"truncated":false,"possibly_sensitive":\(below(2) == 0)}
            """
        return mapped + unmapped
    }

    /// Writes records as NDJSON through `write` until at least `bytes` bytes have been produced; returns the number
    /// of records.
    public mutating func writeNDJSON(bytes: Int, _ write: (String) throws -> Void) rethrows -> Int {
        var produced = 0
        var ordinal = 0
        while produced < bytes {
            ordinal += 1
            let line = nextRecord(ordinal: ordinal) + "\n"
            produced += line.utf8.count
            try write(line)
        }
        return ordinal
    }
}

extension String {
    fileprivate init(format2 value: Int) {
        self = value < 10 ? "0\(value)" : "\(value)"
    }
}
