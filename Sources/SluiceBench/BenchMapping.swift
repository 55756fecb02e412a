import Foundation
import Sluice
import SluiceFixtures

/// The mapping every contender of `sluice bench` applies to the generated tweets: the sixteen reference fields,
/// with `created_at` read as a date (Twitter's pattern) and `user.created_ms` as an epoch-milliseconds date.
///
/// Every contender reduces each record to the same checksum (``Checksum``), so a contender that maps differently
/// (a lost digit of a big id, a date off by an hour) fails the run instead of being timed.
public enum BenchMapping {
    public static let fields: [FieldSpec] = ReferenceMapping.fields.map { field in
        var field = field
        if field.name == "created_at" {
            field.type = .date
            field.dateFormats = [.twitter]
        }
        return field
    } + [FieldSpec(name: "user_created", path: "user.created_ms", type: .date, epochUnit: .milliseconds)]

    /// The model the typed door fills.
    public struct Tweet: Sendable {
        public var id: Int64 = 0
        public var idString = ""
        public var createdAt = Date(timeIntervalSince1970: 0)
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
        public var userCreated = Date(timeIntervalSince1970: 0)
        /// Filled by ``typedWithArrays(options:)`` only, which reads them instead of ``firstHashtag``.
        public var hashtags: [Hashtag] = []
        public var mentions: [Mention] = []
        public init() {}
    }

    /// A tweet's hashtag, as a typed array's element model.
    public struct Hashtag: Sendable {
        public var text = ""
        public var start: Int64 = 0
        public init() {}
    }

    /// A tweet's user mention, as a typed array's element model.
    public struct Mention: Sendable {
        public var id: Int64 = 0
        public var screenName = ""
        public init() {}
    }

    /// The mapping options for a fixture laid out as `layout`: a wrapper's records sit at `traceEvents`.
    public static func options(for layout: FixtureFile.Layout) -> MappingOptions {
        MappingOptions(recordsPath: layout == .wrapped ? "traceEvents" : nil)
    }

    public static func typed(options: MappingOptions = MappingOptions()) throws(SluiceError) -> Mapping<Tweet> {
        try Mapping(Tweet.init, options: options, fields: typedFields(hashtags: [Field("entities.hashtags.0.text", \.firstHashtag)]))
    }

    /// ``typed(options:)`` with the hashtags and user mentions as typed arrays of models, mapped in the record's pass.
    public static func typedWithArrays(options: MappingOptions = MappingOptions()) throws(SluiceError) -> Mapping<Tweet> {
        let hashtag = try Mapping(Hashtag.init) {
            Field("text", \.text)
            Field("indices.0", \.start)
        }
        let mention = try Mapping(Mention.init) {
            Field("id", \.id)
            Field("screen_name", \.screenName)
        }
        let arrays: [Field<Tweet>] = [Field("entities.hashtags", \.hashtags, elements: hashtag), Field("entities.user_mentions", \.mentions, elements: mention)]
        return try Mapping(Tweet.init, options: options, fields: typedFields(hashtags: arrays))
    }

    /// The typed door's fields, with `hashtags` (what reads the hashtags, one way or another) before the last.
    private static func typedFields(hashtags: [Field<Tweet>]) -> [Field<Tweet>] {
        [
            Field("id", \.id),
            Field("id_str", \.idString),
            Field("created_at", \.createdAt, formats: [.twitter]),
            Field("text", \.text),
            Field("user.id", \.userID),
            Field("user.screen_name", \.screenName),
            Field("user.followers_count", \.followers),
            Field("user.verified", \.isVerified),
            Field("user.location", \.location),
            Field("retweet_count", \.retweets),
            Field("favorite_count", \.favorites),
            Field("favorited", \.isFavorited),
            Field("lang", \.language),
            Field("score", \.score),
            Field("coordinates.coordinates.0", \.longitude),
        ] + hashtags + [Field("user.created_ms", \.userCreated, unit: .milliseconds)]
    }
}

/// One number per run, over every record: the fields that catch the usual mapping mistakes (big integers, dates,
/// text, Booleans, optional nested values). Arithmetic wraps, the same in every language.
public struct Checksum: Sendable, Hashable {
    public private(set) var value: Int64 = 0
    public private(set) var records = 0

    public init() {}

    /// A total computed elsewhere (a subprocess).
    public init(value: Int64, records: Int) {
        self.value = value
        self.records = records
    }

    /// One record of your own mapping, by ``MappedFields/recordSum(_:row:)``.
    public mutating func add(recordSum: Int64) {
        value = value &+ recordSum
        records += 1
    }

    public mutating func add(
        id: Int64, followers: Int64, retweets: Int64, createdSeconds: Int64, userCreatedMilliseconds: Int64,
        textBytes: Int, verified: Bool, firstHashtagBytes: Int?
    ) {
        var record = id
        record = record &+ followers &* 3
        record = record &+ retweets &* 7
        record = record &+ createdSeconds &* 11
        record = record &+ userCreatedMilliseconds &* 5
        record = record &+ Int64(textBytes) &* 13
        record = record &+ (verified ? 17 : 0)
        record = record &+ Int64(firstHashtagBytes ?? -1) &* 19
        value = value &+ record
        records += 1
    }
}

/// Twitter's `EEE MMM dd HH:mm:ss Z yyyy` by hand, for the contenders that do not use `DateFormatter` (what a
/// careful `JSONDecoder` user writes). Returns seconds since 1970, or `nil`.
public enum TwitterDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"].map { Array($0.utf8) }

    public static func seconds(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { bytes -> Int64? in
            guard bytes.count == 30 else { return nil }
            func number(_ from: Int, _ count: Int) -> Int64? {
                var value: Int64 = 0
                for index in from..<(from + count) {
                    let digit = bytes[index] &- 48
                    guard digit < 10 else { return nil }
                    value = value * 10 + Int64(digit)
                }
                return value
            }
            guard let monthIndex = months.firstIndex(where: { $0[0] == bytes[4] && $0[1] == bytes[5] && $0[2] == bytes[6] }),
                  let day = number(8, 2), let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
                  let offsetHours = number(21, 2), let offsetMinutes = number(23, 2), let year = number(26, 4) else { return nil }
            let sign: Int64 = bytes[20] == UInt8(ascii: "-") ? -1 : 1
            let days = daysFromCivil(year: year, month: Int64(monthIndex + 1), day: day)
            return days * 86_400 + hour * 3600 + minute * 60 + second - sign * (offsetHours * 3600 + offsetMinutes * 60)
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
