import Synchronization
import Foundation
import Testing
import SluiceFixtures
@testable import Sluice

/// Arrays of nested models and of values, sets and ordered sets (rule 5).
@Suite struct ArrayFieldTests {
    struct Hashtag: Sendable, Equatable { var text = ""; var start: Int64 = 0 }
    struct Post: Sendable, Equatable {
        var id: Int64 = 0
        var hashtags: [Hashtag] = []
        var mentions: [Hashtag]?
        var tags: [String] = []
        var uniqueTags: [String] = []
        var tagSet: Set<String> = []
        var scores: [Double] = []
        var flags: [Bool] = []
        var ids: [Int64] = []
    }

    static func mapping() throws -> Mapping<Post> {
        let hashtag = try Mapping(Hashtag.init) {
            Field("text", \.text)
            Field("indices.0", \.start)
        }
        return try Mapping(Post.init) {
            Field("id", \.id)
            Field("entities.hashtags", \.hashtags, elements: hashtag)
            Field("entities.mentions", \.mentions, elements: hashtag)
            Field("tags", \.tags)
            Field("tags", \.uniqueTags, unique: true)
            Field("tags", \.tagSet)
            Field("scores", \.scores)
            Field("flags", \.flags)
            Field("ids", \.ids)
        }
    }

    func read(_ text: String) throws -> (posts: [Post], rejections: [String]) {
        let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: try Self.mapping(), options: ReaderOptions(shape: .ndjson, rejectionPolicy: .collect))
        var posts: [Post] = []
        var rejections: [String] = []
        while let batch = try reader.next() {
            posts += batch.models
            rejections += batch.rejections.map(\.description)
        }
        return (posts, rejections)
    }

    @Test func arraysOfModelsAndValuesWithNullsDropped() throws {
        let result = try read("""
            {"id":1,"entities":{"hashtags":[{"text":"a","indices":[3,5]},null,{"text":"b","indices":[9,11]}]},"tags":["x","y","x",null],"scores":[1.5,"2"],"flags":[true,"false",1],"ids":["7",8]}
            {"id":2,"entities":{"hashtags":[],"mentions":null},"tags":[]}

            """)
        #expect(result.rejections.isEmpty)
        #expect(result.posts == [
            Post(id: 1, hashtags: [Hashtag(text: "a", start: 3), Hashtag(text: "b", start: 9)], mentions: nil, tags: ["x", "y", "x"], uniqueTags: ["x", "y"],
                 tagSet: ["x", "y"], scores: [1.5, 2], flags: [true, false, true], ids: [7, 8]),
            Post(id: 2),
        ])
    }

    @Test func arraysAreWrittenBackAndMapToTheSameModel() throws {
        let mapping = try Self.mapping()
        let post = Post(id: 1, hashtags: [Hashtag(text: "a", start: 3), Hashtag(text: "b\"", start: 0)], mentions: [],
                        tags: ["x", "y", "x"], uniqueTags: ["x", "y"], tagSet: ["x", "y"], scores: [0.5, -2], flags: [true], ids: [.max, -1])
        let text = mapping.jsonText(of: post)
        // Nested models through their own mapping (`indices.0` is an array again); the three properties of `tags`
        // are written once, from the first.
        #expect(text == #"{"id":1,"entities":{"hashtags":[{"text":"a","indices":[3]},{"text":"b\"","indices":[0]}],"mentions":[]},"#
            + #""tags":["x","y","x"],"scores":[0.5,-2.0],"flags":[true],"ids":[9223372036854775807,-1]}"#)
        let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: mapping)
        #expect(try reader.nextModel() == post)
        // A missing optional array is left out.
        var without = post
        without.mentions = nil
        #expect(!mapping.jsonText(of: without).contains("mentions"))
    }

    @Test func anElementThatDoesNotMapRejectsTheRecordNamingIt() throws {
        let result = try read("""
            {"id":1,"entities":{"hashtags":[{"text":"a","indices":[1]},{"text":5,"indices":[]}]}}
            {"id":2,"ids":[1,"x"]}
            {"id":3,"tags":"not an array"}

            """)
        #expect(result.posts.isEmpty)
        #expect(result.rejections.count == 3)
        #expect(result.rejections[0].hasSuffix("$.entities.hashtags[1].indices.0: expected int64, found no value"))
        #expect(result.rejections[1].hasSuffix(#"$.ids[1]: expected int64, found string "x""#))
        #expect(result.rejections[2].hasSuffix(#"$.tags: expected an array, found string "not an array""#))
    }

    @Test func arraysInsideNestedModelsNameTheirElementsFromTheRecordRoot() throws {
        struct Inner: Sendable { var tags: [Int64] = [] }
        struct Outer: Sendable { var inner = Inner() }
        let inner = try Mapping(Inner.init) { Field("tags", \.tags) }
        let outer = try Mapping(Outer.init) { Field("post", \.inner, mapping: inner) }
        let reader = try TypedReader(input: .bytes(Array(#"{"post":{"tags":[1,"x"]}}"#.utf8)), mapping: outer, options: ReaderOptions(rejectionPolicy: .collect))
        let batch = try #require(try reader.next())
        #expect(batch.rejections.map(\.description) == [#"record 1 (line 1, byte 0): $.post.tags[1]: expected int64, found string "x""#])
    }

    @Test func arraysOfRealHashtags() throws {
        let hashtag = try Mapping(Hashtag.init) {
            Field("text", \.text)
            Field("indices.0", \.start)
        }
        struct Tweet: Sendable { var id: Int64 = 0; var hashtags: [Hashtag] = [] }
        let mapping = try Mapping(Tweet.init) {
            Field("id", \.id)
            Field("entities.hashtags", \.hashtags, elements: hashtag)
        }
        let reader = try TypedReader(input: .file(fixturesDirectory.appendingPathComponent("examples/tweets.ndjson").path), mapping: mapping)
        var count = 0
        var withTags = 0
        while let tweet = try reader.nextModel() {
            count += 1
            if !tweet.hashtags.isEmpty { withTags += 1 }
        }
        #expect(count == 25 && withTags > 0)
    }

    /// Elements go through engines of 16 rows a batch: an element its finishing hook refuses in a later batch,
    /// among nulls, fails the record with its own index, and the next record's array maps whole.
    @Test func anElementTheHookRefusesInALaterBatchIsNamed() throws {
        struct Span: Sendable, Equatable { let low: Int; let high: Int }
        struct Row: Sendable { var spans: [Span] = [] }
        let span = try Mapping(Span.init, Parameter("low", \.low), Parameter("high", \.high), finish: { span in
            if span.low > span.high { throw MappingFailure("low above high") }
        })
        let mapping = try Mapping(Row.init) { Field("spans", \.spans, elements: span) }
        let good = (0..<40).map { #"{"low":\#($0),"high":\#($0 + 1)}"# }
        var bad = good
        bad[35] = #"{"low":9,"high":1}"#
        let text = "{\"spans\":[null," + bad.joined(separator: ",") + ",null]}\n{\"spans\":[" + good.joined(separator: ",") + ",null]}\n"
        let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: mapping, options: ReaderOptions(rejectionPolicy: .collect))
        var rows: [Row] = []
        var rejections: [String] = []
        while let batch = try reader.next() {
            rows += batch.models
            rejections += batch.rejections.map(\.description)
        }
        #expect(rejections.count == 1)
        #expect(rejections.first?.hasSuffix("$.spans[36]: finishing hook failed: low above high") == true, "\(rejections)")
        #expect(rows.map(\.spans) == [(0..<40).map { Span(low: $0, high: $0 + 1) }])
    }

    /// One mapping read on several threads at once (its array fields keep engines for whoever maps a value) gives
    /// each reader the models a reader alone gives.
    @Test func readersOnSeveralThreadsShareOneMapping() throws {
        let mapping = try Self.mapping()
        let lines = (1...2_000).map { id in
            #"{"id":\#(id),"entities":{"hashtags":[{"text":"t\#(id)","indices":[\#(id % 7),1]},null,{"text":"u","indices":[2]}]},"ids":[\#(id),"\#(id + 1)"]}"#
        }
        let text = Array((lines.joined(separator: "\n") + "\n").utf8)
        @Sendable func readAll(workers: Int) throws -> [Post] {
            let reader = try TypedReader(input: .bytes(text), mapping: mapping, options: ReaderOptions(shape: .ndjson, workers: workers, chunkSize: 4096))
            var posts: [Post] = []
            while let batch = try reader.next() { posts += batch.models }
            return posts
        }
        let alone = try readAll(workers: 1)
        #expect(alone.count == 2_000 && alone[6].hashtags == [Hashtag(text: "t7", start: 0), Hashtag(text: "u", start: 2)])
        let results = Mutex<[[Post]]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let posts = (try? readAll(workers: 2)) ?? []
            results.withLock { $0.append(posts) }
        }
        #expect(results.withLock { $0 }.allSatisfy { $0 == alone })
    }
}
