// Single-thread throughput of the engine next to its ceiling, in one run, interleaved:
//   - yajl with every callback empty and numbers as raw text (the ceiling for this design),
//   - Sluice columnar (the dynamic schema), 
//   - Sluice typed (models via WritableKeyPath),
//   - Sluice columnar with dates, enums, numeric strings, validators and the hashtags as json (richFields),
//   - Sluice typed with dates, an enum, validators and an array of nested hashtag models (richTyped),
// each over the same generated file with the reference mapping (ReferenceMapping).
//
// Usage: EngineThroughput [--megabytes N] [--repetitions N] [--file PATH] [--keep] [--only yajl|columnar|rich|typed|richtyped]
import Foundation
import Sluice
import SluiceBench
import SluiceFixtures

struct Options {
    var megabytes = 200
    var repetitions = 5
    var file: String?
    var keep = false
    /// Run one contender only (for profilers): yajl, columnar or typed.
    var only: String?

    init(arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--megabytes": megabytes = iterator.next().flatMap(Int.init) ?? megabytes
            case "--repetitions": repetitions = iterator.next().flatMap(Int.init) ?? repetitions
            case "--file": file = iterator.next()
            case "--keep": keep = true
            case "--only": only = iterator.next()
            default:
                FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
                exit(2)
            }
        }
    }
}


func run() throws {
    let options = Options(arguments: CommandLine.arguments)
    let path = options.file ?? NSTemporaryDirectory() + "sluice-throughput-\(options.megabytes)MB.ndjson"
    var records = 0
    if !FileManager.default.fileExists(atPath: path) {
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileWriteUnknown) }
        var generator = TweetGenerator(seed: 42)
        var pending = ""
        records = try generator.writeNDJSON(bytes: options.megabytes << 20) { line in
            pending += line
            if pending.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(pending.utf8))
                pending = ""
            }
        }
        try handle.write(contentsOf: Data(pending.utf8))
        try handle.close()
    }
    let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    let schema = try MappingSchema(fields: ReferenceMapping.fields)
    let richSchema = try MappingSchema(fields: ReferenceMapping.richFields)
    let mapping = try ReferenceMapping.typed()
    let richMapping = try ReferenceMapping.richTyped()

    // One reading loop per door; each returns a checksum (the followers column) and the records it mapped, and
    // fails if anything was rejected.
    func columnar(_ schema: MappingSchema) throws -> (sum: Int64, records: Int) {
        let reader = try ColumnarReader(input: .file(path), schema: schema, options: ReaderOptions(shape: .ndjson))
        var sum: Int64 = 0
        while let batch = try reader.next() {
            guard let followers = batch.column(named: "followers") else { break }
            for row in 0..<batch.count { sum &+= followers.int64(row) ?? 0 }
        }
        return try checked(reader.statistics, sum)
    }
    func typed<Model>(_ mapping: Mapping<Model>, _ followers: KeyPath<Model, Int64>) throws -> (sum: Int64, records: Int) {
        let reader = try TypedReader(input: .file(path), mapping: mapping, options: ReaderOptions(shape: .ndjson))
        var sum: Int64 = 0
        while let batch = try reader.next() {
            for model in batch.models { sum &+= model[keyPath: followers] }
        }
        return try checked(reader.statistics, sum)
    }
    // The same reading through the asynchronous sequences: a batch, or a model, per element.
    @Sendable func typedBatches<Model>(_ mapping: Mapping<Model>, _ followers: KeyPath<Model, Int64> & Sendable) async throws -> (sum: Int64, records: Int) {
        let reader = try TypedReader(input: .file(path), mapping: mapping, options: ReaderOptions(shape: .ndjson))
        var sum: Int64 = 0
        for try await batch in reader.batches {
            for model in batch.models { sum &+= model[keyPath: followers] }
        }
        return try checked(reader.statistics, sum)
    }
    @Sendable func typedModels<Model>(_ mapping: Mapping<Model>, _ followers: KeyPath<Model, Int64> & Sendable) async throws -> (sum: Int64, records: Int) {
        let reader = try TypedReader(input: .file(path), mapping: mapping, options: ReaderOptions(shape: .ndjson))
        var sum: Int64 = 0
        for try await model in reader.models { sum &+= model[keyPath: followers] }
        return try checked(reader.statistics, sum)
    }
    @Sendable func checked(_ statistics: ReadStatistics, _ sum: Int64) throws -> (sum: Int64, records: Int) {
        guard statistics.recordsRejected == 0 else {
            throw NSError(domain: "EngineThroughput", code: 2, userInfo: [NSLocalizedDescriptionKey: "\(statistics.recordsRejected) records were rejected"])
        }
        return (sum, statistics.recordsMapped)
    }

    // Name, `--only` key, run. The yajl ceiling has no checksum.
    let contenders: [(name: String, key: String, run: () throws -> (sum: Int64, records: Int)?)] = [
        ("yajl empty callbacks", "yajl", { _ = try TokenizerBaseline.tokenize(file: path); return nil }),
        ("Sluice columnar", "columnar", { try columnar(schema) }),
        ("Sluice columnar, dates and enums", "rich", { try columnar(richSchema) }),
        ("Sluice typed", "typed", { try typed(mapping, \.followers) }),
        ("Sluice typed, dates, enums, nested arrays", "richtyped", { try typed(richMapping, \.followers) }),
        ("Sluice typed, async batches", "asyncbatches", { try AsyncRun.wait { try await typedBatches(mapping, \.followers) } }),
        ("Sluice typed, async models", "asyncmodels", { try AsyncRun.wait { try await typedModels(mapping, \.followers) } }),
    ]

    var timings: [String: [Double]] = [:]
    var checksums: [String: Int64] = [:]
    for _ in 0..<options.repetitions {
        for contender in contenders where options.only == nil || options.only == contender.key {
            var outcome: (sum: Int64, records: Int)?
            timings[contender.name, default: []].append(try Measure.seconds { outcome = try contender.run() })
            if let outcome {
                checksums[contender.name] = outcome.sum
                records = outcome.records
            }
        }
    }
    if options.only != nil { return }
    guard Set(checksums.values).count == 1, checksums.count == contenders.count - 1 else {
        throw NSError(domain: "EngineThroughput", code: 1, userInfo: [NSLocalizedDescriptionKey: "checksums differ: \(checksums)"])
    }
    let megabytes = Double(size) / 1e6
    let ceiling = Measure.median(timings["yajl empty callbacks"] ?? [1])
    print("input: \(path), \(size) bytes, \(records) records, \(String(format: "%.0f", Double(size) / Double(max(records, 1)))) bytes/record")
    print("repetitions: \(options.repetitions), interleaved; median (min–max)")
    print("")
    print("| contender | MB/s | records/s | vs yajl ceiling |")
    print("| --- | ---: | ---: | ---: |")
    for name in contenders.map(\.name) {
        let values = timings[name] ?? []
        let time = Measure.median(values)
        let spread = "\(String(format: "%.0f", megabytes / (values.max() ?? time)))–\(String(format: "%.0f", megabytes / (values.min() ?? time)))"
        print("| \(name) | \(String(format: "%.0f", megabytes / time)) (\(spread)) | \(String(format: "%.0f", Double(records) / time)) | \(String(format: "%.0f", ceiling / time * 100)) % |")
    }
    if !options.keep && options.file == nil { try? FileManager.default.removeItem(atPath: path) }
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("EngineThroughput: \(error)\n".utf8))
    exit(1)
}
