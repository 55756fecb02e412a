import ArgumentParser
import Foundation
import Sluice
import SluiceBench
import SluiceFixtures

/// `sluice bench`: Sluice against the yajl ceiling, Foundation's decoders and (when installed) msgspec and DuckDB,
/// on the same bytes and mapping, interleaved in one run.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure Sluice against the alternatives on the same records, in one interleaved run.",
        discussion: """
            Generates tweet-like records (or reads --input with --mapping), then runs every contender on them, \
            repetition after repetition, and checks that all of them produced the same records (a checksum) before \
            any time counts. Prints MB/s, records/s, CPU seconds, peak memory (each contender measured alone in a \
            child process) and ratios. msgspec and DuckDB run when python3 can import them (pip install msgspec duckdb).
            """
    )

    @Option(help: "Size of the generated input, in MiB of JSON.")
    var megabytes = 64

    @Option(help: "Layout of the generated input: ndjson, array, or wrapped ({\"traceEvents\": [...]}).")
    var layout: FixtureFile.Layout = .ndjson

    @Option(help: "Compression of the generated input: none, gzip or zstd.")
    var compression: FixtureFile.Compression = .none

    @Option(help: "Worker counts for the Sluice contenders, comma-separated.")
    var workers: String = "1,\(ProcessInfo.processInfo.activeProcessorCount)"

    @Option(help: "Repetitions of each contender.")
    var repetitions = 5

    @Option(help: "Your own input file instead of the generated one (needs --mapping).")
    var input: String?

    @Option(name: [.short, .long], help: "The mapping file for --input.")
    var mapping: String?

    @Option(help: "Only the contenders whose key starts with one of these, comma-separated (e.g. sluice,jsondecoder).")
    var only: String?

    @Flag(name: .customLong("no-foreign"), help: "Do not run msgspec and DuckDB even when installed.")
    var noForeign = false

    @Flag(name: .customLong("no-memory"), help: "Do not measure each contender's peak memory in a child process.")
    var noMemory = false

    @Option(help: "Also write the results as JSON to this file ('-' for standard output).")
    var json: String?

    @Option(help: "Also write a self-contained HTML report with a bar chart to this file.")
    var html: String?

    @Flag(help: "Keep the generated input (it is reused by the next run of the same size).")
    var keep = false

    @Option(name: .customLong("measure-memory"), help: .hidden)
    var measureMemory: String?

    func run() throws {
        let benchInput = try prepareInput()
        let threads = workers.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 > 0 }
        var contenders = makeContenders(for: benchInput, threads: threads.isEmpty ? [1] : threads)
        if let measureMemory {
            // A child of a bench run: one contender, once, then its peak memory.
            guard let contender = contenders.first(where: { $0.key == measureMemory }) else { throw ValidationError("no contender \(measureMemory)") }
            _ = try contender(benchInput)
            print("peak \(ProcessMemory.peakResidentBytes())")
            return
        }
        if let only {
            let prefixes = only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            contenders = contenders.filter { contender in prefixes.contains { contender.key.hasPrefix($0) } }
        }
        guard !contenders.isEmpty else { throw ValidationError("no contender left to run") }

        var runner = BenchRunner(input: benchInput, contenders: contenders, repetitions: repetitions)
        let status = StatusLine()
        runner.onProgress = { status.show($0) }
        if !noMemory { runner.measurePeakMemory = { childPeakMemory(of: $0, input: benchInput) } }
        let result: BenchResult
        do {
            result = try runner.run()
        } catch {
            status.clear()
            throw error
        }
        status.clear()
        print(result.table())
        if let json {
            let text = try result.json() + "\n"
            if json == "-" { print(text, terminator: "") } else { try text.write(toFile: json, atomically: true, encoding: .utf8) }
        }
        if let html { try result.html().write(toFile: html, atomically: true, encoding: .utf8) }
        if input == nil && !keep {
            try? FileManager.default.removeItem(atPath: benchInput.path)
            try? FileManager.default.removeItem(atPath: benchInput.path + ".size")
        }
    }

    private func prepareInput() throws -> BenchInput {
        if let input {
            guard let mapping else { throw ValidationError("--input needs --mapping") }
            let schema = try MappingSchema(contentsOfFile: mapping)
            let size = (try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int) ?? 0
            return BenchInput(path: input, layout: .ndjson, compression: .none, bytes: size, schema: schema)
        }
        let name = "sluice-bench-\(megabytes)MiB-\(layout.rawValue).\(layout == .ndjson ? "ndjson" : "json")\(compression.fileExtension)"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        let sizePath = path + ".size"
        if let recorded = try? String(contentsOfFile: sizePath, encoding: .utf8), let bytes = Int(recorded), FileManager.default.fileExists(atPath: path) {
            return BenchInput(path: path, layout: layout, compression: compression, bytes: bytes)
        }
        if measureMemory == nil { Diagnostics.printError("sluice bench: generating \(megabytes) MiB of \(layout.rawValue)\(compression == .none ? "" : " (\(compression.rawValue))") in \(path)") }
        let written = try FixtureFile(layout: layout, compression: compression).write(bytes: megabytes << 20, to: path)
        try String(written.bytes).write(toFile: sizePath, atomically: true, encoding: .utf8)
        return BenchInput(path: path, layout: layout, compression: compression, bytes: written.bytes)
    }

    private func makeContenders(for input: BenchInput, threads: [Int]) -> [Contender] {
        var contenders: [Contender] = [SwiftContenders.ceiling]
        if input.schema == nil && input.layout == .ndjson && input.compression == .none { contenders.append(SwiftContenders.simdjsonCeiling) }
        for count in threads {
            contenders.append(SwiftContenders.columnar(workers: count))
            contenders.append(SwiftContenders.columnar(workers: count, tokenizer: .yajl))
        }
        guard input.schema == nil else { return contenders }  // your own mapping: only the doors that read it
        for count in threads { contenders.append(SwiftContenders.typed(workers: count)) }
        if input.layout == .ndjson && input.compression == .none {
            // Foundation reads a line at a time from plain NDJSON.
            contenders += [SwiftContenders.decoder, SwiftContenders.decoderWithFormatter, SwiftContenders.serialization]
        }
        // The foreign contenders read plain NDJSON (and DuckDB arrays); a child measuring one Swift contender's memory does
        // not need to look for them (each look starts Python).
        if !noForeign && measureMemory == nil && input.compression == .none && input.layout != .wrapped {
            contenders += ForeignContenders.available(threads: threads.max() ?? 1, layout: input.layout)
        }
        return contenders
    }

    /// Runs one contender alone in a child process and reads its peak memory.
    private func childPeakMemory(of contender: Contender, input: BenchInput) -> Int? {
        guard contender.family != .foreign else { return nil }  // the scripts report their own
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        var arguments = ["bench", "--measure-memory", contender.key, "--workers", workers]
        if let input = self.input, let mapping {
            arguments += ["--input", input, "--mapping", mapping]
        } else {
            arguments += ["--megabytes", String(megabytes), "--layout", layout.rawValue, "--compression", compression.rawValue, "--keep"]
        }
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let line = output.split(separator: "\n").last(where: { $0.hasPrefix("peak ") }) else { return nil }
        return Int(line.dropFirst(5))
    }
}

extension FixtureFile.Layout: ExpressibleByArgument {}
extension FixtureFile.Compression: ExpressibleByArgument {}

/// One status line on standard error while a run goes on, when standard error is a terminal.
final class StatusLine: @unchecked Sendable {
    private let isTerminal = isatty(2) == 1

    func show(_ text: String) {
        guard isTerminal else { return }
        Diagnostics.printError("\r\u{1B}[2K" + text, terminator: "")
    }

    func clear() {
        guard isTerminal else { return }
        Diagnostics.printError("\r\u{1B}[2K", terminator: "")
    }
}
