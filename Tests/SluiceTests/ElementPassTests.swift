import Foundation
import Testing
@testable import Sluice

/// Typed arrays mapped in the record's own pass, by element machines, against the same arrays mapped from their
/// text when the model is made (which is what happens when a second field reads the array whole).
@Suite struct ElementPassTests {
    struct Tag: Sendable, Equatable {
        var text = ""
        var indices: [Int64] = []
        var extra: JSONValue?
        var labels: [Label]?
        var indicesText: String?
        var labelsText: String?
    }

    struct Label: Sendable, Equatable { var name = "" }

    struct Post: Sendable, Equatable {
        var id: Int64 = 0
        var tags: [Tag] = []
        var scores: [Int32]?
        var tagsText: String?
        var scoresText: String?
    }

    /// The mapping; `readsTextToo` adds json fields on every array, which sends them all down the text path;
    /// `strictElements` makes a tag's key no field reads fail it, `strictRecord` a post's.
    static func mapping(readsTextToo: Bool, strictElements: Bool = false, strictRecord: Bool = false) throws -> Mapping<Post> {
        let label = try Mapping(Label.init) { Field("name", \.name) }
        let tag = try Mapping(Tag.init, options: MappingOptions(unmappedKeys: strictElements ? .reject : .ignore)) {
            Field("text", \.text)
            Field("indices", \.indices)
            Field("extra", \.extra)
            Field("labels", \.labels, elements: label)
            if readsTextToo {
                Field(json: "indices", \.indicesText)
                Field(json: "labels", \.labelsText)
            }
        }
        return try Mapping(Post.init, options: MappingOptions(unmappedKeys: strictRecord ? .reject : .ignore)) {
            Field("id", \.id)
            Field("tags", \.tags, elements: tag)
            Field("scores", \.scores)
            if readsTextToo {
                Field(json: "tags", \.tagsText)
                Field(json: "scores", \.scoresText)
            }
        }
    }

    /// Whether some array of the plan is mapped by an element machine.
    static func mapsElementsInPass(_ plan: CompiledPlan) -> Bool {
        (0..<plan.nodeCount).contains { plan.nodes[$0].elementMachine >= 0 }
    }

    /// Records with every kind of array: empty, long (past an element batch's first capacity), with nulls, with
    /// elements that fail in the engine (a string for an object, an index that is no integer, a score past
    /// Int32) and values that are no arrays; nested arrays of values and of models inside elements; records
    /// rejected for a field outside the arrays; duplicate keys.
    static func records(count: Int, seed: UInt64, odds: Int) -> String {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        func tag() -> String {
            // One element in 20 is null; six in `odds` are of a rarer kind, four of which fail.
            switch next(odds) {
            case 0..<(odds / 20): return "null"
            case odds - 1: return #""not an object""#
            case odds - 2: return #"{"text":"bad","indices":[1,"x"]}"#
            case odds - 3: return #"{"text":"deep","extra":{"a":[[1,{"b":null}]],"c":"\u00e9\n"},"indices":[]}"#
            case odds - 4: return #"{"text":"l","labels":[{"name":"a"},null,{"name":"b"}],"unread":{"x":[1,2]}}"#
            case odds - 5: return #"{"text":"badlabel","labels":[{"name":1}]}"#
            case odds - 6: return #"{"indices":[1]}"#
            default: return #"{"text":"t\#(next(1000))","indices":[\#(next(50)),\#(next(50))]}"#
            }
        }
        func tags() -> String {
            switch next(20) {
            case 0: return #""tags":"x","#
            case 1: return #""tags":{"text":"an object"},"#
            case 2: return #""tags":null,"#
            case 3: return ""
            case 4: return #""tags":[{"text":"first"}],"tags":[{"text":"second"}],"#
            default:
                let length = next(20) == 0 ? 60 + next(100) : next(6)
                return #""tags":["# + (0..<length).map { _ in tag() }.joined(separator: ",") + "],"
            }
        }
        func scores() -> String {
            switch next(12) {
            case 0: return #","scores":[1,3000000000]"#
            case 1: return #","scores":null"#
            case 2: return #","scores":[]"#
            case 3: return #","scores":[null,"7",8]"#
            default: return #","scores":[\#(next(100))]"#
            }
        }
        return (0..<count).map { index in
            let id = next(30) == 0 ? #""abc""# : "\(index)"
            // A key no field reads, in one record in seven: counted, or the record's failure in strict mode.
            let note = index % 7 == 3 ? #""note":1,"# : ""
            return "{" + tags() + note + #""id":\#(id)"# + scores() + "}"
        }.joined(separator: "\n") + "\n"
    }

    /// What a read gave: the models, the rejections' descriptions, the counts of keys no field reads.
    typealias Outcome = (posts: [Post], rejections: [String], unmappedKeys: [String: Int])

    /// Expects the same models, rejections and unmapped keys, naming the first rejection that differs.
    static func expectSame(_ result: Outcome, _ expected: Outcome, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.posts == expected.posts, "\(label)", sourceLocation: sourceLocation)
        #expect(result.rejections == expected.rejections, "\(label)", sourceLocation: sourceLocation)
        #expect(result.unmappedKeys == expected.unmappedKeys, "\(label)", sourceLocation: sourceLocation)
        for (got, wanted) in zip(result.rejections, expected.rejections) where got != wanted {
            Issue.record("\(got)\n  instead of\n\(wanted)", sourceLocation: sourceLocation)
            break
        }
    }

    static func read(_ text: String, readsTextToo: Bool, options: ReaderOptions) throws -> Outcome {
        try read(text, mapping: try mapping(readsTextToo: readsTextToo), options: options)
    }

    static func read(_ text: String, mapping: Mapping<Post>, options: ReaderOptions) throws -> Outcome {
        let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: mapping, options: options)
        var posts: [Post] = []
        var rejections: [String] = []
        while let batch = try reader.next() {
            posts += batch.models.map { post in
                var post = post
                post.tagsText = nil
                post.scoresText = nil
                post.tags = post.tags.map { tag in
                    var tag = tag
                    tag.indicesText = nil
                    tag.labelsText = nil
                    return tag
                }
                return post
            }
            rejections += batch.rejections.map(\.description)
        }
        return (posts, rejections, reader.unmappedKeys)
    }

    @Test func onlyAnArrayNoOtherFieldReadsIsMappedInThePass() throws {
        #expect(Self.mapsElementsInPass(try Self.mapping(readsTextToo: false).plan))
        #expect(!Self.mapsElementsInPass(try Self.mapping(readsTextToo: true).plan))
    }

    /// Rare failures (most long arrays map), then frequent ones (several elements of an array fail, in the
    /// engine and when models are made: the first is named).
    @Test(arguments: [TokenizerChoice.yajl, .simdjson], [600, 40])
    func elementsMappedInThePassGiveWhatTheirTextGives(tokenizer: TokenizerChoice, odds: Int) throws {
        let text = Self.records(count: 1500, seed: 7, odds: odds)
        var textOptions = ReaderOptions(shape: .ndjson, rejectionPolicy: .collect)
        textOptions.tokenizer = tokenizer
        let expected = try Self.read(text, readsTextToo: true, options: textOptions)
        #expect(expected.rejections.count > 100)
        if odds > 100 {
            #expect(expected.posts.count > 1000)
            #expect(expected.posts.contains { $0.tags.count > 64 })
        }
        for (workers, batchCapacity) in [(1, 4096), (1, 3), (2, 7)] {
            var options = textOptions
            options.workers = workers
            options.batchCapacity = batchCapacity
            options.chunkSize = 16 << 10
            let result = try Self.read(text, readsTextToo: false, options: options)
            Self.expectSame(result, expected, "workers \(workers), batches of \(batchCapacity)")
        }
    }

    @Test func anElementThatFailsIsNamedWithTheRecordsOtherRefusedValues() throws {
        let text = #"{"id":1,"tags":[{"text":"a"},null,{"text":"b","indices":["x"]}],"scores":[1,3000000000]}"# + "\n"
        let result = try Self.read(text, readsTextToo: false, options: ReaderOptions(shape: .ndjson, rejectionPolicy: .collect))
        #expect(result.posts.isEmpty)
        #expect(result.rejections == [
            #"record 1 (line 1, byte 0): $.tags[2].indices[0]: expected int64, found string "x"; "#
                + "$.scores[1]: expected int32 (-2147483648 to 2147483647), found number 3000000000",
        ])
    }

    @Test func theElementsOfARejectedRecordGoToNoOtherRecord() throws {
        // The second record's elements are mapped before its id fails; the third record's array must hold only
        // its own.
        let text = """
            {"id":1,"tags":[{"text":"a"}]}
            {"tags":[{"text":"gone"},{"text":"gone too"}],"id":"x"}
            {"id":3,"tags":[{"text":"c"}]}

            """
        let result = try Self.read(text, readsTextToo: false, options: ReaderOptions(shape: .ndjson, batchCapacity: 2, rejectionPolicy: .collect))
        #expect(result.posts.map(\.tags) == [[Tag(text: "a")], [Tag(text: "c")]])
        #expect(result.rejections.count == 1)
    }

    @Test func aLineRejectedBetweenRecordsLeavesTheElementsOfTheRecordBeforeIt() throws {
        // Neither line begins a record, so neither may take back the elements of the record before it.
        let text = #"{"id":1,"tags":[{"text":"a"}]}"# + "\nxyz\n]\n" + #"{"id":2,"tags":[{"text":"\#(String(repeating: "b", count: 300))"}]}"#
            + "\n" + #"{"id":3,"tags":[{"text":"c"}]}"# + "\n"
        for workers in [1, 2] {
            let result = try Self.read(text, readsTextToo: false, options: ReaderOptions(
                shape: .ndjson, maximumRecordSize: 200, rejectionPolicy: .collect, workers: workers, chunkSize: 64))
            #expect(result.posts.map(\.id) == [1, 3])
            #expect(result.posts.map(\.tags) == [[Tag(text: "a")], [Tag(text: "c")]])
            #expect(result.rejections.count == 3)
        }
    }

    @Test func elementBatchesAreReusedWithTheirBatches() throws {
        // 2,000 records of 20 elements each in batches of 50: a batch's element rows are those of its own
        // records, so an element batch never needs more than 50 × 20 rows however many batches go by.
        let text = (0..<2000).map { index in
            #"{"id":\#(index),"tags":["# + (0..<20).map { #"{"text":"t\#($0)"}"# }.joined(separator: ",") + "]}"
        }.joined(separator: "\n") + "\n"
        let plan = try Self.mapping(readsTextToo: false).plan
        let source = try BatchSourceOpener.open(.bytes(Array(text.utf8)), plan: plan, options: ReaderOptions(shape: .concatenated, batchCapacity: 50),
                                                keepsRecordText: false, progress: ProgressMonitor())
        var rows = 0
        while let batch = try source.nextBatch() {
            rows += batch.count
            #expect(batch.count <= 50 && batch.elementBatches.count == 2)
            #expect(batch.elementBatches.allSatisfy { $0.capacity <= 1024 })
        }
        #expect(rows == 2000)
    }

    @Test func elementsOfADocumentAndOfFoundationValuesAreMappedInThePass() throws {
        let mapping = try Self.mapping(readsTextToo: false)
        let tree: [String: Any] = ["id": 5, "tags": [["text": "a", "indices": [1, 2]], NSNull(), ["text": "b", "labels": [["name": "n"]]]]]
        let post = try mapping.model(from: tree)
        #expect(post.tags == [Tag(text: "a", indices: [1, 2]), Tag(text: "b", labels: [Label(name: "n")])])
        var updated = Post(id: 5, tags: [Tag(text: "old")])
        try mapping.update(&updated, from: .bytes(Array(#"{"tags":[{"text":"new"}]}"#.utf8)))
        #expect(updated.tags == [Tag(text: "new")])
    }
}
