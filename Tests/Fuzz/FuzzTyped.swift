import Sluice

/// Typed arrays of models (models inside their elements, and arrays of scalars) read by the matched walks, by one
/// worker and several: the same models, rejections, error and counts; and, where yajl finds no damage, the same
/// with simdjson.
///
/// The first byte picks the variant: the shape (modulo 3), whether a hashtag's key no field reads fails it (bit 2),
/// and the tokenizer (bit 7: yajl).
/// The rest is the input; the seeds are tweets, whose hashtags and mentions are the arrays, and the same tweets as a
/// JSON array.
enum FuzzTyped {
    struct Tweet: Sendable, Equatable {
        var id: Int64 = 0
        var hashtags: [Hashtag] = []
        var mentions: [Mention]?
        var point: [Double]?
    }

    struct Hashtag: Sendable, Equatable {
        var text = ""
        var indices: [Int64] = []
    }

    struct Mention: Sendable, Equatable {
        var id: Int64 = 0
        var name: String?
        var spans: [Span]?
    }

    /// A mention's `indices` read element by element as models of their own: a model inside an element.
    struct Span: Sendable, Equatable { var at: Int64 = 0 }

    static func mapping(strictHashtags: Bool) throws -> Mapping<Tweet> {
        let hashtag = try Mapping(Hashtag.init, options: MappingOptions(unmappedKeys: strictHashtags ? .reject : .ignore)) {
            Field("text", \.text)
            Field("indices", \.indices)
        }
        let span = try Mapping(Span.init) { Field("$", \.at) }
        let mention = try Mapping(Mention.init) {
            Field("id", \.id)
            Field("screen_name", \.name)
            Field("indices", \.spans, elements: span)
        }
        return try Mapping(Tweet.init) {
            Field("id", \.id)
            Field("entities.hashtags", \.hashtags, elements: hashtag)
            Field("entities.user_mentions", \.mentions, elements: mention)
            Field("coordinates.coordinates", \.point)
        }
    }

    /// Every mapping must build: a target that quietly lost one would fuzz less than it says.
    static let mappings: [Mapping<Tweet>] = [false, true].map { strict in
        do {
            return try mapping(strictHashtags: strict)
        } catch {
            preconditionFailure("a fuzz mapping does not build: \(error)")
        }
    }
    static let shapes: [InputShape] = [.ndjson, .array, .automatic]

    static func run(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let input = Array(bytes.dropFirst())
        let mapping = mappings[Int(selector >> 2 & 1)]
        let shape = shapes[Int(selector % 3)]
        let tokenizer: TokenizerChoice = selector & 0x80 == 0 ? .simdjson : .yajl
        let reference = SamePipelines.expect(shape: shape, tokenizer: tokenizer, runs: [(1, 1 << 20), (2, 1), (3, 64)]) { options in
            Transcript(input, mapping: mapping, options: options)
        }
        if tokenizer == .yajl {
            SamePipelines.expectSimdjsonAgrees(with: reference, findsDamage: \.findsDamage, shape: shape) { options in
                Transcript(input, mapping: mapping, options: options)
            }
        }
    }

    /// What a run gave: each model or rejection in record order, the error, the counts.
    struct Transcript: Equatable, CustomStringConvertible {
        var lines: [String] = []
        var error: String?
        var counts = ""
        /// Whether a record was damaged or the run ended with an error.
        var findsDamage = false

        init(_ input: [UInt8], mapping: Mapping<Tweet>, options: ReaderOptions) {
            var numbered: [(ordinal: Int, line: String)] = []
            var rejections: [Rejection] = []
            do {
                let reader = try TypedReader(input: .bytes(input), mapping: mapping, options: options)
                defer {
                    let statistics = reader.statistics
                    precondition(statistics.recordsRead == statistics.recordsMapped + statistics.recordsRejected, "accounting broke: \(statistics)")
                    let unmappedKeys = reader.unmappedKeys
                    numbered += rejections.map { ($0.location.ordinal, "rejected \($0)") }
                    counts = "\(statistics.recordsRead) = \(statistics.recordsMapped) + \(statistics.recordsRejected); unmapped "
                        + unmappedKeys.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
                }
                while let batch = try reader.next() {
                    numbered += zip(batch.locations, batch.models).map { ($0.ordinal, "\($0) \($1)") }
                    rejections += batch.rejections
                }
            } catch {
                self.error = "\(error)"
            }
            findsDamage = error != nil || rejections.contains(where: SamePipelines.isDamage)
            lines = numbered.sorted { $0.ordinal < $1.ordinal }.map(\.line)
        }

        var description: String { (lines + [error ?? "", counts]).joined(separator: "\n") }
    }
}
