import SluiceTerminal
import ArgumentParser
import Foundation
import Sluice
import SluiceBench
import SluiceFixtures

/// `sluice-bench` (also run as `sluice bench`): Sluice against the yajl ceiling, Foundation's decoders and (when
/// installed) msgspec and DuckDB, on the same bytes and mapping, interleaved in one run.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sluice-bench",
        abstract: "Measure Sluice against the alternatives on the same records, in one interleaved run.",
        discussion: """
            Generates tweet-like records (or reads your --input, with its --mapping or one inferred from its first \
            records), then runs every contender on them, repetition after repetition, and checks that all of them \
            produced the same records (a checksum) before any time counts. On your input, JSONDecoder, msgspec and \
            DuckDB read the mapped fields as their users would (a Decodable model, typed structs, read_json with the \
            columns' types); one that reads the records differently from Sluice is named and left out. Prints MB/s, \
            records/s, CPU seconds, peak memory (each contender measured alone in a child process) and ratios. \
            msgspec and DuckDB run when python3 (or --python) can import them (pip install msgspec duckdb).
            """,
        version: Release.version
    )

    @Option(help: "Size of the generated input, in MiB of JSON.")
    var megabytes = 64

    @Option(help: "Layout of the generated input: ndjson, array, or wrapped ({\"traceEvents\": [...]}).")
    var layout: FixtureFile.Layout = .ndjson

    @Option(help: "Compression of the generated input: none, gzip, zstd, bzip2 or xz (the system's tool for it runs too, decompressing alone).")
    var compression: FixtureFile.Compression = .none

    @Option(help: "Worker counts for the Sluice contenders, comma-separated.")
    var workers: String = "1,\(ProcessInfo.processInfo.activeProcessorCount)"

    @Option(help: "Repetitions of each contender.")
    var repetitions = 5

    @Option(help: "Your own input file instead of the generated one.")
    var input: String?

    @Option(name: [.short, .long], help: "The mapping file for --input (inferred from its first 10,000 records when not given).")
    var mapping: String?

    @Option(help: "Only the contenders whose key starts with one of these, comma-separated (e.g. sluice,jsondecoder).")
    var only: String?

    @Option(help: "The Python that runs msgspec and DuckDB (a virtual environment's, for one).")
    var python = "python3"

    @Flag(name: .customLong("no-foreign"), help: "Do not run msgspec and DuckDB even when installed.")
    var noForeign = false

    @Flag(name: .customLong("no-memory"), help: "Do not measure each contender's peak memory in a child process.")
    var noMemory = false

    @Option(help: "Also write the results as JSON to this file ('-' for standard output).")
    var json: String?

    @Option(help: "Also write a self-contained HTML report with a bar chart to this file.")
    var html: String?

    @Flag(help: "Keep the generated input in the temporary directory (it is reused by the next run of the same size).")
    var keep = false

    @Option(name: .customLong("measure-memory"), help: .hidden)
    var measureMemory: String?

    mutating func validate() throws {
        guard (1...(1 << 20)).contains(megabytes) else { throw ValidationError("--megabytes must be between 1 and 1048576 (MiB), not \(megabytes)") }
        guard (1...1000).contains(repetitions) else { throw ValidationError("--repetitions must be between 1 and 1000, not \(repetitions)") }
        _ = try workerCounts()
        if let input {
            guard FileManager.default.isReadableFile(atPath: input) else { throw ValidationError("--input: cannot read \(input)") }
        } else if mapping != nil {
            throw ValidationError("--mapping goes with --input (the generated records have their own mapping)")
        }
    }

    /// The `--workers` list: each a whole number from 1 to 1024.
    private func workerCounts() throws -> [Int] {
        let counts = try workers.split(separator: ",", omittingEmptySubsequences: false).map { item in
            let text = item.trimmingCharacters(in: .whitespaces)
            guard let count = Int(text), (1...1024).contains(count) else {
                throw ValidationError("--workers takes worker counts from 1 to 1024, comma-separated (e.g. 1,4), not '\(workers)'")
            }
            return count
        }
        return counts
    }

    func run() throws {
        let threads = try workerCounts()
        // Every option is checked, and the contenders chosen, before any input is generated.
        // Your input without a mapping gets one inferred, kept in a file for the children that measure memory.
        let mappingPath = try input.map { try mapping ?? inferredMapping(of: $0) }
        defer { if mapping == nil, let mappingPath { try? FileManager.default.removeItem(atPath: mappingPath) } }
        var planned = try plannedInput(mapping: mappingPath)
        var (contenders, notRun) = makeContenders(for: planned, threads: threads)
        if let measureMemory {
            // A child of a bench run: one contender, once, then its peak memory.
            guard let contender = contenders.first(where: { $0.key == measureMemory }) else { throw ValidationError("no contender \(measureMemory)") }
            _ = try contender(try prepareInput(planned))
            print("peak \(ProcessMemory.peakResidentBytes())")
            return
        }
        if let only {
            let prefixes = only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let chosen = contenders.filter { contender in prefixes.contains { contender.key.hasPrefix($0) } }
            guard !chosen.isEmpty else {
                throw ValidationError("--only \(only) matches none of the contenders of this run: \(contenders.map(\.key).joined(separator: ", "))")
            }
            contenders = chosen
        }
        let generated = input == nil && !keep ? planned.path : nil
        let cleanUp = InterruptCleanUp(removing: generated.map { [$0, $0 + ".size"] } ?? [])
        defer { cleanUp.removeNow() }
        planned = try prepareInput(planned)
        for note in notRun { StandardError.print("sluice-bench: not running \(note)") }

        var runner = BenchRunner(input: planned, contenders: contenders, repetitions: repetitions)
        let status = StatusLine()
        runner.onProgress = { status.show($0) }
        let measured = planned
        if !noMemory { runner.measurePeakMemory = { childPeakMemory(of: $0, input: measured, mapping: mappingPath) } }
        var result: BenchResult
        do {
            result = try runner.run()
        } catch {
            status.clear()
            throw error
        }
        status.clear()
        result.notRun = notRun + result.notRun
        print(result.table())
        if let json {
            let text = try result.json() + "\n"
            if json == "-" { print(text, terminator: "") } else { try text.write(toFile: json, atomically: false, encoding: .utf8) }
        }
        if let html { try result.html().write(toFile: html, atomically: false, encoding: .utf8) }
    }

    /// The input as the options describe it, before it exists: your own file (its shape and compression found by
    /// reading it), or where the generated one goes.
    private func plannedInput(mapping: String?) throws -> BenchInput {
        if let input, let mapping {
            let schema = try MappingSchema(contentsOfFile: mapping)
            // A child measuring one contender's memory does not read the input first: its peak would count.
            if measureMemory != nil { return BenchInput(path: input, layout: .ndjson, compression: .none, bytes: 0, schema: schema) }
            let firstBytes = Array((FileHandle(forReadingAtPath: input)?.readData(ofLength: 4)) ?? Data())
            // One reading learns what the report says: the shape the records are read as, and the bytes of JSON
            // (after decompression), which MB/s counts.
            let reader = try ColumnarReader(input: .file(input), schema: schema, options: ReaderOptions(rejectionPolicy: .collect))
            var rejected = 0
            while let batch = try reader.next() { rejected += batch.rejections.count }
            if rejected > 0 && measureMemory == nil {
                StandardError.print("sluice-bench: the mapping rejects \(CountText.grouped(rejected)) records of \(input); the other readers would read them their own way, so only Sluice runs")
            }
            var planned = BenchInput(path: input, layout: reader.shape == .array ? .array : .ndjson, compression: FixtureFile.Compression(firstBytes: firstBytes),
                                     bytes: reader.statistics.bytesRead, schema: schema, shapeName: reader.shape.rawValue)
            planned.recordsRejected = rejected
            return planned
        }
        let name = "sluice-bench-\(megabytes)MiB-\(layout.rawValue).\(layout == .ndjson ? "ndjson" : "json")\(compression.fileExtension)"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        return BenchInput(path: path, layout: layout, compression: compression, bytes: 0)
    }

    /// The planned input, generated unless it is your own or a kept one of the same size.
    private func prepareInput(_ planned: BenchInput) throws -> BenchInput {
        guard input == nil else { return planned }
        var prepared = planned
        let sizePath = planned.path + ".size"
        if let recorded = try? String(contentsOfFile: sizePath, encoding: .utf8), let bytes = Int(recorded), FileManager.default.fileExists(atPath: planned.path) {
            prepared.bytes = bytes
            return prepared
        }
        if measureMemory == nil { StandardError.print("sluice-bench: generating \(megabytes) MiB of \(layout.rawValue)\(compression == .none ? "" : " (\(compression.rawValue))") in \(planned.path)") }
        let written = try FixtureFile(layout: layout, compression: compression).write(bytes: megabytes << 20, to: planned.path)
        try String(written.bytes).write(toFile: sizePath, atomically: false, encoding: .utf8)
        prepared.bytes = written.bytes
        return prepared
    }

    /// The contenders that can read this input, and a note for each kind left out and why.
    private func makeContenders(for input: BenchInput, threads: [Int]) -> (contenders: [Contender], notRun: [String]) {
        var contenders: [Contender] = [SwiftContenders.ceiling]
        var notRun: [String] = []
        let isPlainNDJSON = input.layout == .ndjson && input.compression == .none
        if input.schema == nil && isPlainNDJSON {
            contenders.append(SwiftContenders.simdjsonCeiling)
        } else {
            notRun.append("the simdjson ceiling: it reads the generated records as plain NDJSON only")
        }
        for count in threads {
            contenders.append(SwiftContenders.columnar(workers: count))
            contenders.append(SwiftContenders.columnar(workers: count, tokenizer: .yajl))
        }
        if let schema = input.schema {
            // Your own input: the others read the mapped fields as their users would, when they can.
            notRun += mappedContenders(schema, input: input, threads: threads, into: &contenders)
            return (contenders, notRun)
        }
        for count in threads { contenders += [SwiftContenders.typed(workers: count), SwiftContenders.typedWithArrays(workers: count), SwiftContenders.codable(workers: count)] }
        if isPlainNDJSON {
            // Foundation reads a line at a time from plain NDJSON.
            contenders += [SwiftContenders.decoder, SwiftContenders.decoderWithFormatter, SwiftContenders.serialization]
        } else {
            notRun.append("JSONDecoder and JSONSerialization: they read plain NDJSON a line at a time")
        }
        // The foreign contenders read plain NDJSON (and DuckDB arrays); a child measuring one Swift contender's memory does
        // not need to look for them (each look starts Python).
        if measureMemory != nil { return (contenders, notRun) }
        let tools = DecompressorContenders.available(for: input.compression)
        contenders += tools.contenders
        notRun += tools.notRun
        if noForeign {
            notRun.append("msgspec and DuckDB: --no-foreign")
        } else if input.compression != .none || input.layout == .wrapped {
            notRun.append("msgspec and DuckDB: they are run on plain NDJSON and arrays")
        } else {
            let foreign = ForeignContenders.available(threads: threads.max() ?? 1, layout: input.layout, python: python)
            contenders += foreign.contenders
            notRun += foreign.notRun
        }
        return (contenders, notRun)
    }

    /// JSONDecoder, msgspec and DuckDB reading your mapping's fields, added to `contenders`; a note for each left out.
    private func mappedContenders(_ schema: MappingSchema, input: BenchInput, threads: [Int], into contenders: inout [Contender]) -> [String] {
        let fields: MappedFields
        switch MappedFields.of(schema) {
        case .failure(let reason): return ["JSONDecoder, msgspec and DuckDB: \(reason), which only Sluice reads"]
        case .success(let read): fields = read
        }
        guard input.recordsRejected == 0 else { return ["JSONDecoder, msgspec and DuckDB: the mapping rejects records of this input"] }
        var notRun: [String] = []
        if input.layout == .ndjson && input.compression == .none {
            if let decoder = SwiftContenders.decoder(fields: fields) { contenders.append(decoder) } else { notRun.append("JSONDecoder: two fields read one value in different ways") }
        } else {
            notRun.append("JSONDecoder: it reads plain NDJSON a line at a time")
        }
        if measureMemory != nil { return notRun }
        if noForeign {
            notRun.append("msgspec and DuckDB: --no-foreign")
        } else if input.compression != .none {
            notRun.append("msgspec and DuckDB: they are run on plain NDJSON and arrays")
        } else {
            let foreign = ForeignContenders.available(fields: fields, threads: threads.max() ?? 1, layout: input.layout, python: python)
            contenders += foreign.contenders
            notRun += foreign.notRun
        }
        return notRun
    }

    /// A mapping of `input` inferred from its first records, written to a temporary file.
    private func inferredMapping(of input: String) throws -> String {
        let inferred = try InferredMapping(input: .file(input))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-bench-inferred-\(UUID().uuidString).mapping.yaml").path
        try inferred.mappingText.write(toFile: path, atomically: false, encoding: .utf8)
        if measureMemory == nil {
            StandardError.print("sluice-bench: no --mapping: every contender reads the mapping inferred from the first \(CountText.grouped(inferred.recordsSampled)) records (sluice infer \(input) shows it)")
        }
        return path
    }

    /// Runs one contender alone in a child process and reads its peak memory.
    private func childPeakMemory(of contender: Contender, input: BenchInput, mapping: String?) -> Int? {
        // The scripts report their own; a decompressor's memory is not what is compared.
        guard contender.family != .foreign && contender.family != .decompressor else { return nil }
        let process = Process()
        // This very program, wherever it was found (run by name, argument 0 holds no path).
        guard let executable = Bundle.main.executableURL else { return nil }
        process.executableURL = executable
        var arguments = ["--measure-memory", contender.key, "--workers", workers]
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
