import Foundation
import Testing
import SluiceFixtures
@testable import Sluice

/// An array file whose elements are written one per line is cut at line feeds, and the workers check each line;
/// from the first line that is not one element and its comma, the array is read exactly. Whatever the lines hold,
/// the records, rejections, locations, raw text and counts must be those of reading every byte with the framer.
@Suite struct ArrayLinesTests {
    struct Run: Equatable {
        var transcript: RunTranscript
        var unmappedKeys: [String: Int]
    }

    /// Maps `text` through the pipeline, by lines where it can or exactly throughout, and says how many chunks of
    /// lines were delivered.
    static func run(_ text: String, fields: [FieldSpec] = ReferenceMapping.fields, byLines: Bool, workers: Int, chunkSize: Int,
                    policy: RejectionPolicy = .collect, maximumRecordSize: Int = 64 << 20, recordsPath: String? = nil) throws -> (run: Run, lineChunks: Int) {
        var options = ReaderOptions(shape: recordsPath == nil ? .array : .automatic, maximumRecordSize: maximumRecordSize, rejectionPolicy: policy,
                                    workers: workers, chunkSize: chunkSize)
        options.tokenizer = .simdjson
        options.readsArrayLines = byLines
        let schema = try MappingSchema(fields: fields, options: MappingOptions(recordsPath: recordsPath))
        let source = try BatchSourceOpener.open(.bytes(Array(text.utf8)), plan: schema.plan, options: options, keepsRecordText: false, progress: ProgressMonitor())
        let mapped = transcript(batchCapacity: options.batchCapacity, next: source.nextBatch, statistics: { source.statistics })
        let lineChunks = (source as? ParallelPipeline)?.arrayLineChunksDelivered ?? 0
        return (Run(transcript: mapped, unmappedKeys: source.unmappedKeys), lineChunks)
    }

    /// Expects reading by lines to give what reading exactly gives, at several worker counts and chunk sizes,
    /// and returns how many chunks of lines the runs delivered in all.
    @discardableResult
    static func expectSameAsExact(_ text: String, fields: [FieldSpec] = ReferenceMapping.fields, policy: RejectionPolicy = .collect,
                                  maximumRecordSize: Int = 64 << 20, recordsPath: String? = nil, _ comment: String,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        var lineChunks = 0
        for (workers, chunkSize) in [(2, 300), (2, 4096), (3, 1 << 16)] {
            let exact = try run(text, fields: fields, byLines: false, workers: workers, chunkSize: chunkSize, policy: policy,
                                maximumRecordSize: maximumRecordSize, recordsPath: recordsPath)
            let byLines = try run(text, fields: fields, byLines: true, workers: workers, chunkSize: chunkSize, policy: policy,
                                  maximumRecordSize: maximumRecordSize, recordsPath: recordsPath)
            #expect(exact.lineChunks == 0, sourceLocation: sourceLocation)
            #expect(byLines.run == exact.run, "\(comment), \(workers) workers, chunks of \(chunkSize)\nexact:\n\(exact.run.transcript)\nby lines:\n\(byLines.run.transcript)",
                    sourceLocation: sourceLocation)
            lineChunks += byLines.lineChunks
        }
        return lineChunks
    }

    static func tweets(_ count: Int, seed: UInt64 = 31) -> [String] {
        var generator = TweetGenerator(seed: seed)
        return (1...count).map { generator.nextRecord(ordinal: $0) }
    }

    static func array(_ elements: [String], opening: String = "[\n", closing: String = "\n]\n") -> String {
        opening + elements.joined(separator: ",\n") + closing
    }

    @Test func elementsOnePerLineAreReadByLines() throws {
        let elements = Self.tweets(400)
        let lineChunks = try Self.expectSameAsExact(Self.array(elements), "one element per line")
        #expect(lineChunks > 0)
        let reference = try Self.run(Self.array(elements), byLines: false, workers: 1, chunkSize: 1 << 20).run
        #expect(try Self.run(Self.array(elements), byLines: true, workers: 2, chunkSize: 4096).run == reference)
        #expect(reference.transcript.rows.count == 400)
    }

    /// The brackets share a line with the first and the last element; lines end in CR LF, some are blank, some
    /// indented.
    @Test func bracketsOnElementLinesCarriageReturnsAndBlankLines() throws {
        let elements = Self.tweets(300)
        #expect(try Self.expectSameAsExact(Self.array(elements, opening: "[", closing: "]"), "brackets on element lines") > 0)
        let spaced = elements.enumerated().map { $0.offset % 7 == 0 ? "\r\n   " + $0.element + "  \t" : $0.element }
        #expect(try Self.expectSameAsExact("  [\r\n" + spaced.joined(separator: " ,\r\n") + "\r\n]\r\n", "CR LF, blank lines, indentation") > 0)
    }

    /// Lines that are not one element and its comma, in the middle: the array is read exactly from there.
    @Test(arguments: [
        "pretty-printed element", "two elements on a line", "element across lines", "nested values on lines of their own",
        "comma on the next line", "a comment-like line",
    ])
    func linesThatAreNotOneElementHandTheRestToTheFramer(_ damage: String) throws {
        var elements = Self.tweets(300)
        let middle = 150
        switch damage {
        case "pretty-printed element": elements[middle] = "{\n  \"id\": 7,\n  \"text\": \"x\"\n}"
        case "two elements on a line": elements[middle] += ", " + elements.remove(at: middle + 1)
        case "element across lines": elements[middle] = elements[middle].replacingOccurrences(of: ",\"user\":", with: ",\n\"user\":")
        case "nested values on lines of their own": elements[middle] = "{\"id\": 8, \"list\": [\n1,\n2,\n{\"a\": 3},\n\"s\"\n]}"
        case "comma on the next line": elements[middle] += "\n"
        default: elements[middle] = "// not JSON"
        }
        #expect(try Self.expectSameAsExact(Self.array(elements), damage) > 0)
    }

    /// How arrays end badly, and damage the framer or yajl must judge: the same records before it, the same error.
    @Test(arguments: [
        "cut after a comma", "cut inside an element", "a trailing comma", "garbage after the array", "a second array",
        "a malformed mapped value", "an unterminated string", "ill-formed UTF-8", "no closing bracket",
    ])
    func brokenArraysEndAsTheyDoWhenReadExactly(_ damage: String) throws {
        var elements = Self.tweets(200)
        var text = Self.array(elements)
        switch damage {
        case "cut after a comma": text = "[\n" + elements.joined(separator: ",\n") + ",\n"
        case "cut inside an element": text = String(text.prefix(text.utf8.count * 2 / 3))
        case "a trailing comma": text = "[\n" + elements.joined(separator: ",\n") + ",\n]\n"
        case "garbage after the array": text += "x\n"
        case "a second array": text += "[1]\n"
        case "a malformed mapped value":
            elements[120] = elements[120].replacingOccurrences(of: "\"retweet_count\":", with: "\"retweet_count\":-,\"x\":")
            text = Self.array(elements)
        case "an unterminated string":
            elements[120] = "{\"id\": 1, \"text\": \"open"
            text = Self.array(elements)
        case "ill-formed UTF-8":
            elements[120] = "{\"id\": 1, \"text\": \"\u{FFFD}\"}"
            text = Self.array(elements).replacingOccurrences(of: "\u{FFFD}", with: "\u{C0}")
        default: text = "[\n" + elements.joined(separator: ",\n") + "\n"
        }
        try Self.expectSameAsExact(text, damage)
    }

    @Test func elementsThatAreNotRecordsAndRejectedRecords() throws {
        var elements = Self.tweets(200)
        elements[20] = "42"
        elements[40] = "\"a string\""
        elements[60] = "true "
        elements[80] = "null"
        elements[100] = elements[100].replacingOccurrences(of: "\"retweet_count\":", with: "\"retweet_count\":\"many\",\"x\":")
        #expect(try Self.expectSameAsExact(Self.array(elements), "scalars and rejections") > 0)
        try Self.expectSameAsExact(Self.array(elements), policy: .stop, "stopping at the first rejection")
    }

    /// An element over the record size limit ends the run as it does when read exactly, whether or not its line
    /// fits in a chunk.
    @Test func anOversizedElementEndsTheRunAsWhenReadExactly() throws {
        var elements = Self.tweets(200)
        elements[150] = "{\"id\": 1, \"text\": \"" + String(repeating: "x", count: 6000) + "\"}"
        try Self.expectSameAsExact(Self.array(elements), maximumRecordSize: 5000, "oversized element")
    }

    @Test(arguments: ["[\n", "[", "[\n\n"])
    func wrapperDocuments(_ opening: String) throws {
        let elements = Self.tweets(300)
        let text = "{\"meta\": {\"n\": [1, 2]},\n \"data\": " + Self.array(elements, opening: opening, closing: "\n],\n\"more\": {\"a\": [1]}}\n")
        #expect(try Self.expectSameAsExact(text, recordsPath: "data", "wrapper") > 0)
        try Self.expectSameAsExact(text + "x", recordsPath: "data", "wrapper with garbage after it")
    }

    /// Keys no field reads are counted once per record, although the chunks mapped past the end of the lines are
    /// dropped and read again.
    @Test func unmappedKeysCountEachRecordOnce() throws {
        var elements = Self.tweets(300)
        elements[100] = "{\n\"id\": 9}"
        let exact = try Self.run(Self.array(elements), fields: [field("id", .int64)], byLines: false, workers: 2, chunkSize: 4096)
        let byLines = try Self.run(Self.array(elements), fields: [field("id", .int64)], byLines: true, workers: 2, chunkSize: 4096)
        #expect(byLines.lineChunks > 0)
        #expect(!byLines.run.unmappedKeys.isEmpty)
        #expect(byLines.run.unmappedKeys == exact.run.unmappedKeys)
    }

    /// A file is opened again where its lines stop: the records and counts are those of reading it exactly, and
    /// progress counts each byte once, although the bytes read ahead are read again.
    @Test func aFileIsReadAgainFromTheLineWhereItsLinesStop() throws {
        var elements = Self.tweets(500)
        elements[250] = "{\n\"id\": 9}"
        let text = Self.array(elements)
        let url = try temporaryFile(Array(text.utf8), name: "lines-then-exact.json")
        var runs: [RunTranscript] = []
        for byLines in [false, true] {
            var options = ReaderOptions(shape: .array, rejectionPolicy: .collect, workers: 2, chunkSize: 8192)
            options.tokenizer = .simdjson
            options.readsArrayLines = byLines
            let reader = try ColumnarReader(input: .file(url.path), schema: MappingSchema(fields: ReferenceMapping.fields), options: options)
            var run = RunTranscript()
            while let batch = try reader.next() {
                for row in 0..<batch.count { run.rows.append(render(batch, row: row)) }
            }
            run.statistics = reader.statistics
            runs.append(run)
            #expect(reader.progress.snapshot.bytesRead == text.utf8.count)
        }
        #expect(runs[1] == runs[0])
        #expect(runs[1].statistics.bytesRead == text.utf8.count)
    }

    /// A file cut or extended while it is read by lines ends as it does when read exactly: the same records, then
    /// the same error, at the last byte that stayed the file's.
    @Test(arguments: [true, false])
    func aFileThatChangesSizeEndsAsWhenReadExactly(cut: Bool) throws {
        let elements = Self.tweets(6000)
        let bytes = Array(Self.array(elements).utf8)
        var outcomes: [String] = []
        for byLines in [false, true] {
            let url = try temporaryFile(bytes, name: "changing-lines.json")
            var options = ReaderOptions(shape: .array, readBufferSize: 64 << 10, batchCapacity: 100, rejectionPolicy: .collect, workers: 2,
                                        chunkSize: 64 << 10, memoryBudget: 1 << 20)
            options.tokenizer = .simdjson
            options.readsArrayLines = byLines
            let reader = try ColumnarReader(input: .file(url.path), schema: MappingSchema(fields: ReferenceMapping.fields), options: options)
            var records = try reader.next()?.count ?? 0
            try changeSize(of: url, holding: bytes.count, cut: cut)
            var failure = "no error"
            do {
                while let batch = try reader.next() { records += batch.count }
            } catch {
                failure = error.description
            }
            #expect(failure.contains("the file changed size while being read"), "\(failure)")
            outcomes.append("\(records) records, " + failure.replacingOccurrences(of: url.path, with: "FILE"))
        }
        #expect(outcomes[1] == outcomes[0])
    }

    /// Cancelled while it goes on from lines to exact reading, or just after, the run ends and frees its threads.
    @Test func cancellingAroundTheSwitchEndsTheRun() throws {
        var elements = Self.tweets(300)
        elements[30] = "{\n\"id\": 9}"
        var options = ReaderOptions(shape: .array, batchCapacity: 1, rejectionPolicy: .collect, workers: 2, chunkSize: 4096)
        options.tokenizer = .simdjson
        for batchesBeforeCancel in [1, 3, 5, 40] {
            weak var weakPipeline: ParallelPipeline?
            do {
                let source = try BatchSourceOpener.open(.bytes(Array(Self.array(elements).utf8)), plan: MappingSchema(fields: ReferenceMapping.fields).plan,
                                                        options: options, keepsRecordText: false, progress: ProgressMonitor())
                let pipeline = try #require(source as? ParallelPipeline)
                weakPipeline = pipeline
                for _ in 0..<batchesBeforeCancel { _ = try pipeline.nextBatch() }
                // The first chunk holds the first element only, framed exactly; lines follow.
                #expect((pipeline.arrayLineChunksDelivered > 0) == (batchesBeforeCancel > 1))
                pipeline.cancel()
                pipeline.waitUntilStopped()
                #expect(try pipeline.nextBatch() == nil)
            }
            for _ in 0..<100 where weakPipeline != nil { usleep(10_000) }
            #expect(weakPipeline == nil, "cancelled after \(batchesBeforeCancel) batches")
        }
    }

    /// Brackets that do not pair by kind inside a value no field reads: simdjson passes over such a value by
    /// counting its brackets, and so does the framer for simdjson's workers, so the record is mapped however the
    /// array is read, with any worker count; yajl, which reads every value, ends the run there
    /// (docs/tokenizers.md).
    @Test func bracketsThatDoNotPairInAnUnreadValueAreCountedAsSimdjsonCountsThem() throws {
        var elements = Self.tweets(100)
        elements[60] = "{\"id\": 5, \"junk\": {\"b\": [}]}"
        let text = Self.array(elements)
        let byLines = try Self.run(text, byLines: true, workers: 2, chunkSize: 4096)
        #expect(byLines.lineChunks > 0)
        #expect(byLines.run.transcript.error == nil)
        #expect(byLines.run.transcript.rows.count + byLines.run.transcript.rejections.count == 100)
        try Self.expectSameAsExact(text, "brackets of the wrong kind in an unread value")
        #expect(try Self.run(text, byLines: false, workers: 1, chunkSize: 1 << 20).run == byLines.run)
        var options = ReaderOptions(shape: .array, rejectionPolicy: .collect, workers: 2, chunkSize: 4096)
        options.tokenizer = .yajl
        let yajl = try transcript(of: .bytes(Array(text.utf8)), fields: ReferenceMapping.fields, options: options)
        #expect(yajl.error?.contains("record 61") == true)
    }
}
