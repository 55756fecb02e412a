import ArgumentParser
import Foundation
import Sluice
#if canImport(Glibc)
import Glibc
#endif

/// `sluice map`: read inputs through a mapping file and write the mapped records as NDJSON.
struct MapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Map JSON records through a mapping file and write them as NDJSON on standard output.",
        discussion: """
            Rejected records are reported on standard error (one line each) and, with --rejects, written to a file \
            as NDJSON with their location, every failure and their raw text. Exit status: 0 when every record was \
            read (rejected ones reported), 1 when the run stopped on an error.
            """
    )

    @Option(name: [.short, .long], help: ArgumentHelp(
        "The mapping file (YAML or JSON; see docs/mapping.md). Give several, each with its 'records' path, to map several record types of one document in one pass (with --output-dir).",
        valueName: "mapping"))
    var mapping: [String]

    @Option(name: .customLong("output-dir"), help: "Write each mapping's records to DIR/<mapping file name>.ndjson instead of standard output.")
    var outputDirectory: String?

    @Option(help: "Input shape: automatic, ndjson, array, concatenated or document.")
    var format: InputShape = .automatic

    @Option(name: .customLong("on-reject"), help: "stop: end at the first rejected record; collect: report it and go on.")
    var onReject: RejectionPolicy = .collect

    @Option(help: "Also write rejected records to this file as NDJSON.")
    var rejects: String?

    @Option(help: "Records per batch.")
    var batchSize = 4096

    @Option(help: "Bytes per read.")
    var readSize = 1 << 20

    @Option(help: "Threads that map records (NDJSON and array inputs are mapped in parallel).")
    var workers = ProcessInfo.processInfo.activeProcessorCount

    @Option(name: .customLong("chunk-size"), help: "Bytes per chunk handed to a worker (an uncompressed input under four chunks per worker is cut into four smaller chunks per worker).")
    var chunkSize = 1 << 20

    @Option(name: .customLong("memory-budget"), help: "The most bytes of input and batches held at once, in MiB.")
    var memoryBudget = 128

    @Option(name: .customLong("max-window"), help: "The largest decompression window a compressed input may need, in MiB (zstd --long dumps name up to 2048).")
    var maximumWindow = 128

    @Option(name: .customLong("byte-range"), help: "Only the records that start in START..<END of the file (NDJSON), e.g. 0:1048576.")
    var byteRange: ByteRangeArgument?

    @Option(name: .customLong("records-at"), help: "The key path of the records inside a wrapper document (an array, or an object whose members are the records; their keys are $key). Overrides the mapping file's 'records'.")
    var recordsAt: String?

    @Flag(help: "Do not print the summary line, nor the progress line a terminal gets, on standard error.")
    var quiet = false

    @Option(name: .customLong("progress-every"), help: ArgumentHelp(
        "Also write a plain progress line on standard error every SECONDS, and one when each input is done (for a job's log; a terminal gets a status line anyway).",
        valueName: "seconds"))
    var progressEvery: Double?

    @Flag(name: .customLong("report-unmapped"), help: "Print, on standard error, each key the mapping never read and how often it was seen.")
    var reportUnmapped = false

    @Argument(help: "Input files; none or '-' reads standard input.")
    var inputs: [String] = []

    func validate() throws {
        if mapping.isEmpty { throw ValidationError("Give a mapping file with --mapping.") }
        if let progressEvery, !(progressEvery > 0) { throw ValidationError("--progress-every takes a number of seconds above 0.") }
        if mapping.count > 1 && outputDirectory == nil {
            throw ValidationError("Several mappings write one file each: give --output-dir.")
        }
        if mapping.count > 1 && recordsAt != nil {
            throw ValidationError("--records-at applies to one mapping; with several, each names its own 'records'.")
        }
    }

    func run() throws {
        let schemas = try mapping.map { path throws(SluiceError) in try MappingSchema(contentsOfFile: path, recordsPath: recordsAt) }
        let outputs = try outputFiles()
        let writers = zip(schemas, outputs).map { NDJSONWriter(fields: $0.fields, output: $1) }
        let rejectOutput = try rejects.map { path throws(SluiceError) in try FileOutput(path: path) }
        var options = ReaderOptions()
        options.shape = format
        options.rejectionPolicy = onReject
        options.batchCapacity = batchSize
        options.readBufferSize = readSize
        options.workers = workers
        options.chunkSize = chunkSize
        options.memoryBudget = memoryBudget << 20
        options.maximumDecompressionWindow = maximumWindow << 20
        options.byteRange = byteRange?.range

        var totals = ReadStatistics()
        var unmapped: [String: Int] = [:]
        var failure: SluiceError?
        let names = inputs.isEmpty ? ["-"] : inputs
        let report = ProgressReport(lineInterval: progressEvery, quiet: quiet)
        for (index, name) in names.enumerated() {
            let input: Input = name == "-" ? .standardInput : .file(name)
            do {
                let reader = try BatchReader(input: input, schemas: schemas, names: mapping, options: options)
                report.watch(reader.progress, label: "[\(index + 1)/\(names.count)] \(name == "-" ? "<stdin>" : name)")
                defer {
                    report.finishInput()
                    unmapped.merge(reader.unmappedKeys, uniquingKeysWith: +)
                    let statistics = reader.statistics
                    totals.recordsRead += statistics.recordsRead
                    totals.recordsMapped += statistics.recordsMapped
                    totals.recordsRejected += statistics.recordsRejected
                    totals.bytesRead += statistics.bytesRead
                }
                while let (schema, batch) = try reader.next() {
                    try writers[schema].write(batch)
                    for rejection in batch.rejections {
                        report.print("\(name): rejected \(rejection)")
                        if let rejectOutput { try RejectionWriter.write(rejection, source: name, to: rejectOutput) }
                    }
                }
            } catch {
                // A rejection that ends the stream was delivered in the last batch, and written above.
                failure = error
                break
            }
        }
        report.stop()
        for output in outputs { try output.flush() }
        try rejectOutput?.flush()
        if !quiet {
            Diagnostics.printError("sluice: \(totals.recordsRead) records read, \(totals.recordsMapped) mapped, \(totals.recordsRejected) rejected, \(totals.bytesRead) bytes")
        }
        if reportUnmapped {
            for (path, count) in unmapped.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
                Diagnostics.printError("sluice: unmapped \(path): \(count)")
            }
        }
        if let failure {
            Diagnostics.printError("sluice: error: \(failure)")
            throw ExitCode.failure
        }
    }
}

extension MapCommand {
    /// Standard output, or one file per mapping in the output directory.
    private func outputFiles() throws(SluiceError) -> [FileOutput] {
        guard let outputDirectory else { return [FileOutput.standardOutput()] }
        var names: Set<String> = []
        return try mapping.map { path throws(SluiceError) in
            var name = URL(fileURLWithPath: path).lastPathComponent
            for suffix in [".yaml", ".yml", ".json"] where name.hasSuffix(suffix) { name.removeLast(suffix.count) }
            if name.hasSuffix(".mapping") { name.removeLast(".mapping".count) }
            guard names.insert(name).inserted else { throw .invalidOptions("two mappings would both write \(name).ndjson") }
            return try FileOutput(path: URL(fileURLWithPath: outputDirectory).appendingPathComponent(name + ".ndjson").path)
        }
    }
}

/// One mapping through ``ColumnarReader``, several through ``MultiSchemaReader``, behind one loop.
private enum BatchReader {
    case one(ColumnarReader)
    case several(MultiSchemaReader, names: [String])

    /// `names` tell several mappings' unread keys apart.
    init(input: Input, schemas: [MappingSchema], names: [String], options: ReaderOptions) throws(SluiceError) {
        if schemas.count == 1 {
            self = .one(try ColumnarReader(input: input, schema: schemas[0], options: options))
        } else {
            self = .several(try MultiSchemaReader(input: input, schemas: schemas, options: options), names: names)
        }
    }

    func next() throws(SluiceError) -> (schema: Int, batch: ColumnarBatch)? {
        switch self {
        case .one(let reader): try reader.next().map { (0, $0) }
        case .several(let reader, _): try reader.next()
        }
    }

    var statistics: ReadStatistics {
        switch self {
        case .one(let reader): reader.statistics
        case .several(let reader, _): reader.statistics
        }
    }

    var progress: ProgressMonitor {
        switch self {
        case .one(let reader): reader.progress
        case .several(let reader, _): reader.progress
        }
    }

    var unmappedKeys: [String: Int] {
        switch self {
        case .one(let reader): reader.unmappedKeys
        case .several(let reader, let names):
            reader.schemas.indices.reduce(into: [:]) { keys, index in
                for (path, count) in reader.unmappedKeys(ofSchema: index) { keys[names[index] + ": " + path, default: 0] += count }
            }
        }
    }
}

extension InputShape: ExpressibleByArgument {}
extension RejectionPolicy: ExpressibleByArgument {}

/// `START:END` on the command line.
struct ByteRangeArgument: ExpressibleByArgument {
    let range: Range<Int>

    init?(argument: String) {
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Int(parts[0]), let end = Int(parts[1]), start >= 0, end >= start else { return nil }
        range = start..<end
    }
}
