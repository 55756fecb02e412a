// Throughput of the parallel pipeline against one thread, in one run, interleaved, on the reference mapping:
//   - NDJSON read by one thread (one worker, on the caller's thread), then by 2…N workers,
//   - the same records as one top-level JSON array, N workers,
//   - the same NDJSON compressed with zstd, N workers,
//   - the same records inside a wrapper object, {"traceEvents": [...]} (records path traceEvents), N workers,
//   - N one-thread runs at once over the NDJSON, which no pipeline can beat: the machine's own ceiling,
// each checked against the others (a checksum over every record) before its time counts. libzstd decompressing
// the .zst file alone is timed among them, to show how close .zst can come to plain NDJSON when every core is
// busy (throughput then follows CPU work). With --rss-sizes it
// also maps generated inputs of the given sizes (in MiB) in child processes with the default memory budget and
// reports each one's peak resident memory, failing when one is over 256 MiB or the largest input's is more than
// 10 % over the smallest's.
//
// Usage: PipelineScaling [--megabytes N] [--repetitions N] [--workers N] [--chunk-size BYTES] [--rss-sizes 256,4096] [--keep]
//                        [--only NAME-PREFIX]
import CZstd
import Foundation
import Sluice
import SluiceBench
import SluiceFixtures

struct Options {
    var megabytes = 200
    var repetitions = 5
    var workers = ProcessInfo.processInfo.activeProcessorCount
    var rssSizes: [Int] = []
    var keep = false
    var chunkSize = ReaderOptions().chunkSize
    /// Run only the contender of this name, or those whose name starts with it (for profilers); no checks or table.
    var only: String?
    /// Internal: map this file once and print the peak resident memory (a child process of --rss-sizes).
    var rssRun: String?
    var recordsPath: String?

    init(arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--megabytes": megabytes = iterator.next().flatMap(Int.init) ?? megabytes
            case "--repetitions": repetitions = iterator.next().flatMap(Int.init) ?? repetitions
            case "--workers": workers = iterator.next().flatMap(Int.init) ?? workers
            case "--rss-sizes": rssSizes = (iterator.next() ?? "").split(separator: ",").compactMap { Int($0) }
            case "--rss-run": rssRun = iterator.next()
            case "--records-path": recordsPath = iterator.next()
            case "--keep": keep = true
            case "--only": only = iterator.next()
            case "--chunk-size": chunkSize = iterator.next().flatMap(Int.init) ?? chunkSize
            default:
                FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
                exit(2)
            }
        }
    }
}



/// Maps `path` with the reference mapping; returns a checksum over every record and the records mapped.
func mapAll(_ path: String, workers: Int, chunkSize: Int = ReaderOptions().chunkSize, recordsPath: String? = nil) throws -> (sum: Int64, records: Int) {
    let schema = try MappingSchema(fields: ReferenceMapping.fields, options: MappingOptions(recordsPath: recordsPath))
    let reader = try ColumnarReader(input: .file(path), schema: schema, options: ReaderOptions(workers: workers, chunkSize: chunkSize))
    var sum: Int64 = 0
    while let batch = try reader.next() {
        guard let followers = batch.column(named: "followers"), let id = batch.column(named: "id") else { break }
        for row in 0..<batch.count { sum &+= (followers.int64(row) ?? 0) &* 31 &+ (id.int64(row) ?? 0) }
    }
    let statistics = reader.statistics
    guard statistics.recordsRejected == 0 else {
        throw NSError(domain: "PipelineScaling", code: 2, userInfo: [NSLocalizedDescriptionKey: "\(statistics.recordsRejected) records rejected in \(path)"])
    }
    return (sum, statistics.recordsMapped)
}

/// Decompresses the zstd file at `path` as the pipeline's reader does (compressed input in libzstd's suggested
/// pieces, output into a 1 MiB buffer) and returns the bytes it gave: libzstd's own cost, with no mapping.
func decompressAlone(_ path: String) throws -> Int {
    guard let file = FileHandle(forReadingAtPath: path), let context = ZSTD_createDStream() else {
        throw NSError(domain: "PipelineScaling", code: 4, userInfo: [NSLocalizedDescriptionKey: "cannot decompress \(path)"])
    }
    defer { ZSTD_freeDStream(context); try? file.close() }
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { output.deallocate() }
    var total = 0
    while let data = try file.read(upToCount: ZSTD_DStreamInSize()), !data.isEmpty {
        try data.withUnsafeBytes { (compressed: UnsafeRawBufferPointer) in
            var input = ZSTD_inBuffer(src: compressed.baseAddress, size: compressed.count, pos: 0)
            while input.pos < input.size {
                var out = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
                let hint = ZSTD_decompressStream(context, &out, &input)
                guard ZSTD_isError(hint) == 0 else {
                    throw NSError(domain: "PipelineScaling", code: 4, userInfo: [NSLocalizedDescriptionKey: String(cString: ZSTD_getErrorName(hint))])
                }
                total += out.pos
            }
        }
    }
    return total
}

/// What concurrent one-thread runs returned, each set from its own thread.
final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<(sum: Int64, records: Int), any Error>?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<(sum: Int64, records: Int), any Error>) {
        lock.withLock { results[index] = result }
    }

    /// The common outcome; throws a run's error, or when the runs disagree.
    func agreed() throws -> (sum: Int64, records: Int) {
        let outcomes = try lock.withLock { try results.map { result -> (sum: Int64, records: Int) in
            guard let result else { throw NSError(domain: "PipelineScaling", code: 5, userInfo: [NSLocalizedDescriptionKey: "a concurrent run did not finish"]) }
            return try result.get()
        } }
        guard let first = outcomes.first, outcomes.allSatisfy({ $0.sum == first.sum && $0.records == first.records }) else {
            throw NSError(domain: "PipelineScaling", code: 5, userInfo: [NSLocalizedDescriptionKey: "concurrent runs disagree"])
        }
        return first
    }
}

func fixture(_ megabytes: Int, _ layout: FixtureFile.Layout, _ compression: FixtureFile.Compression) throws -> String {
    let path = NSTemporaryDirectory() + "sluice-pipeline-\(megabytes)MB-\(layout.rawValue)\(layout == .ndjson ? ".ndjson" : ".json")\(compression.fileExtension)"
    if !FileManager.default.fileExists(atPath: path) {
        FileHandle.standardError.write(Data("generating \(path)…\n".utf8))
        try FixtureFile(layout: layout, compression: compression).write(bytes: megabytes << 20, to: path)
    }
    return path
}

func run() throws {
    let options = Options(arguments: CommandLine.arguments)
    if let path = options.rssRun {
        let outcome = try mapAll(path, workers: options.workers, recordsPath: options.recordsPath)
        print("\(ProcessMemory.peakResidentBytes() / 1024) \(outcome.records)")
        return
    }
    let ndjson = try fixture(options.megabytes, .ndjson, .none)
    let array = try fixture(options.megabytes, .array, .none)
    let zstd = try fixture(options.megabytes, .ndjson, .zstd)
    let wrapped = try fixture(options.megabytes, .wrapped, .none)
    let size = (try FileManager.default.attributesOfItem(atPath: ndjson)[.size] as? Int) ?? 0
    let workers = max(options.workers, 2)

    // `copies` above 1: that many one-thread runs at once, each over the whole file, timed per file's worth of
    // bytes. No pipeline can scale past them; they show what the machine itself allows.
    var contenders: [(name: String, path: String, workers: Int, recordsPath: String?, copies: Int)] = [("NDJSON, 1 thread (one worker)", ndjson, 1, nil, 1)]
    for count in 2...workers { contenders.append(("NDJSON, \(count) workers", ndjson, count, nil, 1)) }
    contenders.append(("JSON array, \(workers) workers", array, workers, nil, 1))
    contenders.append(("NDJSON .zst, 1 worker", zstd, 1, nil, 1))
    contenders.append(("NDJSON .zst, \(workers) workers", zstd, workers, nil, 1))
    contenders.append(("{\"traceEvents\": [...]}, \(workers) workers", wrapped, workers, "traceEvents", 1))
    contenders.append(("NDJSON, \(workers) independent 1-thread runs at once (the machine's ceiling)", ndjson, 1, nil, workers))

    var timings: [String: [Double]] = [:]
    var cpuTimes: [String: [Double]] = [:]
    var checksums: [String: Int64] = [:]
    var records = 0
    if let only = options.only {
        // One contender by its exact name, or every one whose name starts with the text.
        let exact = contenders.filter { $0.name == only }
        contenders = exact.isEmpty ? contenders.filter { $0.name.hasPrefix(only) } : exact
    }
    let zstdAlone = "libzstd alone (decompression, no mapping)"
    for _ in 0..<options.repetitions {
        if options.only == nil || zstdAlone.hasPrefix(options.only ?? "") {
            var decompressed = 0
            let cpuBefore = Measure.cpuSeconds()
            timings[zstdAlone, default: []].append(try Measure.seconds { decompressed = try decompressAlone(zstd) })
            cpuTimes[zstdAlone, default: []].append(Measure.cpuSeconds() - cpuBefore)
            guard decompressed == size else {
                throw NSError(domain: "PipelineScaling", code: 4, userInfo: [NSLocalizedDescriptionKey: "\(zstd) decompressed to \(decompressed) bytes, not \(size)"])
            }
        }
        for contender in contenders {
            var outcome = (sum: Int64(0), records: 0)
            let cpuBefore = Measure.cpuSeconds()
            if contender.copies > 1 {
                let outcomes = Outcomes(count: contender.copies)
                let seconds = try Measure.seconds {
                    DispatchQueue.concurrentPerform(iterations: contender.copies) { copy in
                        outcomes.set(copy, Result { try mapAll(contender.path, workers: 1, recordsPath: contender.recordsPath) })
                    }
                    outcome = try outcomes.agreed()
                }
                timings[contender.name, default: []].append(seconds / Double(contender.copies))
            } else {
                timings[contender.name, default: []].append(try Measure.seconds { outcome = try mapAll(contender.path, workers: contender.workers, chunkSize: options.chunkSize, recordsPath: contender.recordsPath) })
            }
            cpuTimes[contender.name, default: []].append((Measure.cpuSeconds() - cpuBefore) / Double(contender.copies))
            checksums[contender.name] = outcome.sum
            records = outcome.records
        }
    }
    if options.only != nil { return }
    guard Set(checksums.values).count == 1 else {
        throw NSError(domain: "PipelineScaling", code: 1, userInfo: [NSLocalizedDescriptionKey: "checksums differ: \(checksums)"])
    }
    let megabytes = Double(size) / 1e6
    let single = Measure.median(timings[contenders[0].name] ?? [1])
    let widest = Measure.median(timings["NDJSON, \(workers) workers"] ?? [1])
    print("input: \(size) bytes of NDJSON (the array holds the same records), \(records) records; \(ProcessInfo.processInfo.activeProcessorCount) cores")
    print("repetitions: \(options.repetitions), interleaved; median (min–max)")
    print("")
    // CPU time moves far less than wall time on a shared machine: the last column compares the work each
    // contender does for the same records.
    let widestCPU = Measure.median(cpuTimes["NDJSON, \(workers) workers"] ?? [1])
    print("| contender | MB/s | records/s | vs 1 thread | vs NDJSON, \(workers) workers | CPU s | CPU of NDJSON, \(workers) workers, over its CPU |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for contender in contenders {
        let values = timings[contender.name] ?? []
        let time = Measure.median(values)
        let spread = "\(String(format: "%.0f", megabytes / (values.max() ?? time)))–\(String(format: "%.0f", megabytes / (values.min() ?? time)))"
        let cpu = Measure.median(cpuTimes[contender.name] ?? [])
        print("| \(contender.name) | \(String(format: "%.0f", megabytes / time)) (\(spread)) | \(String(format: "%.0f", Double(records) / time)) | \(String(format: "%.2f", single / time))× | \(String(format: "%.0f", widest / time * 100)) % | \(String(format: "%.2f", cpu)) | \(String(format: "%.0f", widestCPU / cpu * 100)) % |")
    }
    // With every core busy, .zst costs its mapping plus libzstd's CPU; the best it can reach is their ratio.
    let zstdCPU = Measure.median(cpuTimes[zstdAlone] ?? [])
    let zstdWidest = Measure.median(timings["NDJSON .zst, \(workers) workers"] ?? [1])
    print("")
    print("\(zstdAlone): \(String(format: "%.3f", zstdCPU)) CPU s. With \(workers) workers busy on \(ProcessInfo.processInfo.activeProcessorCount) cores, "
        + ".zst can reach at most \(String(format: "%.0f", widestCPU / (widestCPU + zstdCPU) * 100)) % of NDJSON "
        + "(its CPU over its CPU plus libzstd's); measured \(String(format: "%.0f", widest / zstdWidest * 100)) %.")
    if !options.keep {
        for path in [ndjson, array, zstd, wrapped] { try? FileManager.default.removeItem(atPath: path) }
    }

    if !options.rssSizes.isEmpty {
        print("")
        print("| input | layout | records | peak RSS (default budget, \(workers) workers) |")
        print("| ---: | --- | ---: | ---: |")
        var peaks: [FixtureFile.Layout: [(megabytes: Int, kilobytes: Int)]] = [:]
        for megabytes in options.rssSizes {
          for layout in [FixtureFile.Layout.ndjson, .wrapped] {
            let path = try fixture(megabytes, layout, .none)
            let child = Process()
            child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            child.arguments = ["--rss-run", path, "--workers", String(workers)] + (layout == .wrapped ? ["--records-path", "traceEvents"] : [])
            let pipe = Pipe()
            child.standardOutput = pipe
            try child.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            let parts = output.split(separator: " ")
            let kilobytes = parts.first.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
            let count = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespacesAndNewlines) : "?"
            print("| \(megabytes) MiB | \(layout == .ndjson ? "NDJSON" : "{\"traceEvents\": [...]}") | \(count) | \(String(format: "%.1f", Double(kilobytes) / 1024)) MiB |")
            peaks[layout, default: []].append((megabytes, kilobytes))
            if !options.keep { try? FileManager.default.removeItem(atPath: path) }
          }
        }
        // The targets: every run under 256 MiB, and the largest input within 10 % of the smallest's peak.
        var failures: [String] = []
        for (layout, runs) in peaks {
            for run in runs where run.kilobytes == 0 || run.kilobytes > 256 * 1024 {
                failures.append("\(layout.rawValue), \(run.megabytes) MiB: peak \(run.kilobytes) KiB, target under 256 MiB")
            }
            if let smallest = runs.min(by: { $0.megabytes < $1.megabytes }), let largest = runs.max(by: { $0.megabytes < $1.megabytes }),
               largest.megabytes > smallest.megabytes, Double(largest.kilobytes) > 1.1 * Double(smallest.kilobytes) {
                failures.append("\(layout.rawValue): \(largest.megabytes) MiB peaks at \(largest.kilobytes) KiB, more than 10 % over \(smallest.megabytes) MiB's \(smallest.kilobytes) KiB")
            }
        }
        if !failures.isEmpty {
            throw NSError(domain: "PipelineScaling", code: 3, userInfo: [NSLocalizedDescriptionKey: "memory targets missed: " + failures.joined(separator: "; ")])
        }
        print("memory targets met: under 256 MiB, and \(options.rssSizes.max() ?? 0) MiB within 10 % of \(options.rssSizes.min() ?? 0) MiB")
    }
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("PipelineScaling: \(error)\n".utf8))
    exit(1)
}
