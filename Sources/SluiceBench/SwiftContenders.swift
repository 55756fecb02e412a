import CSimdjsonReference
import Foundation
import Sluice

/// The contenders that run in this process.
public enum SwiftContenders {
    public static let ceiling = Contender(name: "yajl, empty callbacks (ceiling)", key: "yajl-ceiling", family: .ceiling, threads: 1) { input in
        _ = try TokenizerBaseline.tokenize(file: input.path)
        return RunOutcome(checksum: nil)
    }

    /// A simdjson On-Demand mapper written by hand for the generated tweets, streaming the file and doing the bench
    /// mapping's work (`Benchmarks/CSimdjsonReference`): the ceiling of a simdjson-based mapper, whose checksum must
    /// agree with the others'. Plain NDJSON of the generated tweets only.
    public static let simdjsonCeiling = Contender(name: "simdjson On-Demand, the same fields by hand (ceiling)", key: "simdjson-ceiling", family: .ceiling, threads: 1) { input in
        let result = sluice_simdjson_reference_pass(input.path)
        guard result.error == 0 else { throw BenchError("the simdjson reference pass failed with simdjson error \(result.error)") }
        guard result.records > 0 else { throw BenchError("the simdjson reference pass read no records") }
        return RunOutcome(checksum: Checksum(value: Int64(bitPattern: result.digest), records: result.records))
    }

    /// The contender's name and key: the default tokenizer's need no mention, the others are named.
    private static func label(_ door: String, workers: Int, tokenizer: TokenizerChoice) -> (name: String, key: String) {
        let threads = "\(workers) worker\(workers == 1 ? "" : "s")"
        if tokenizer == .automatic { return ("Sluice \(door), \(threads)", "sluice-\(door)-\(workers)") }
        return ("Sluice \(door) (\(tokenizer.rawValue)), \(threads)", "sluice-\(door)-\(tokenizer.rawValue)-\(workers)")
    }

    public static func columnar(workers: Int, tokenizer: TokenizerChoice = .automatic) -> Contender {
        let (name, key) = label("columnar", workers: workers, tokenizer: tokenizer)
        return Contender(name: name, key: key, family: .sluice, threads: workers) { input in
            let schema = try input.schema ?? MappingSchema(fields: BenchMapping.fields, options: BenchMapping.options(for: input.layout))
            var options = ReaderOptions(workers: workers)
            options.tokenizer = tokenizer
            // Your own input may hold records its mapping rejects: they are counted out, as an import would.
            if input.schema != nil { options.rejectionPolicy = .collect }
            let reader = try ColumnarReader(input: .file(input.path), schema: schema, options: options)
            var checksum = Checksum()
            if input.schema != nil {
                // Your own mapping: its checksum when the foreign contenders can read it too, else a count.
                let mapped = try? MappedFields.of(schema).get()
                while let batch = try reader.next() {
                    for row in 0..<batch.count { checksum.add(recordSum: mapped?.recordSum(batch, row: row) ?? 0) }
                }
                return RunOutcome(checksum: checksum)
            }
            while let batch = try reader.next() {
                guard let id = batch.column(named: "id"), let followers = batch.column(named: "followers"),
                      let retweets = batch.column(named: "retweets"), let created = batch.column(named: "created_at"),
                      let userCreated = batch.column(named: "user_created"), let text = batch.column(named: "text"),
                      let verified = batch.column(named: "verified"), let hashtag = batch.column(named: "first_hashtag") else {
                    throw BenchError("the bench mapping lost a column")
                }
                for row in 0..<batch.count {
                    checksum.add(
                        id: id.int64(row) ?? 0, followers: followers.int64(row) ?? 0, retweets: retweets.int64(row) ?? 0,
                        createdSeconds: (created.dateNanoseconds(row) ?? 0) / 1_000_000_000,
                        userCreatedMilliseconds: (userCreated.dateNanoseconds(row) ?? 0) / 1_000_000,
                        textBytes: text.withUTF8(row) { $0?.count ?? 0 }, verified: verified.bool(row) ?? false,
                        firstHashtagBytes: hashtag.withUTF8(row) { $0?.count })
                }
            }
            return RunOutcome(checksum: checksum)
        }
    }

    public static func typed(workers: Int, tokenizer: TokenizerChoice = .automatic) -> Contender {
        let (name, key) = label("typed", workers: workers, tokenizer: tokenizer)
        return typedContender(name: name, key: key, workers: workers, tokenizer: tokenizer, mapping: BenchMapping.typed)
    }

    /// The typed door with the hashtags and mentions as typed arrays of models: the first hashtag of the checksum is
    /// the first element's text.
    public static func typedWithArrays(workers: Int) -> Contender {
        let (name, key) = label("typed-arrays", workers: workers, tokenizer: .automatic)
        return typedContender(name: name + ", hashtags and mentions as typed arrays", key: key, workers: workers, tokenizer: .automatic, mapping: BenchMapping.typedWithArrays)
    }

    private static func typedContender(
        name: String, key: String, workers: Int, tokenizer: TokenizerChoice,
        mapping: @escaping @Sendable (MappingOptions) throws(SluiceError) -> Mapping<BenchMapping.Tweet>
    ) -> Contender {
        Contender(name: name, key: key, family: .sluice, threads: workers) { input in
            var options = ReaderOptions(workers: workers)
            options.tokenizer = tokenizer
            let reader = try TypedReader(input: .file(input.path), mapping: mapping(BenchMapping.options(for: input.layout)), options: options)
            var checksum = Checksum()
            while let batch = try reader.next() {
                for tweet in batch.models {
                    checksum.add(
                        id: tweet.id, followers: tweet.followers, retweets: tweet.retweets,
                        createdSeconds: Int64(tweet.createdAt.timeIntervalSince1970.rounded(.down)),
                        userCreatedMilliseconds: Int64((tweet.userCreated.timeIntervalSince1970 * 1000).rounded()),
                        textBytes: tweet.text.utf8.count, verified: tweet.isVerified,
                        firstHashtagBytes: (tweet.firstHashtag ?? tweet.hashtags.first?.text)?.utf8.count)
                }
            }
            return RunOutcome(checksum: checksum)
        }
    }

    /// The `Decodable` structs the JSONDecoder contender decodes, unchanged, through `Mapping(decoding:)`: Sluice's
    /// tokenizer fills the columns and each model's `init(from:)` reads them; `created_at` parsed by hand, as there.
    public static func codable(workers: Int) -> Contender {
        let (name, key) = label("codable", workers: workers, tokenizer: .automatic)
        return Contender(name: name + ", dates by hand", key: key, family: .sluice, threads: workers) { input in
            let mapping = try Mapping(decoding: DecodableTweet.self, options: BenchMapping.options(for: input.layout))
            let reader = try TypedReader(input: .file(input.path), mapping: mapping, options: ReaderOptions(workers: workers))
            var checksum = Checksum()
            while let batch = try reader.next() {
                for tweet in batch.models {
                    guard let created = TwitterDate.seconds(tweet.created_at) else { throw BenchError("Codable: bad date \(tweet.created_at)") }
                    checksum.add(tweet, createdSeconds: created)
                }
            }
            return RunOutcome(checksum: checksum)
        }
    }

    /// `JSONDecoder` line by line into `Decodable` structs, `created_at` parsed by hand (the fast way to use it).
    public static let decoder = Contender(name: "JSONDecoder, dates by hand", key: "jsondecoder", family: .foundation, threads: 1) { input in
        let decoder = JSONDecoder()
        var checksum = Checksum()
        try LineReader.forEachLine(of: input.path) { line in
            let tweet = try decoder.decode(DecodableTweet.self, from: line)
            guard let created = TwitterDate.seconds(tweet.created_at) else { throw BenchError("JSONDecoder: bad date \(tweet.created_at)") }
            checksum.add(tweet, createdSeconds: created)
        }
        return RunOutcome(checksum: checksum)
    }

    /// `JSONDecoder` the usual way: `created_at` as a `Date` through a `DateFormatter`.
    public static let decoderWithFormatter = Contender(name: "JSONDecoder, DateFormatter", key: "jsondecoder-dateformatter", family: .foundation, threads: 1) { input in
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE MMM dd HH:mm:ss Z yyyy"
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .formatted(formatter)
        var checksum = Checksum()
        try LineReader.forEachLine(of: input.path) { line in
            let dated = try decoder.decode(DatedDecodableTweet.self, from: line)
            checksum.add(dated.tweet, createdSeconds: Int64(dated.created_at.timeIntervalSince1970.rounded(.down)))
        }
        return RunOutcome(checksum: checksum)
    }

    /// `JSONSerialization` into `[String: Any]`, then fields picked out by hand: what the Objective-C mappers did.
    public static let serialization = Contender(name: "JSONSerialization + hand mapping", key: "jsonserialization", family: .foundation, threads: 1) { input in
        var checksum = Checksum()
        try LineReader.forEachLine(of: input.path) { line in
            guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any],
                  let user = object["user"] as? [String: Any],
                  let createdText = object["created_at"] as? String, let created = TwitterDate.seconds(createdText) else {
                throw BenchError("JSONSerialization: a record without its fields")
            }
            let entities = object["entities"] as? [String: Any]
            let hashtags = entities?["hashtags"] as? [[String: Any]]
            checksum.add(
                id: (object["id"] as? NSNumber)?.int64Value ?? 0, followers: (user["followers_count"] as? NSNumber)?.int64Value ?? 0,
                retweets: (object["retweet_count"] as? NSNumber)?.int64Value ?? 0, createdSeconds: created,
                userCreatedMilliseconds: (user["created_ms"] as? NSNumber)?.int64Value ?? 0,
                textBytes: (object["text"] as? String)?.utf8.count ?? 0, verified: (user["verified"] as? Bool) ?? false,
                firstHashtagBytes: (hashtags?.first?["text"] as? String)?.utf8.count)
        }
        return RunOutcome(checksum: checksum)
    }
}

/// NDJSON lines as `Data`, read in 1 MiB pieces (what the Foundation contenders decode one by one).
enum LineReader {
    static func forEachLine(of path: String, _ body: (Data) throws -> Void) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw BenchError("cannot open \(path)") }
        defer { try? handle.close() }
        var pending = Data()
        while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
            pending.append(piece)
            var start = pending.startIndex
            while let lineFeed = pending[start...].firstIndex(of: 0x0A) {
                if lineFeed > start { try body(pending[start..<lineFeed]) }
                start = lineFeed + 1
            }
            pending = Data(pending[start...])
        }
        if !pending.isEmpty { try body(pending) }
    }
}
