import Foundation
import Synchronization
import Testing
import SluiceFixtures
@testable import Sluice

/// The parallel pipeline must give exactly what one reader gives: the same records with the same ordinals, lines
/// and offsets, the same rejections and the same ending, for every worker count, chunk size and batch capacity.
@Suite struct ParallelPipelineTests {
    static let workerCounts = [2, 4]
    static let chunkSizes = [1, 5, 64, 1000, 1 << 20]
    static let capacities = [1, 3, 4096]

    static func parallel(_ workers: Int, chunk: Int, capacity: Int, shape: InputShape = .automatic, policy: RejectionPolicy = .collect, maximumRecordSize: Int = 64 << 20) -> ReaderOptions {
        ReaderOptions(shape: shape, batchCapacity: capacity, maximumRecordSize: maximumRecordSize, rejectionPolicy: policy, workers: workers, chunkSize: chunk)
    }

    /// Runs `input` sequentially and then in parallel in every configuration; each must match the first.
    static func expectSameAsSequential(_ input: Input, fields: [FieldSpec], shape: InputShape = .automatic, maximumRecordSize: Int = 64 << 20, chunkSizes: [Int] = chunkSizes, sourceLocation: SourceLocation = #_sourceLocation) throws -> RunTranscript {
        let reference = try transcript(of: input, fields: fields, options: ReaderOptions(shape: shape, maximumRecordSize: maximumRecordSize, rejectionPolicy: .collect))
        for workers in workerCounts {
            for (index, chunk) in chunkSizes.enumerated() {
                let capacity = capacities[(index + workers) % capacities.count]
                let result = try transcript(of: input, fields: fields, options: parallel(workers, chunk: chunk, capacity: capacity, shape: shape, maximumRecordSize: maximumRecordSize))
                #expect(result == reference, "\(workers) workers, chunks of \(chunk), batches of \(capacity):\n\(result)\n--- expected\n\(reference)", sourceLocation: sourceLocation)
            }
        }
        return reference
    }

    @Test(arguments: GoldenTests.cases.filter { ["people-ndjson", "people-array", "tweets-example"].contains($0.name) })
    func goldenInputs(_ testCase: GoldenTests.Case) throws {
        let schema = try MappingSchema(contentsOfFile: GoldenTests.golden.appendingPathComponent(testCase.mapping).path)
        _ = try Self.expectSameAsSequential(.file(testCase.input.path), fields: schema.fields, shape: testCase.shape)
    }

    @Test func realArrayRecordsInBigChunks() throws {
        let testCase = try #require(GoldenTests.cases.first { $0.name == "amazon-arrays" })
        let schema = try MappingSchema(contentsOfFile: GoldenTests.golden.appendingPathComponent(testCase.mapping).path)
        let reference = try Self.expectSameAsSequential(.file(testCase.input.path), fields: schema.fields, chunkSizes: [4096, 1 << 20])
        #expect(reference.rows.count > 500)
    }

    /// Generated tweets with rejections of every kind NDJSON can resume after, blank lines, CRLF and no final
    /// line feed.
    @Test func generatedNDJSONWithRejections() throws {
        var generator = TweetGenerator(seed: 11)
        var lines = (1...60).map { generator.nextRecord(ordinal: $0) }
        lines[5] = "{\"id\": 1, broken"
        lines[9] = lines[9].replacingOccurrences(of: "\"retweet_count\":", with: "\"retweet_count\":\"many\",\"x\":")
        lines[14] = "{\"id\":2} {\"id\":3}"
        lines[20] = ""
        lines[21] = "   "
        lines[30] = lines[30] + "\r"
        lines[44] = "[1, 2"
        let text = "\u{FEFF}" + lines.joined(separator: "\n")
        let reference = try Self.expectSameAsSequential(.bytes(Array(text.utf8)), fields: ReferenceMapping.fields)
        #expect(reference.rejections.count == 4)
        #expect(reference.rows.count == 54)
    }

    /// Pretty-printed arrays: records over several lines, so lines must be counted across chunks.
    @Test func generatedArraysOverSeveralLines() throws {
        var generator = TweetGenerator(seed: 5)
        var records = (1...50).map { generator.nextRecord(ordinal: $0) }
        records[7] = records[7].replacingOccurrences(of: "\"retweet_count\":", with: "\"retweet_count\":\"many\",\"x\":")
        let pretty = records.map { $0.replacingOccurrences(of: ",\"user\":", with: ",\n    \"user\":") }
        let text = "\n[\n  " + pretty.joined(separator: " ,\n\n  ") + "\n]\n\n"
        let reference = try Self.expectSameAsSequential(.bytes(Array(text.utf8)), fields: ReferenceMapping.fields)
        #expect(reference.rows.count == 49)
        #expect(reference.error == nil)
    }

    @Test func arraysOfScalarsAndStrings() throws {
        let fields = [field("value", .json, path: "$")]
        _ = try Self.expectSameAsSequential(.bytes(Array("[1, 2.5 ,\"a,]b\" ,true,null, -3e2,{\"x\":[1,{}]},[] ]".utf8)), fields: fields)
        _ = try Self.expectSameAsSequential(.bytes(Array("[]".utf8)), fields: fields, shape: .array)
        _ = try Self.expectSameAsSequential(.bytes(Array("  [ ]  \n".utf8)), fields: fields, shape: .array)
    }

    /// Elements whose strings hold brackets, quotes, commas and escapes at every position relative to the framer's
    /// eight-byte words: the framer must find exactly the boundaries the parser finds.
    @Test func randomElementsWithTrickyStrings() throws {
        let text = trickyArray(seed: 1234, elements: 300)
        let fields = [field("id", .int64), field("v", .json, optional: true)]
        let reference = try Self.expectSameAsSequential(.bytes(Array(text.utf8)), fields: fields, chunkSizes: [1, 13, 333, 4096])
        #expect(reference.rows.count == 300)
        #expect(reference.error == nil)
    }

    /// Broken arrays end the run at the same record, with the same error, for every worker count and chunk
    /// size, after delivering the records before it.
    @Test(arguments: [
        ("[{\"a\":1} {\"a\":2}]", 1), ("[{\"a\":1},,{\"a\":2}]", 1), ("[{\"a\":1},]", 1), ("[{\"a\":1}] x", 1),
        ("[{\"a\":1},{\"a\":2}", 2), ("[{\"a\":1},{\"a\":[1}]", 1), ("[{\"a\":1},{\"a\":2", 1), ("x", 0), ("[1 2]", 0),
        ("[{\"a\":1},{\"a\":tru}]", 1), ("{\"a\":1}", 0),
    ])
    func brokenArrays(_ text: String, delivered: Int) throws {
        let fields = [field("a", .int64, optional: true)]
        let bytes = Input.bytes(Array(text.utf8))
        let reference = try transcript(of: bytes, fields: fields, options: Self.parallel(2, chunk: 1 << 20, capacity: 4096, shape: .array))
        #expect(reference.rows.count == delivered)
        #expect(reference.error?.contains("cannot read past rejected record") == true, "\(reference)")
        let sequential = try transcript(of: bytes, fields: fields, options: ReaderOptions(shape: .array, rejectionPolicy: .collect))
        #expect(sequential.rows == reference.rows)
        #expect(sequential.statistics.recordsRead == reference.statistics.recordsRead)
        for workers in Self.workerCounts {
            for chunk in [1, 2, 3, 7, 64] {
                #expect(try transcript(of: bytes, fields: fields, options: Self.parallel(workers, chunk: chunk, capacity: 2, shape: .array)) == reference, "\(workers) workers, chunks of \(chunk)")
            }
        }
    }

    @Test func oversizedLinesAreRejectedAndSkipped() throws {
        let lines = ["{\"a\":1}", "{\"a\":\"" + String(repeating: "x", count: 300) + "\"}", "{\"a\":3}", "   {\"a\":\"" + String(repeating: "y", count: 90) + "\"}", "{\"a\":5}"]
        let reference = try Self.expectSameAsSequential(.bytes(Array(lines.joined(separator: "\n").utf8)), fields: [field("a", .json)], maximumRecordSize: 64, chunkSizes: [1, 7, 50, 100, 1000])
        #expect(reference.rows.count == 3)
        #expect(reference.rejections.allSatisfy { $0.contains("at most 64 bytes") })
    }

    @Test func oversizedArrayElementEndsTheRun() throws {
        let text = "[{\"a\":1},{\"a\":\"" + String(repeating: "x", count: 300) + "\"},{\"a\":3}]"
        let fields = [field("a", .json)]
        let reference = try transcript(of: .bytes(Array(text.utf8)), fields: fields, options: Self.parallel(2, chunk: 1, capacity: 3, maximumRecordSize: 100))
        #expect(reference.rows.count == 1)
        #expect(reference.error?.contains("expected at most 100 bytes, found a longer record") == true, "\(reference)")
        for chunk in [5, 64, 99, 4096] {
            #expect(try transcript(of: .bytes(Array(text.utf8)), fields: fields, options: Self.parallel(2, chunk: chunk, capacity: 3, maximumRecordSize: 100)) == reference)
        }
    }

    @Test func stopPolicyStopsAtTheSameRecord() throws {
        var generator = TweetGenerator(seed: 3)
        var lines = (1...40).map { generator.nextRecord(ordinal: $0) }
        lines[23] = lines[23].replacingOccurrences(of: "\"retweet_count\":", with: "\"retweet_count\":\"many\",\"x\":")
        let input = Input.bytes(Array(lines.joined(separator: "\n").utf8))
        let fields = ReferenceMapping.fields
        let reference = try transcript(of: input, fields: fields, options: ReaderOptions(rejectionPolicy: .stop))
        #expect(reference.rows.count == 23)
        for chunk in [1, 3000, 1 << 20] {
            #expect(try transcript(of: input, fields: fields, options: Self.parallel(3, chunk: chunk, capacity: 5, policy: .stop)) == reference)
        }
    }

    // MARK: - Typed door, progress, cancellation, budget

    @Test func typedReaderInParallelMatchesSequential() throws {
        var generator = TweetGenerator(seed: 13)
        let text = (1...200).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n")
        func models(_ options: ReaderOptions) throws -> [String] {
            let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: ReferenceMapping.richTyped(), options: options)
            var out: [String] = []
            while let batch = try reader.next() {
                for (model, location) in zip(batch.models, batch.locations) { out.append("\(location) \(model)") }
            }
            #expect(reader.statistics.recordsMapped == out.count)
            return out
        }
        let reference = try models(ReaderOptions(rejectionPolicy: .collect))
        #expect(reference.count == 200)
        #expect(try models(ReaderOptions(batchCapacity: 9, rejectionPolicy: .collect, workers: 3, chunkSize: 5000)) == reference)
    }

    @Test func progressReportsTheWholeRun() throws {
        var generator = TweetGenerator(seed: 2)
        let bytes = Array((1...500).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n").utf8)
        let url = try temporaryFile(bytes, name: "progress.ndjson")
        for workers in [1, 2] {
            let reader = try ColumnarReader(input: .file(url.path), schema: MappingSchema(fields: ReferenceMapping.fields), options: ReaderOptions(workers: workers, chunkSize: 20_000))
            let monitor = reader.progress
            #expect(monitor.snapshot.totalBytes == bytes.count)
            #expect(!monitor.snapshot.isFinished)
            while try reader.next() != nil {}
            let done = monitor.snapshot
            #expect(done.isFinished)
            #expect(done.bytesRead == bytes.count)
            #expect(done.fractionDone == 1)
            #expect(done.recordsRead == 500)
            #expect(done.recordsRejected == 0)
        }
    }

    /// A pipeline that reads on the caller's thread (one worker) owns its chunk reader: dropping the reader frees
    /// both, read to the end or not (the reader's budget callback once held the pipeline in a cycle).
    @Test(arguments: [true, false])
    func aPipelineReadingOnTheCallersThreadIsFreed(readsToTheEnd: Bool) throws {
        weak var weakPipeline: ParallelPipeline?
        do {
            let source = try BatchSourceOpener.open(.bytes(Array("{\"id\":1}\n{\"id\":2}\n".utf8)), plan: MappingSchema(fields: [field("id", .int64)]).plan,
                                                    options: ReaderOptions(batchCapacity: 1, workers: 1), keepsRecordText: false, progress: ProgressMonitor())
            let pipeline = try #require(source as? ParallelPipeline)
            weakPipeline = pipeline
            #expect(try pipeline.nextBatch() != nil)
            if readsToTheEnd { while try pipeline.nextBatch() != nil {} }
        }
        #expect(weakPipeline == nil)
    }

    @Test func cancellationStopsTheWorkersAndFreesThePipeline() throws {
        var generator = TweetGenerator(seed: 4)
        let bytes = Array((1...3000).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n").utf8)
        weak var weakPipeline: ParallelPipeline?
        do {
            let source = try BatchSourceOpener.open(.bytes(bytes), plan: MappingSchema(fields: ReferenceMapping.fields).plan,
                                                    options: ReaderOptions(workers: 2, chunkSize: 8192, memoryBudget: 1 << 20),
                                                    keepsRecordText: false, progress: ProgressMonitor())
            let pipeline = try #require(source as? ParallelPipeline)
            weakPipeline = pipeline
            #expect(try pipeline.nextBatch() != nil)
            pipeline.cancel()
            pipeline.waitUntilStopped()
            #expect(try pipeline.nextBatch() == nil)
        }
        // The threads let go of the pipeline as their last blocks return.
        for _ in 0..<100 where weakPipeline != nil { usleep(10_000) }
        #expect(weakPipeline == nil)
    }

    @Test(arguments: [1, 3])
    func asyncBatchesMatchTheSynchronousOnes(_ workers: Int) async throws {
        var generator = TweetGenerator(seed: 17)
        let bytes = Array((1...700).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n").utf8)
        let schema = try MappingSchema(fields: ReferenceMapping.fields)
        let options = ReaderOptions(batchCapacity: 50, rejectionPolicy: .collect, workers: workers, chunkSize: 30_000)
        let expected = try transcript(of: .bytes(bytes), fields: ReferenceMapping.fields, options: options).rows
        let reader = try ColumnarReader(input: .bytes(bytes), schema: schema, options: options)
        var rows: [String] = []
        for try await batch in reader.batches {
            for row in 0..<batch.count { rows.append(render(batch, row: row)) }
        }
        #expect(rows == expected)

        let typed = try TypedReader(input: .bytes(bytes), mapping: ReferenceMapping.typed(), options: options)
        var models = 0
        for try await batch in typed.batches { models += batch.models.count }
        #expect(models == 700)

        // One model at a time: the same models, in the same order, as the synchronous nextModel().
        let synchronous = try TypedReader(input: .bytes(bytes), mapping: ReferenceMapping.typed(), options: options)
        var expectedModels: [String] = []
        while let model = try synchronous.nextModel() { expectedModels.append("\(model)") }
        let oneByOne = try TypedReader(input: .bytes(bytes), mapping: ReferenceMapping.typed(), options: options)
        var seen: [String] = []
        for try await model in oneByOne.models { seen.append("\(model)") }
        #expect(seen.count == 700)
        #expect(seen == expectedModels)
    }

    /// Under the default policy the model sequence throws the first rejection, after the models before it.
    @Test func asyncModelsThrowTheFirstRejection() async throws {
        var generator = TweetGenerator(seed: 31)
        var lines = (1...300).map { generator.nextRecord(ordinal: $0) }
        lines[120] = "{\"id\": \"not a number\"}"
        let reader = try TypedReader(input: .bytes(Array(lines.joined(separator: "\n").utf8)), mapping: ReferenceMapping.typed(),
                                     options: ReaderOptions(batchCapacity: 16, workers: 2, chunkSize: 8192))
        var seen = 0
        var failure: SluiceError?
        do {
            for try await _ in reader.models { seen += 1 }
        } catch let error as SluiceError {
            failure = error
        }
        #expect(seen == 120)
        guard case .rejected(let rejection) = failure else {
            Issue.record("expected the rejection, got \(failure.map { "\($0)" } ?? "no error")")
            return
        }
        #expect(rejection.location.ordinal == 121)
        #expect(rejection.location.line == 121)
    }

    @Test func cancellingTheTaskStopsTheReader() async throws {
        var generator = TweetGenerator(seed: 19)
        let bytes = Array((1...20_000).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n").utf8)
        let reader = try ColumnarReader(input: .bytes(bytes), schema: MappingSchema(fields: ReferenceMapping.fields),
                                        options: ReaderOptions(batchCapacity: 100, workers: 2, chunkSize: 64 << 10))
        let batches = reader.batches
        let task = Task {
            var seen = 0
            for try await batch in batches {
                seen += batch.count
                if seen >= 500 { try await Task.sleep(for: .seconds(30)) }
            }
            return seen
        }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        // The sleep throws on cancellation; what matters is that the run ends now, long before the input does.
        let outcome = await task.result
        if case .success(let seen) = outcome { #expect(seen < 20_000) }
        #expect(reader.statistics.recordsRead < 20_000)
    }

    /// Whitespace between an array's elements, and a wrapper's members outside the records (which the filter blanks),
    /// are dropped as they stream past: the reader's buffer does not grow to hold a long run of them, and the line
    /// feeds in it still count for the lines of the records after it.
    @Test(arguments: [1, 2])
    func longRunsOutsideTheRecordsAreNotHeld(_ workers: Int) throws {
        let run = 4 << 20
        let blank = [UInt8](repeating: 0x20, count: run - 1) + [0x0A]
        let inputs: [(bytes: [UInt8], recordsPath: String?, rows: [String])] = [
            (Array("[{\"id\":1},".utf8) + blank + blank + Array("{\"id\":2}]".utf8), nil, ["1@1", "2@3"]),
            (Array("{\"meta\":\"".utf8) + [UInt8](repeating: 0x61, count: run) + Array("\",\n\"data\":[{\"id\":1},\n{\"id\":2}]}".utf8), "data", ["1@2", "2@3"]),
        ]
        for input in inputs {
            let schema = try MappingSchema(fields: [field("id", .int64)], options: MappingOptions(recordsPath: input.recordsPath))
            let source = try BatchSourceOpener.open(.bytes(input.bytes), plan: schema.plan,
                                                    options: ReaderOptions(shape: .array, workers: workers, chunkSize: 64 << 10),
                                                    keepsRecordText: false, progress: ProgressMonitor())
            let pipeline = try #require(source as? ParallelPipeline)
            var rows: [String] = []
            while let batch = try pipeline.nextBatch() {
                for row in 0..<batch.count { rows.append("\(batch.column(0).int64(row) ?? -1)@\(batch.location(ofRow: row).line)") }
            }
            #expect(rows == input.rows, "records path \(input.recordsPath ?? "none")")
            // Chunks of 64 KiB, each reserving twice its size, a few in flight: far below the run's 4 MiB.
            #expect(pipeline.peakBudgetInUse < run / 2, "records path \(input.recordsPath ?? "none"): \(pipeline.peakBudgetInUse) bytes held")
        }
    }

    /// Batches are sized by the mapping's width: a 2,000-field mapping over one-key records keeps each batch, and
    /// what the pipeline holds, within the budget (batches of 4,096 rows would take over 200 MB each), for NDJSON
    /// and arrays, and every record comes through.
    @Test(arguments: [1, 2])
    func wideMappingsKeepTheirBatchesWithinTheBudget(_ workers: Int) throws {
        let fieldCount = 2000
        let fields = (0..<fieldCount).map { field("f\($0)", .string, optional: true) }
        let keys = (0..<3000).map { ($0 * 7919) % fieldCount }
        let records = keys.map { "{\"f\($0)\":\"v\($0)\"}" }
        let budget = 16 << 20
        for (shape, text) in [(InputShape.ndjson, records.joined(separator: "\n")), (.array, "[" + records.joined(separator: ",") + "]")] {
            let source = try BatchSourceOpener.open(.bytes(Array(text.utf8)), plan: MappingSchema(fields: fields).plan,
                                                    options: ReaderOptions(shape: shape, workers: workers, memoryBudget: budget),
                                                    keepsRecordText: false, progress: ProgressMonitor())
            let pipeline = try #require(source as? ParallelPipeline)
            var read: [Int] = []
            while let batch = try pipeline.nextBatch() {
                let bytes = ColumnarBatch.bytes(of: fields, capacity: batch.capacity, keepsRecordText: false)
                #expect(bytes <= budget / 8, "\(shape): a batch of \(batch.capacity) rows takes about \(bytes) bytes")
                for row in 0..<batch.count {
                    let present = (0..<fieldCount).filter { batch.column($0).string(row) != nil }
                    read.append(present.count == 1 && batch.column(present[0]).string(row) == "v\(present[0])" ? present[0] : -1)
                }
            }
            #expect(read == keys, "\(shape)")
            #expect(pipeline.peakBudgetInUse <= budget, "\(shape): \(pipeline.peakBudgetInUse) bytes held")
        }
    }

    /// A consumer slower than the workers holds the pipeline to its budget: the reader waits.
    @Test func aSlowConsumerKeepsTheBudget() throws {
        var generator = TweetGenerator(seed: 6)
        let bytes = Array((1...4000).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n").utf8)
        let budget = 1 << 20
        let source = try BatchSourceOpener.open(.bytes(bytes), plan: MappingSchema(fields: ReferenceMapping.fields).plan,
                                                options: ReaderOptions(batchCapacity: 100, workers: 2, chunkSize: 64 << 10, memoryBudget: budget),
                                                keepsRecordText: false, progress: ProgressMonitor())
        let pipeline = try #require(source as? ParallelPipeline)
        var records = 0
        while let batch = try pipeline.nextBatch() {
            records += batch.count
            usleep(200)
        }
        #expect(records == 4000)
        #expect(pipeline.peakBudgetInUse <= budget)
        #expect(pipeline.peakBudgetInUse > 0)
    }

    /// A record larger than the whole budget still passes (alone), and the reader never waits behind its own chunk.
    @Test func aRecordLargerThanTheBudgetDoesNotStallTheReader() throws {
        var generator = TweetGenerator(seed: 29)
        var lines = (1...300).map { generator.nextRecord(ordinal: $0) }
        // Two in a row: the second's start is carried past the first's end, more than the budget holds.
        lines[100] = "{\"id\": 1, \"blob\": \"" + String(repeating: "x", count: 3 << 20) + "\"}"
        lines[101] = "{\"id\": 2, \"blob\": \"" + String(repeating: "y", count: 5 << 20) + "\"}"
        let bytes = Array(lines.joined(separator: "\n").utf8)
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<RunTranscript?>(nil)
        let thread = Thread {
            let result = try? transcript(of: .bytes(bytes), fields: [field("id", .int64)],
                                         options: ReaderOptions(rejectionPolicy: .collect, workers: 2, chunkSize: 64 << 10, memoryBudget: 1 << 20))
            outcome.withLock { $0 = result }
            done.signal()
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 60) == .success, "the reader stalled")
        let result = outcome.withLock { $0 }
        #expect(result?.rows.count == 300)
    }

    /// An input smaller than four chunks per worker is cut into four chunks per worker, of 64 KiB at least.
    @Test func smallInputsAreSharedAmongTheWorkers() throws {
        let options = ReaderOptions(workers: 2, chunkSize: 1 << 20)
        #expect(ParallelPipeline.fittedChunkSize(options, inputBytes: 100 << 20) == 1 << 20)
        #expect(ParallelPipeline.fittedChunkSize(options, inputBytes: 8 << 20) == 1 << 20)
        #expect(ParallelPipeline.fittedChunkSize(options, inputBytes: 2 << 20) == 256 << 10)
        #expect(ParallelPipeline.fittedChunkSize(options, inputBytes: (2 << 20) + 1) == (256 << 10) + 1)
        #expect(ParallelPipeline.fittedChunkSize(options, inputBytes: 300 << 10) == 64 << 10)
        #expect(ParallelPipeline.fittedChunkSize(options, inputBytes: 0) == 64 << 10)
        #expect(ParallelPipeline.fittedChunkSize(ReaderOptions(workers: 2, chunkSize: 1000), inputBytes: 2 << 20) == 1000)

        var generator = TweetGenerator(seed: 8)
        let bytes = Array((1...500).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n").utf8)
        #expect(bytes.count > 600 << 10 && bytes.count < 1 << 20)
        let plan = try MappingSchema(fields: ReferenceMapping.fields).plan
        for input in [Input.bytes(bytes), .file(try temporaryFile(bytes, name: "small.ndjson").path)] {
            let source = try BatchSourceOpener.open(input, plan: plan, options: ReaderOptions(workers: 2), keepsRecordText: false, progress: ProgressMonitor())
            let pipeline = try #require(source as? ParallelPipeline)
            var records = 0
            while let batch = try pipeline.nextBatch() { records += batch.count }
            #expect(records == 500)
            #expect(pipeline.chunksRead >= 8)
        }
        // A document of several record types, read in one pass, is shared out the same way.
        let document = Array(("{\"first\": [" + String(decoding: bytes, as: UTF8.self).split(separator: "\n").joined(separator: ",") + "], \"second\": []}").utf8)
        let plans = try ["first", "second"].map { try MappingSchema(fields: ReferenceMapping.fields, options: MappingOptions(recordsPath: $0)).plan }
        let several = try BatchSourceOpener.openSeveral(.bytes(document), plans: plans, options: ReaderOptions(workers: 2), progress: ProgressMonitor())
        var severalRecords = 0
        while let batch = try several.nextBatch() { severalRecords += batch.count }
        #expect(severalRecords == 500)
        #expect(several.chunksRead >= 8)
        // Compressed input has no size to share out before it is read: its chunks keep their size.
        let gz = try temporaryFile(Compressor.gzip(bytes), name: "small.ndjson.gz")
        let compressed = try #require(try BatchSourceOpener.open(.file(gz.path), plan: plan, options: ReaderOptions(workers: 2), keepsRecordText: false, progress: ProgressMonitor()) as? ParallelPipeline)
        while try compressed.nextBatch() != nil {}
        #expect(compressed.chunksRead == 1)
    }

    /// Blank lines are no records: under a mapping so wide that a chunk holds a few records, a run of them between
    /// two records does not become a chunk of every few (each costing a batch's worth of work for every column).
    @Test(arguments: [1, 2])
    func blankLinesDoNotCountAgainstAChunksRecords(_ workers: Int) throws {
        let fields = [field("id", .int64)] + (0..<2000).map { field("f\($0)", .string, optional: true) }
        let bytes = Array(("{\"id\":1}\n" + String(repeating: "\n", count: 20_000) + "  \t\n{\"id\":2}\n{\"id\":3}").utf8)
        var options = ReaderOptions(workers: workers, chunkSize: 1 << 16)
        options.memoryBudget = 1 << 20
        let plan = try MappingSchema(fields: fields).plan
        let pipeline = try #require(try BatchSourceOpener.open(.bytes(bytes), plan: plan, options: options, keepsRecordText: false, progress: ProgressMonitor()) as? ParallelPipeline)
        var ordinals: [Int] = []
        var lines: [Int] = []
        while let batch = try pipeline.nextBatch() {
            ordinals += (0..<batch.count).map { batch.ordinals[$0] }
            lines += (0..<batch.count).map { batch.lines[$0] }
        }
        #expect(ordinals == [1, 2, 3] && lines == [1, 20_003, 20_004])
        #expect(pipeline.chunksRead <= 4, "\(pipeline.chunksRead) chunks")
    }

    /// More workers than Dispatch's pool has threads (about 255 on Linux): each worker and the reader run on a
    /// thread of their own, so none waits for a pool thread that never comes. Waited for with a time limit, so that
    /// a regression fails instead of hanging the suite.
    @Test func moreWorkersThanDispatchHasThreads() throws {
        let schema = try MappingSchema(fields: [field("a", .int64)])
        let text = (1...600).map { "{\"a\":\($0)}" }.joined(separator: "\n")
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<(rows: Int, error: String?)>((0, nil))
        let thread = Thread {
            do {
                let reader = try ColumnarReader(input: .bytes(Array(text.utf8)), schema: schema, options: ReaderOptions(workers: 300, chunkSize: 8))
                while let batch = try reader.next() { outcome.withLock { $0.rows += batch.count } }
            } catch {
                outcome.withLock { $0.error = "\(error)" }
            }
            done.signal()
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 60) == .success, "300 workers did not finish within a minute")
        #expect(outcome.withLock { $0.rows } == 600)
        #expect(outcome.withLock { $0.error } == nil)
    }

    @Test func invalidParallelOptionsAreReported() throws {
        let schema = try MappingSchema(fields: [field("a", .int64)])
        #expect(throws: SluiceError.self) { try ColumnarReader(input: .bytes([]), schema: schema, options: ReaderOptions(workers: 0)) }
        #expect(throws: SluiceError.self) { try ColumnarReader(input: .bytes([]), schema: schema, options: ReaderOptions(memoryBudget: 1000)) }
        let url = try temporaryFile(Array("[{\"a\":1}]".utf8), name: "array.json")
        #expect(throws: SluiceError.self) { try ColumnarReader(input: .file(url.path), schema: schema, options: ReaderOptions(shape: .array, byteRange: 0..<3)) }
        let gz = try temporaryFile(Compressor.gzip(Array("{\"a\":1}\n".utf8)), name: "one.gz")
        #expect(throws: SluiceError.self) { try ColumnarReader(input: .file(gz.path), schema: schema, options: ReaderOptions(byteRange: 0..<3)) }
    }
}

/// A top-level array whose elements' strings hold brackets, quotes, commas and escapes in every arrangement.
func trickyArray(seed: UInt64, elements count: Int) -> String {
    var random = SplitMix(seed: seed)
    let pieces = ["{", "}", "[", "]", "\\\"", "\\\\", ",", ":", "x", "é", "東", " ", "\\n", "\\u005B"]
    func string() -> String {
        "\"" + (0..<random.below(20)).map { _ in pieces[random.below(pieces.count)] }.joined() + "\""
    }
    func value(_ depth: Int) -> String {
        switch depth > 3 ? random.below(3) : random.below(6) {
        case 0: return string()
        case 1: return String(random.below(100_000))
        case 2: return ["true", "false", "null"][random.below(3)]
        case 3: return "[" + (0..<random.below(4)).map { _ in value(depth + 1) }.joined(separator: ",") + "]"
        default: return "{" + (0..<random.below(5)).map { _ in string() + ":" + value(depth + 1) }.joined(separator: ", ") + "}"
        }
    }
    let elements = (0..<count).map { _ in "{\"id\":\(random.below(1000)),\"v\":" + value(0) + "}" }
    return "[" + elements.joined(separator: random.below(2) == 0 ? "," : " ,\n ") + "]"
}

/// A small seeded generator for split points.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
