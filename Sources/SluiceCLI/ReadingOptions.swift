import ArgumentParser
import CMalloc
import Foundation
import Sluice
import SluiceWriters
import SluiceImport

/// The options `sluice map` and `sluice import` share: how inputs are read, what rejections do, what is reported.
struct ReadingOptions: ParsableArguments {
    @Option(name: [.short, .long], help: ArgumentHelp(
        "A mapping file (YAML or JSON; see docs/mapping.md). Give several, each with its 'records' path, to read several record types of one document in one pass, one table each.",
        valueName: "file"))
    var mapping: [String]

    @Option(name: [.customLong("input-format"), .customLong("format")], help: ArgumentHelp(
        "Input shape: automatic, ndjson, array, concatenated or document (--format is the old name).", valueName: "shape"))
    var inputFormat: InputShape = .automatic

    @Option(help: ArgumentHelp(
        "The tokenizer: simdjson reads each NDJSON record, array element and concatenated value and passes over values no field reads without checking inside them; yajl reads and checks every value; auto is simdjson on CPUs it has a SIMD kernel for (see docs/tokenizers.md).",
        valueName: "yajl|simdjson|auto"))
    var tokenizer: TokenizerChoice = .automatic

    @Option(help: ArgumentHelp("Also write rejected records to this file as NDJSON (location, every failure, raw text).", valueName: "file"))
    var rejects: String?

    @Option(name: .customLong("max-rejects"), parsing: .unconditional, help: ArgumentHelp(
        "Stop the run (exit 1) once more than N records, or more than N% of the records read, are rejected.", valueName: "N or N%"))
    var maxRejects: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Only the first N records of each input (of each record type with several mappings), for a quick look; an import stopped so is resumed by --resume.",
        valueName: "N"))
    var limit: Int?

    @Option(name: .customLong("batch-size"), parsing: .unconditional, help: ArgumentHelp("Records per batch (1 to 1,000,000).", valueName: "records"))
    var batchSize = 4096

    @Option(name: .customLong("read-size"), parsing: .unconditional, help: ArgumentHelp("Bytes per read (1 KiB to 1 GiB).", valueName: "bytes"))
    var readSize = 1 << 20

    @Option(parsing: .unconditional, help: ArgumentHelp("Threads that map records (NDJSON and array inputs are mapped in parallel; 1 to 1024; default: the cores, at most 64).", valueName: "count"))
    var workers = min(ProcessInfo.processInfo.activeProcessorCount, 64)

    @Option(name: .customLong("chunk-size"), parsing: .unconditional, help: ArgumentHelp(
        "Bytes per chunk handed to a worker (1 to 1 GiB; an uncompressed input under four chunks per worker is cut into four smaller chunks per worker).",
        valueName: "bytes"))
    var chunkSize = 1 << 20

    @Option(name: .customLong("memory-budget"), parsing: .unconditional, help: ArgumentHelp("The most input and batches held at once (1 to 1,048,576); xz blocks and gzip members decoded on several threads are held within it.", valueName: "MiB"))
    var memoryBudget = 128

    @Option(name: .customLong("max-window"), parsing: .unconditional, help: ArgumentHelp(
        "The largest decompression window a compressed input may need (1 to 2048; zstd --long dumps name up to 2048); for xz, the most memory its decoder may use.", valueName: "MiB"))
    var maximumWindow = 128

    @Option(name: .customLong("byte-range"), parsing: .unconditional, help: ArgumentHelp("Only the records that start in START..<END of the file (NDJSON), e.g. 0:1048576.", valueName: "start:end"))
    var byteRange: ByteRangeArgument?

    @Option(name: .customLong("shard"), help: ArgumentHelp(
        "Only shard INDEX (from 0) of the plan `sluice split` wrote to PLAN: its records, numbered as in the whole file (NDJSON, arrays and wrapper documents).",
        valueName: "plan:index"))
    var shard: ShardArgument?

    @Option(name: .customLong("records-at"), help: ArgumentHelp(
        "The key path of the records inside a wrapper document (an array, or an object whose members are the records; their keys are $key). Overrides the mapping file's 'records'.",
        valueName: "path"))
    var recordsAt: String?

    @Flag(name: [.short, .long], help: "Print no rejection lines, no summary and no progress on standard error (errors still).")
    var quiet = false

    @Option(name: .customLong("progress-every"), parsing: .unconditional, help: ArgumentHelp(
        "Also write a plain progress line on standard error every SECONDS, and one when each input is done (for a job's log; a terminal gets a status line anyway).",
        valueName: "seconds"))
    var progressEvery: Double?

    @Flag(name: .customLong("report-unmapped"), help: "Print, on standard error, each key the mapping never read and how often it was seen.")
    var reportUnmapped = false

    @Option(name: .customLong("summary-json"), help: ArgumentHelp(
        "Write the run's summary (records per table, rejections by kind, bytes, seconds, peak memory, unmapped keys, exit status) to FILE as one JSON object.",
        valueName: "file"))
    var summaryJSON: String?

    @Argument(help: ArgumentHelp("Input files; none or '-' reads standard input.", valueName: "input"))
    var inputs: [String] = []

    func validate() throws {
        if mapping.isEmpty { throw ValidationError("Give a mapping file with --mapping.") }
        if let progressEvery, !(progressEvery > 0) { throw ValidationError("--progress-every takes a number of seconds above 0.") }
        if mapping.count > 1 && recordsAt != nil {
            throw ValidationError("--records-at applies to one mapping; with several, each names its own 'records'.")
        }
        if let maxRejects, RejectLimit(parsing: maxRejects) == nil {
            throw ValidationError("--max-rejects takes a count (100) or a percentage (0.5%), not '\(maxRejects)'.")
        }
        try Self.check("--batch-size", batchSize, 1...1_000_000, "records")
        if let limit { try Self.check("--limit", limit, 1...Int.max, "records") }
        try Self.check("--read-size", readSize, 1024...(1 << 30), "bytes")
        try Self.check("--workers", workers, 1...1024, "threads")
        try Self.check("--chunk-size", chunkSize, 1...(1 << 30), "bytes")
        try Self.check("--memory-budget", memoryBudget, 1...(1 << 20), "MiB")
        try Self.check("--max-window", maximumWindow, 1...2048, "MiB")
    }

    static func check(_ option: String, _ value: Int, _ range: ClosedRange<Int>, _ unit: String) throws {
        guard range.contains(value) else {
            throw ValidationError("\(option) takes \(range.lowerBound) to \(range.upperBound) \(unit), not \(value).")
        }
    }

    /// The inputs, standard input when none is named.
    var inputNames: [String] { inputs.isEmpty ? ["-"] : inputs }

    /// The reader's options; with `--shard`, the shard of the plan, checked against the input and the mapping.
    func readerOptions(schemas: [MappingSchema]) throws(SluiceError) -> ReaderOptions {
        var options = plainReaderOptions
        guard let shard else { return options }
        if byteRange != nil { throw .invalidOptions("give --byte-range or --shard, not both") }
        // A limit counts records from the file's start, which most shards do not hold.
        if limit != nil { throw .invalidOptions("--limit applies to whole files, not to a shard") }
        guard inputNames.count == 1, let input = inputNames.first, input != "-" else {
            throw .invalidOptions("--shard reads one shard of one file: name that file, and only it")
        }
        let text: [UInt8]
        do {
            text = try Array(Data(contentsOf: URL(fileURLWithPath: shard.planPath)))
        } catch {
            throw .io(source: shard.planPath, byteOffset: 0, message: "cannot read the shard plan: \(error.localizedDescription)")
        }
        let plan = try ShardPlan(jsonText: text, source: shard.planPath)
        guard plan.shards.indices.contains(shard.index) else {
            throw .invalidOptions("\(shard.planPath) holds shards 0 to \(plan.shards.count - 1), not \(shard.index)")
        }
        try plan.checkMatches(.file(input))
        let recordsPaths = Set(schemas.map(\.options.recordsPath))
        if recordsPaths != [plan.recordsPath] {
            throw .invalidOptions("the shard plan was split at records path \(plan.recordsPath ?? "none"), but the mapping reads \(recordsPaths.map { $0 ?? "none" }.sorted().joined(separator: ", ")): split with the same --records-at")
        }
        options.shard = plan.shards[shard.index]
        return options
    }

    private var plainReaderOptions: ReaderOptions {
        var options = ReaderOptions()
        options.shape = inputFormat
        options.rejectionPolicy = .collect
        options.batchCapacity = batchSize
        options.readBufferSize = readSize
        options.workers = workers
        options.chunkSize = chunkSize
        options.memoryBudget = memoryBudget << 20
        options.maximumDecompressionWindow = maximumWindow << 20
        options.byteRange = byteRange?.range
        options.tokenizer = tokenizer
        return options
    }

    func schemas() throws(SluiceError) -> [MappingSchema] {
        let schemas = try mapping.map { path throws(SluiceError) in try MappingSchema(contentsOfFile: path, recordsPath: recordsAt) }
        // Compiling a wide mapping frees more than the plan it leaves (100,000 fields: about 80 MB of a 127 MB
        // peak), and glibc keeps freed pages for reuse; the workers' threads allocate from arenas of their own
        // and would not reuse them, so the run would hold both.
        cmalloc_release_free_pages()
        return schemas
    }

    /// Each mapping's table name: its file name without `.yaml`, `.yml` or `.json`, and without `.mapping`.
    var tableNames: [String] {
        mapping.map { path in
            var name = URL(fileURLWithPath: path).lastPathComponent
            for suffix in [".yaml", ".yml", ".json"] where name.hasSuffix(suffix) { name.removeLast(suffix.count) }
            if name.hasSuffix(".mapping") { name.removeLast(".mapping".count) }
            return name
        }
    }
}

extension InputShape: ExpressibleByArgument {}
extension TokenizerChoice: ExpressibleByArgument {}
extension FileOutput.ExistingFile: ExpressibleByArgument {}
extension DateStorage: ExpressibleByArgument {}
extension ParquetOptions.TimestampUnit: ExpressibleByArgument {}

/// `PLAN:INDEX`: a shard plan's file, and the index of one of its shards.
struct ShardArgument: ExpressibleByArgument {
    let planPath: String
    let index: Int

    init?(argument: String) {
        guard let colon = argument.lastIndex(of: ":"), let index = Int(argument[argument.index(after: colon)...]), index >= 0,
              colon > argument.startIndex else { return nil }
        planPath = String(argument[..<colon])
        self.index = index
    }
}

/// `START:END` on the command line.
struct ByteRangeArgument: ExpressibleByArgument {
    let range: Range<Int>

    init?(argument: String) {
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Int(parts[0]), let end = Int(parts[1]), start >= 0, end >= start else { return nil }
        range = start..<end
    }
}
