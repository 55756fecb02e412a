import ArgumentParser
import Sluice
import SluiceWriters
import SluiceImport

/// `sluice import`: read inputs through mapping files into a database or files, exactly once.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import JSON records through mapping files into SQLite, PostgreSQL, Parquet, CSV, TSV or NDJSON.",
        discussion: """
            The destination's kind comes from its name: out.sqlite, out.db or sqlite:PATH (a SQLite database; one \
            table per mapping, named after the mapping file, with typed columns and a <table>_rejects table), \
            out.csv or out.tsv (RFC 4180, a header row, one file per table), out.ndjson or out.jsonl, - (NDJSON \
            on standard output), out.parquet (one file per table) or DIR/ (a directory of Parquet files: \
            DIR/<table>.parquet, or with --max-file-rows or --max-file-bytes DIR/<table>/part-00000.parquet onward). Every record read is written or rejected, never both. A database import commits \
            rows, rejections and a checkpoint together; after Ctrl-C or a crash, --resume continues after the last \
            committed record. Files appear under their names only when the run ends well.

            Exit status: 0 every record written; 2 finished, some records rejected; 1 the run failed (bad \
            mapping, unreadable input, write error, --max-rejects passed); 130 interrupted (SIGINT or SIGTERM; \
            what was written is committed); 64 a usage error.
            """
    )

    @OptionGroup var reading: ReadingOptions

    @Option(name: .customLong("to"), help: ArgumentHelp("Where to write: out.sqlite, out.db, sqlite:PATH, postgresql://[user@host/]db (PG* variables fill in the rest), out.parquet, DIR/ (Parquet files), out.csv, out.tsv, out.ndjson, out.jsonl, or -.", valueName: "destination"))
    var destination: String

    @Option(name: .customLong("if-exists"), help: ArgumentHelp("When a table or file exists already: fail, append or replace.", valueName: "action"))
    var ifExists: FileOutput.ExistingFile = .fail

    @Option(help: ArgumentHelp("Table names, one per mapping, in order (default: each mapping file's name).", valueName: "name"))
    var table: [String] = []

    @Option(help: ArgumentHelp("Upsert on these fields: a row whose key is in the table already replaces it.", valueName: "field[,field]"))
    var key: String?

    @Flag(help: "Continue an interrupted import into the same database after its last committed record.")
    var resume = false

    @Option(help: ArgumentHelp("How SQLite stores dates: text (RFC 3339, UTC), epoch-s, epoch-ms (floored) or epoch-ns (exact).", valueName: "storage"))
    var dates: DateStorage = .text

    @Option(name: .customLong("commit-every"), parsing: .unconditional, help: ArgumentHelp(
        "Commit a database transaction, with its checkpoint, after this many records (and at least once a second).", valueName: "records"))
    var commitEvery = 100_000

    @Option(name: .customLong("lock-wait"), parsing: .unconditional, help: ArgumentHelp(
        "PostgreSQL: wait this long for another import into the same table to end (0 to 86,400, 0 for not at all; default 30).", valueName: "seconds"))
    var lockWait = 30

    @Flag(name: .customLong("stream-frames"), help: ArgumentHelp(
        "Compressed input: commit as for uncompressed input, even records whose gzip member, zstd frame, bzip2 or xz stream has not passed its check yet (by default a database commits only checked frames' records and rolls back the rest when a check fails)."))
    var streamsFrames = false

    @Option(name: .customLong("null"), help: ArgumentHelp("What CSV and TSV write for a null (default: an empty field; empty text is written \"\").", valueName: "text"))
    var nullText = ""

    @Option(help: ArgumentHelp("Parquet page compression: zstd (the default, level 3), zstd:LEVEL (1 to 22), snappy or none.", valueName: "codec"))
    var compression: String?

    @Option(name: .customLong("row-group-size"), parsing: .unconditional, help: ArgumentHelp(
        "A Parquet row group ends once its columns hold this much before compression (1 to 4096; default 128).", valueName: "MiB"))
    var rowGroupSize: Int?

    @Option(name: .customLong("timestamp-unit"), help: ArgumentHelp(
        "Parquet timestamps in ns (the default: exact; pyarrow, DuckDB and polars read them) or us (floored; Spark reads only these).", valueName: "unit"))
    var timestampUnit: ParquetOptions.TimestampUnit?

    @Option(name: .customLong("max-file-rows"), parsing: .unconditional, help: ArgumentHelp(
        "With --to DIR/: a table's Parquet part file ends after this many rows (1 to 2^62).", valueName: "rows"))
    var maxFileRows: Int?

    @Option(name: .customLong("max-file-bytes"), parsing: .unconditional, help: ArgumentHelp(
        "With --to DIR/: a table's Parquet part file ends once about this large, at a row group's end (1 to 1,048,576).", valueName: "MiB"))
    var maxFileBytes: Int?

    func validate() throws {
        if let rowGroupSize { try ReadingOptions.check("--row-group-size", rowGroupSize, 1...4096, "MiB") }
        if let maxFileRows { try ReadingOptions.check("--max-file-rows", maxFileRows, 1...(1 << 62), "rows") }
        if let maxFileBytes { try ReadingOptions.check("--max-file-bytes", maxFileBytes, 1...(1 << 20), "MiB") }
        if let compression, ParquetCompression(parsing: compression) == nil {
            throw ValidationError("--compression takes zstd, zstd:LEVEL (1 to 22), snappy or none, not '\(compression)'.")
        }
        try ReadingOptions.check("--lock-wait", lockWait, 0...86_400, "seconds")
        if !(1...100_000_000).contains(commitEvery) { throw ValidationError("--commit-every takes 1 to 100,000,000 records, not \(commitEvery).") }
        if !table.isEmpty && table.count != reading.mapping.count {
            throw ValidationError("Give one --table per --mapping (\(reading.mapping.count)), or none.")
        }
        // What --to names, and the options that apply only to some destinations, are usage: refused before any
        // file is read.
        let destination: Destination
        do {
            destination = try Destination(parsing: self.destination)
        } catch {
            guard case .invalidOptions(let message) = error else { throw error }
            throw ValidationError(message)
        }
        if !destination.takesParquetOptions && (maxFileRows != nil || maxFileBytes != nil || compression != nil || rowGroupSize != nil || timestampUnit != nil) {
            throw ValidationError("--compression, --row-group-size, --timestamp-unit, --max-file-rows and --max-file-bytes apply to Parquet destinations (out.parquet or DIR/), not \(destination).")
        }
    }

    func run() throws {
        try ImportRunner.run(options: reading, job: makeJob)
    }

    private func makeJob() throws(SluiceError) -> ImportJob {
        let destination = try Destination(parsing: self.destination)
        let schemas = try reading.schemas()
        let names = table.isEmpty ? reading.tableNames : table
        if Set(names).count != names.count { throw .invalidOptions("two mappings would both write table \(names.sorted().first { name in names.filter { $0 == name }.count > 1 } ?? "")") }
        var tables: [TableLayout] = []
        for (schema, name) in zip(schemas, names) {
            var layout = TableLayout(name: name, fields: schema.fields)
            if let key {
                guard destination.keepsCheckpoints else { throw .invalidOptions("--key upserts into a database; \(destination) is a file") }
                for part in key.split(separator: ",").map({ String($0).trimmingCharacters(in: .whitespaces) }) {
                    guard let index = schema.fields.firstIndex(where: { $0.name == part && $0.childTable == nil }) else {
                        throw .invalidOptions("--key \(part): table \(name) has no column of that name")
                    }
                    layout.keyColumns.append(index)
                }
            } else if destination.keepsCheckpoints {
                // The mapping's key upserts as --key does; into files it only links child tables' rows.
                layout.keyColumns = schema.options.key.compactMap { name in schema.fields.firstIndex { $0.name == name } }
            }
            tables.append(layout)
        }
        var job = ImportJob(inputs: reading.inputNames, schemas: schemas, tables: tables, destination: destination)
        if destination.takesParquetOptions {
            if let codec = compression.flatMap(ParquetCompression.init(parsing:)) { job.parquet.compression = codec }
            if let rowGroupSize { job.parquet.rowGroupBytes = rowGroupSize << 20 }
            if let timestampUnit { job.parquet.timestampUnit = timestampUnit }
            job.maxFileRows = maxFileRows
            job.maxFileBytes = maxFileBytes.map { $0 << 20 }
        }
        job.readerOptions = try reading.readerOptions(schemas: schemas)
        job.ifExists = ifExists
        // Checkpoints name a file, not a shard of it: one shard's finished checkpoint would pass over the next.
        if resume && (reading.shard != nil || reading.byteRange != nil) {
            throw .invalidOptions("--resume continues whole files; rerun a failed shard or byte range into a fresh part instead")
        }
        job.resumes = resume
        job.rejectLimit = reading.maxRejects.flatMap(RejectLimit.init(parsing:))
        job.recordLimit = reading.limit
        job.dateStorage = dates
        job.nullText = nullText
        job.recordsPerCommit = commitEvery
        job.lockWaitSeconds = lockWait
        job.verifiesFrames = !streamsFrames
        return job
    }
}
