import Testing
@testable import Sluice

/// The record machine on its own concerns, with records as JSON lines read by both matched walks (which must agree):
/// plan walking, skipping, conversion, rejections and record boundaries.
@Suite struct StateMachineTests {
    /// Reads `records` (one a line) with each tokenizer, expects the same from both, and returns the rows and the
    /// rejections' failures.
    func run(_ fields: [FieldSpec], _ records: [String], capacity: Int = 8, sourceLocation: SourceLocation = #_sourceLocation) throws -> (rows: [String], rejections: [String]) {
        var results: [(rows: [String], rejections: [String])] = []
        for tokenizer in [TokenizerChoice.yajl, .simdjson] {
            var options = ReaderOptions(batchCapacity: capacity, rejectionPolicy: .collect)
            options.tokenizer = tokenizer
            let reader = try ColumnarReader(input: .bytes(Array(records.joined(separator: "\n").utf8)), schema: try MappingSchema(fields: fields), options: options)
            var rows: [String] = []
            var rejections: [String] = []
            while let batch = try reader.next() {
                for row in 0..<batch.count { rows.append(render(batch, row: row)) }
                rejections += batch.rejections.flatMap { $0.failures.map(\.description) }
            }
            results.append((rows, rejections))
        }
        #expect(results[0].rows == results[1].rows && results[0].rejections == results[1].rejections, "yajl: \(results[0]), simdjson: \(results[1])",
                sourceLocation: sourceLocation)
        return results[0]
    }

    let userFields = [field("id", .int64), field("name", .string, path: "user.name", optional: true)]

    @Test func mapsNestedKeysAndSkipsTheRest() throws {
        let result = try run(userFields, [#"{"skip":{"id":999,"user":[]},"user":{"name":"Ann","id":5},"id":1}"#])
        #expect(result.rows == ["#1@1:0 id=1 name=\"Ann\""])
        #expect(result.rejections.isEmpty)
    }

    @Test func guessesTheNextKeyAndFallsBackWhenTheOrderChanges() throws {
        let record1 = #"{"id":1,"user":{"name":"A"}}"#
        let record2 = #"{"user":{"name":"B"},"id":2}"#
        let result = try run(userFields, [record1, record2, record1])
        #expect(result.rows.map { $0.split(separator: " ").dropFirst().joined(separator: " ") } == ["id=1 name=\"A\"", "id=2 name=\"B\"", "id=1 name=\"A\""])
    }

    @Test func nullAndMissingBecomeNullForOptionalFields() throws {
        let result = try run(userFields, [#"{"id":1,"user":null}"#, #"{"id":2}"#, #"{"id":3,"user":{"name":null}}"#])
        #expect(result.rows.map { $0.hasSuffix("name=null") } == [true, true, true])
    }

    @Test func collectsEveryFailureOfARecordAndRollsItBack() throws {
        let result = try run([field("id", .int64), field("flag", .bool), field("name", .string, path: "user.name")], [
            #"{"id":"x","flag":2}"#,
            #"{"id":2,"flag":true,"user":{"name":"ok"}}"#,
        ])
        #expect(result.rejections == [
            "$.id: expected int64, found string \"x\"",
            "$.flag: expected bool, found number 2",
            "$.user.name: expected string, found no value",
        ])
        #expect(result.rows == ["#2@2:20 id=2 flag=true name=\"ok\""])
    }

    @Test func anArrayIndexSelectsOneElementAndOutOfRangeIsMissing() throws {
        let fields = [field("second", .string, path: "tags.1", optional: true)]
        let result = try run(fields, [#"{"tags":["a",{},"c"]}"#, #"{"tags":["a"]}"#])
        #expect(result.rejections == ["$.tags[1]: expected string, found an object"])
        #expect(result.rows == ["#2@2:22 second=null"])
    }

    @Test func aNumericSegmentAlsoMatchesAnObjectKey() throws {
        let result = try run([field("v", .int64, path: "m.7")], [#"{"m":{"7":70}}"#])
        #expect(result.rows == ["#1@1:0 v=70"])
    }

    @Test func wrongContainerKindsAreRejectionsNotCrashes() throws {
        let result = try run(userFields, [#"{"id":{"x":1},"user":[{}]}"#, "[1]", #""just a string""#])
        #expect(result.rejections == [
            "$.id: expected int64, found an object",
            "$.user: expected an object, found an array",
            "$: expected an object, found an array",
            "$.id: expected int64, found no value",
            "$: expected an object, found string \"just a string\"",
            "$.id: expected int64, found no value",
        ])
        #expect(result.rows.isEmpty)
    }

    @Test func aNullRecordIsRejectedLikeAnyRecordThatIsNoObject() throws {
        let optional = [field("name", .string, optional: true)]
        let result = try run(optional, ["null", "5", #"{"name":null}"#])
        #expect(result.rejections == ["$: expected an object, found null", "$: expected an object, found number 5"])
        #expect(result.rows.count == 1)
        // A field that reads the whole record takes a null record as its null.
        let whole = try run([field("record", .json, path: "$", optional: true)], ["null"])
        #expect(whole.rejections.isEmpty && whole.rows.count == 1)
    }

    @Test func rejectionsFillBatchesAsRowsDo() throws {
        // A stream in which every record is rejected is handed on a batch at a time, not held whole.
        let text = String(repeating: #"{"id":"x"} "#, count: 10) + #"{"id":1}"#
        let reader = try ColumnarReader(input: .bytes(Array(text.utf8)), schema: try MappingSchema(fields: [field("id", .int64)]),
                                        options: ReaderOptions(shape: .concatenated, batchCapacity: 3, rejectionPolicy: .collect))
        var rejectionCounts: [Int] = []
        var rows = 0
        while let batch = try reader.next() {
            rejectionCounts.append(batch.rejections.count)
            rows += batch.count
        }
        #expect(rejectionCounts.allSatisfy { $0 <= 3 } && rejectionCounts.reduce(0, +) == 10 && rows == 1)
    }

    @Test func aRecordThatFillsItsBatchKeepsItsValuesWhenWhatFollowsIsMalformed() throws {
        // The batch is handed on when its last record commits; the next batch is made only when a record starts,
        // so the failure that ends the stream must not take back values from the batch already handed on.
        for shape in [InputShape.concatenated, .ndjson] {
            for capacity in [1, 2] {
                let text = #"{"id": 1}"# + (shape == .ndjson ? "\n" : " ") + #"{"id": 2}"# + (shape == .ndjson ? "\n" : " ") + "]"
                let result = try transcript(of: text, fields: [field("id", .int64)],
                                            options: ReaderOptions(shape: shape, batchCapacity: capacity, rejectionPolicy: .collect))
                #expect(result.rows == ["#1@1:0 id=1", "#2@\(shape == .ndjson ? 2 : 1):10 id=2"], "\(shape), capacity \(capacity): \(result)")
                #expect(result.rejections.count + (result.error == nil ? 0 : 1) >= 1, "\(shape), capacity \(capacity): \(result)")
            }
        }
    }

    @Test func recordsFillBatchesOfTheGivenCapacity() throws {
        let result = try run([field("id", .int64)], Array(repeating: #"{"id":7}"#, count: 10), capacity: 3)
        #expect(result.rows.count == 10)
        #expect(result.rows.last == "#10@10:81 id=7")
    }
}
