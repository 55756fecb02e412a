import Testing
@testable import Sluice

/// The state machine driven by scripted events, with no yajl underneath: plan walking, skipping, conversion and
/// record boundaries on their own.
@Suite struct StateMachineTests {
    enum Event {
        case startMap, endMap, startArray, endArray, key(String), string(String), number(String), bool(Bool), null
    }

    /// Runs `events` (top-level values are records) and returns the rows and rejections. The offset of an event
    /// is its index in the script, so a record "starts" where the one before it ended.
    func run(_ fields: [FieldSpec], _ events: [Event], capacity: Int = 8) throws -> (rows: [String], rejections: [String]) {
        let plan = try PlanCompiler.compile(fields)
        let queue = BatchQueue(fields: fields, capacity: capacity)
        var machine = RecordStateMachine(plan: plan, batches: queue, outerLevels: 0, defersFinish: false, maximumDepth: 64, stopsAtFirstRejection: false)
        defer { machine.deallocate() }
        for (offset, event) in events.enumerated() {
            machine.scriptedOffset = offset
            let keepGoing: Bool
            switch event {
            case .startMap: keepGoing = machine.startMap()
            case .endMap: keepGoing = machine.endMap()
            case .startArray: keepGoing = machine.startArray()
            case .endArray: keepGoing = machine.endArray()
            case .key(let key): keepGoing = Array(key.utf8).withUnsafeBufferPointer { machine.key($0.baseAddress ?? machine.emptyBytes, $0.count) }
            case .string(let text): keepGoing = Array(text.utf8).withUnsafeBufferPointer { machine.string($0.baseAddress ?? machine.emptyBytes, $0.count) }
            case .number(let text): keepGoing = Array(text.utf8).withUnsafeBufferPointer { machine.number($0.baseAddress ?? machine.emptyBytes, $0.count) }
            case .bool(let value): keepGoing = machine.bool(value)
            case .null: keepGoing = machine.null()
            }
            #expect(keepGoing)
        }
        machine.flush()
        var rows: [String] = []
        var rejections: [String] = []
        while let batch = queue.takeReady() {
            for row in 0..<batch.count { rows.append(render(batch, row: row)) }
            rejections += batch.rejections.flatMap { $0.failures.map(\.description) }
            queue.recycle(batch)
        }
        return (rows, rejections)
    }

    let userFields = [field("id", .int64), field("name", .string, path: "user.name", optional: true)]

    @Test func mapsNestedKeysAndSkipsTheRest() throws {
        let result = try run(userFields, [
            .startMap, .key("skip"), .startMap, .key("id"), .number("999"), .key("user"), .startArray, .endArray, .endMap,
            .key("user"), .startMap, .key("name"), .string("Ann"), .key("id"), .number("5"), .endMap,
            .key("id"), .number("1"), .endMap,
        ])
        #expect(result.rows == ["#1@1:0 id=1 name=\"Ann\""])
        #expect(result.rejections.isEmpty)
    }

    @Test func guessesTheNextKeyAndFallsBackWhenTheOrderChanges() throws {
        let record1: [Event] = [.startMap, .key("id"), .number("1"), .key("user"), .startMap, .key("name"), .string("A"), .endMap, .endMap]
        let record2: [Event] = [.startMap, .key("user"), .startMap, .key("name"), .string("B"), .endMap, .key("id"), .number("2"), .endMap]
        let result = try run(userFields, record1 + record2 + record1)
        #expect(result.rows.map { $0.split(separator: " ").dropFirst().joined(separator: " ") } == ["id=1 name=\"A\"", "id=2 name=\"B\"", "id=1 name=\"A\""])
    }

    @Test func nullAndMissingBecomeNullForOptionalFields() throws {
        let result = try run(userFields, [
            .startMap, .key("id"), .number("1"), .key("user"), .null, .endMap,
            .startMap, .key("id"), .number("2"), .endMap,
            .startMap, .key("id"), .number("3"), .key("user"), .startMap, .key("name"), .null, .endMap, .endMap,
        ])
        #expect(result.rows.map { $0.hasSuffix("name=null") } == [true, true, true])
    }

    @Test func collectsEveryFailureOfARecordAndRollsItBack() throws {
        let result = try run([field("id", .int64), field("flag", .bool), field("name", .string, path: "user.name")], [
            .startMap, .key("id"), .string("x"), .key("flag"), .number("2"), .endMap,
            .startMap, .key("id"), .number("2"), .key("flag"), .bool(true), .key("user"), .startMap, .key("name"), .string("ok"), .endMap, .endMap,
        ])
        #expect(result.rejections == [
            "$.id: expected int64, found string \"x\"",
            "$.flag: expected bool, found number 2",
            "$.user.name: expected string, found no value",
        ])
        #expect(result.rows == ["#2@1:5 id=2 flag=true name=\"ok\""])
    }

    @Test func anArrayIndexSelectsOneElementAndOutOfRangeIsMissing() throws {
        let fields = [field("second", .string, path: "tags.1", optional: true)]
        let result = try run(fields, [
            .startMap, .key("tags"), .startArray, .string("a"), .startMap, .endMap, .string("c"), .endArray, .endMap,
            .startMap, .key("tags"), .startArray, .string("a"), .endArray, .endMap,
        ])
        #expect(result.rejections == ["$.tags[1]: expected string, found an object"])
        #expect(result.rows == ["#2@1:8 second=null"])
    }

    @Test func aNumericSegmentAlsoMatchesAnObjectKey() throws {
        let result = try run([field("v", .int64, path: "m.7")], [.startMap, .key("m"), .startMap, .key("7"), .number("70"), .endMap, .endMap])
        #expect(result.rows == ["#1@1:0 v=70"])
    }

    @Test func wrongContainerKindsAreRejectionsNotCrashes() throws {
        let result = try run(userFields, [
            .startMap, .key("id"), .startMap, .key("x"), .number("1"), .endMap, .key("user"), .startArray, .startMap, .endMap, .endArray, .endMap,
            .startArray, .number("1"), .endArray,
            .string("just a string"),
        ])
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
        let result = try run(optional, [.null, .number("5"), .startMap, .key("name"), .null, .endMap])
        #expect(result.rejections == ["$: expected an object, found null", "$: expected an object, found number 5"])
        #expect(result.rows.count == 1)
        // A field that reads the whole record takes a null record as its null.
        let whole = try run([field("record", .json, path: "$", optional: true)], [.null])
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
        let record: [Event] = [.startMap, .key("id"), .number("7"), .endMap]
        let result = try run([field("id", .int64)], Array(repeating: record, count: 10).flatMap { $0 }, capacity: 3)
        #expect(result.rows.count == 10)
        #expect(result.rows.last == "#10@1:35 id=7")
    }
}
