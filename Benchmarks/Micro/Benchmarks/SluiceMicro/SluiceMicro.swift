// Each benchmark maps the same small in-memory input over and over, so that its allocation count and peak memory
// are nearly deterministic (a few allocations of lazy runtime set-up come and go, and the parallel ones depend on
// how many chunks were in flight); the committed thresholds (Thresholds/) hold them to 5 % (10 % for the parallel
// framing) and peak memory to 15 %. Wall time varies by ±20 % on shared machines, and by 2× between a busy and an
// idle minute, so its thresholds (400 % for time, 300 % for throughput) only catch a collapse.
import Benchmark
import Foundation
import Sluice
import SluiceBench
import SluiceFixtures

/// `count` one-field records, `{"v":<value>}`, one per line.
func records(_ count: Int, _ value: (Int) -> String) -> [UInt8] {
    Array((0..<count).map { "{\"v\":\(value($0))}" }.joined(separator: "\n").utf8)
}

/// Tweets from the fixture generator, about `bytes` of them.
func tweets(bytes: Int, asArray: Bool = false) -> [UInt8] {
    var generator = TweetGenerator(seed: 42)
    var lines: [String] = []
    _ = generator.writeNDJSON(bytes: bytes) { lines.append(String($0.dropLast())) }
    return Array((asArray ? "[\n" + lines.joined(separator: ",\n") + "\n]" : lines.joined(separator: "\n")).utf8)
}

/// Maps `bytes` with `fields` to the end; returns the records mapped.
func mapAll(_ bytes: [UInt8], _ fields: [FieldSpec], options: ReaderOptions = ReaderOptions()) throws -> Int {
    let reader = try ColumnarReader(input: .bytes(bytes), schema: MappingSchema(fields: fields), options: options)
    var count = 0
    while let batch = try reader.next() { count += batch.count }
    return count
}

let recordCount = 10_000

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        scalingFactor: .one,
        maxDuration: .seconds(2),
        // Malloc counts and peak memory are what the committed thresholds hold to; time only catches a collapse.
        thresholds: [
            .mallocCountTotal: .init(relative: [.p90: 5]),
            .peakMemoryResident: .init(relative: [.p90: 15]),
            .wallClock: .init(relative: [.p90: 400]),
            .throughput: .init(relative: [.p90: 300]),
        ]
    )

    let tweetBytes = tweets(bytes: 1 << 20)
    let tweetArray = tweets(bytes: 1 << 20, asArray: true)

    Benchmark("Tokenizer.yajlCeiling") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try TokenizerBaseline.tokenize(bytes: tweetBytes)) }
    }
    Benchmark("Mapping.referenceColumnar") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try mapAll(tweetBytes, ReferenceMapping.fields)) }
    }
    // Key matching: records with 40 keys, 20 of them mapped, in a stable order (the key-order cache's case) and
    // rotated per record (the hash table's case).
    let wide = (0..<2000).map { record in
        "{" + (0..<40).map { "\"key\(($0 + record * 0) % 40)_\($0 % 2 == 0 ? "mapped" : "other")\":\($0)" }.joined(separator: ",") + "}"
    }.joined(separator: "\n")
    let rotated = (0..<2000).map { record in
        "{" + (0..<40).map { "\"key\(($0 + record) % 40)_\((($0 + record) % 40) % 2 == 0 ? "mapped" : "other")\":\($0)" }.joined(separator: ",") + "}"
    }.joined(separator: "\n")
    let wideFields = (0..<40).filter { $0 % 2 == 0 }.map { FieldSpec(name: "key\($0)_mapped", type: .int64) }
    Benchmark("Trie.stableKeyOrder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try mapAll(Array(wide.utf8), wideFields)) }
    }
    Benchmark("Trie.changingKeyOrder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try mapAll(Array(rotated.utf8), wideFields)) }
    }

    // One converter each, over `recordCount` one-field records; `Conversion.baselineJSON` is the same records kept
    // as raw JSON text, the cost every converter adds to.
    let conversions: [(String, FieldSpec, [UInt8])] = [
        ("Conversion.baselineJSON", FieldSpec(name: "v", type: .json), records(recordCount) { "\(190_957_570_511_478_800 + $0)" }),
        ("Conversion.int64", FieldSpec(name: "v", type: .int64), records(recordCount) { "\(190_957_570_511_478_800 + $0)" }),
        ("Conversion.int64FromString", FieldSpec(name: "v", type: .int64), records(recordCount) { "\"\(-7_000_000 - $0)\"" }),
        ("Conversion.double", FieldSpec(name: "v", type: .double), records(recordCount) { "\(Double($0) * 1.000001 + 0.123456789)" }),
        ("Conversion.dateTwitter", FieldSpec(name: "v", type: .date, dateFormats: [.twitter]), records(recordCount) { "\"Sun Aug \(10 + $0 % 20) 00:29:15 +0000 2014\"" }),
        ("Conversion.dateISO8601", FieldSpec(name: "v", type: .date), records(recordCount) { "\"2014-08-\(10 + $0 % 20)T00:29:15.123+02:00\"" }),
        ("Conversion.datePattern", FieldSpec(name: "v", type: .date, dateFormats: [.pattern("dd/MM/yyyy HH:mm")]), records(recordCount) { "\"\(10 + $0 % 20)/08/2014 00:29\"" }),
        ("Conversion.dateEpochMilliseconds", FieldSpec(name: "v", type: .date, epochUnit: .milliseconds), records(recordCount) { "\(1_409_444_955_123 + $0)" }),
        ("Conversion.base64", FieldSpec(name: "v", type: .bytes), records(recordCount) { _ in "\"aGVsbG8gd29ybGQsIHRoaXMgaXMgYmFzZTY0IHRleHQ=\"" }),
        ("Conversion.url", FieldSpec(name: "v", type: .url), records(recordCount) { "\"https://example.com/a/\($0)?q=1#f\"" }),
    ]
    for (name, field, input) in conversions {
        Benchmark(name) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try mapAll(input, [field])) }
        }
    }

    // Batch appends: many int64 columns per record, small batches (many batch turnovers).
    let manyColumns = (0..<recordCount).map { record in "{" + (0..<16).map { "\"c\($0)\":\(record + $0)" }.joined(separator: ",") + "}" }.joined(separator: "\n")
    let manyFields = (0..<16).map { FieldSpec(name: "c\($0)", type: .int64) }
    Benchmark("Batch.append16Columns") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try mapAll(Array(manyColumns.utf8), manyFields, options: ReaderOptions(batchCapacity: 256))) }
    }

    // Framing: the parallel pipeline's chunking of NDJSON and of a top-level array (the structural scan).
    let parallel = Benchmark.Configuration(thresholds: [
        .mallocCountTotal: .init(relative: [.p90: 10]), .peakMemoryResident: .init(relative: [.p90: 15]),
        .wallClock: .init(relative: [.p90: 400]), .throughput: .init(relative: [.p90: 300]),
    ])
    Benchmark("Framing.ndjsonTwoWorkers", configuration: parallel) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try mapAll(tweetBytes, ReferenceMapping.fields, options: ReaderOptions(workers: 2, chunkSize: 64 << 10))) }
    }
    Benchmark("Framing.arrayTwoWorkers", configuration: parallel) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try mapAll(tweetArray, ReferenceMapping.fields, options: ReaderOptions(workers: 2, chunkSize: 64 << 10))) }
    }
}
