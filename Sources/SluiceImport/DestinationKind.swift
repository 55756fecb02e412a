import Sluice
import SluiceWriters

/// What one kind of destination is and can do. Every kind is an entry of ``all``: a new destination is one entry
/// there and its sink, and nothing else decides by kind.
struct DestinationKind: Sendable {
    /// The destination `--to` names, if it names this kind: the text as given and lowercased.
    let parse: @Sendable (_ text: String, _ lowered: String) throws(SluiceError) -> Destination?
    /// How `--to` names it, for the message that lists every destination.
    let spelling: String
    /// Whether it keeps checkpoints, so that an interrupted import can be resumed (and `--key` can upsert).
    let keepsCheckpoints: Bool
    /// Whether the Parquet options (compression, row groups, file limits) apply to it.
    let takesParquetOptions: Bool
    /// Whether dates can be stored in more than one way there (`--dates`), which is then part of a table's meaning.
    let choosesDateStorage: Bool
    /// What an interrupted run leaves there, for the message.
    let leftAfterInterrupt: String
    /// Rules the destination adds to a mapping, so that a value it cannot hold rejects its record (with the key path
    /// and the raw text, like any rejection) instead of failing the whole run or being stored wrong.
    let restrict: @Sendable (_ fields: inout [FieldSpec]) -> Void
    /// The sink that writes the job's tables there.
    let open: @Sendable (_ job: ImportJob) throws(SluiceError) -> any TableSink

    /// Every kind, in the order `--to` is tried against them: schemes and exact names before file extensions.
    static let all: [DestinationKind] = [.standardOutput, .postgres, .sqlite, .csv, .ndjson, .parquet]

    /// The message for a `--to` that names no kind.
    static func unknown(_ text: String) -> SluiceError {
        let kinds = all.map(\.spelling).filter { !$0.isEmpty }
        let listed = kinds.dropLast().joined(separator: ", ") + (kinds.count > 1 ? " and " : "") + (kinds.last ?? "")
        return .invalidOptions("--to \(text): cannot tell what to write from the name. Sluice writes \(listed).")
    }
}

extension Destination {
    /// The entry of ``DestinationKind/all`` this destination is of: the one place that looks at its case.
    var kind: DestinationKind {
        switch self {
        case .sqlite: .sqlite
        case .postgres: .postgres
        case .csv: .csv
        case .ndjson(nil): .standardOutput
        case .ndjson, .ndjsonDirectory: .ndjson
        case .parquet, .parquetDirectory: .parquet
        }
    }
}

extension DestinationKind {
    static let standardOutput = DestinationKind(
        parse: { text, _ in text == "-" ? .ndjson(path: nil) : nil },
        spelling: "",
        keepsCheckpoints: false, takesParquetOptions: false, choosesDateStorage: false,
        leftAfterInterrupt: "what was written to standard output stays there",
        restrict: { _ in },
        open: { job throws(SluiceError) in
            if job.tables.count > 1 { throw .invalidOptions("several tables cannot all go to standard output: name a file") }
            return try files(of: job, format: .ndjson)
        }
    )

    static let sqlite = DestinationKind(
        parse: { text, lowered throws(SluiceError) in
            if lowered.hasPrefix("sqlite:") {
                let path = String(text.dropFirst("sqlite:".count))
                guard !path.isEmpty else { throw .invalidOptions("--to sqlite: needs a path (sqlite:out.db)") }
                return .sqlite(path: path)
            }
            return [".sqlite", ".sqlite3", ".db"].contains(where: lowered.hasSuffix) ? .sqlite(path: text) : nil
        },
        spelling: "SQLite (FILE.sqlite, .sqlite3, .db, or sqlite:PATH)",
        keepsCheckpoints: true, takesParquetOptions: false, choosesDateStorage: true,
        leftAfterInterrupt: "what was written is committed (--resume continues)",
        restrict: { fields in
            // SQLite's integers are signed.
            for index in fields.indices where fields[index].type.reachesPastSignedRange && !fields[index].isList {
                fields[index].validators.append(.maximum(.uint64(UInt64(Int64.max))))
            }
        },
        open: { job throws(SluiceError) in
            guard case .sqlite(let path) = job.destination else { throw mismatched(job) }
            return try SQLiteSink(path: path, tables: job.tables, ifExists: job.ifExists, resuming: job.resumes, dateStorage: job.dateStorage)
        }
    )

    static let postgres = DestinationKind(
        parse: { text, lowered in lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") ? .postgres(url: text) : nil },
        spelling: "PostgreSQL (a postgresql:// URL)",
        keepsCheckpoints: true, takesParquetOptions: false, choosesDateStorage: false,
        leftAfterInterrupt: "what was written is committed (--resume continues)",
        restrict: { fields in
            // PostgreSQL's text and jsonb cannot hold the character U+0000. Lists take no validators: an element
            // holding it fails the COPY, and the run, with a write error.
            for index in fields.indices where !fields[index].isList {
                switch fields[index].type {
                case .json:
                    fields[index].validators.append(.customBytes(name: "no \\u0000 (PostgreSQL jsonb cannot hold it)") { !MappingSchema.escapesNUL($0) })
                case .string, .url, .enumeration:
                    fields[index].validators.append(.customBytes(name: "no U+0000 (PostgreSQL text cannot hold it)") { !$0.contains(0) })
                case .int64, .uint64, .double, .bool, .date, .bytes, .decimal:
                    break
                }
            }
        },
        open: { job throws(SluiceError) in
            guard case .postgres(let url) = job.destination else { throw mismatched(job) }
            return try PostgresSink(url: url, tables: job.tables, ifExists: job.ifExists, resuming: job.resumes, lockWaitSeconds: job.lockWaitSeconds)
        }
    )

    static let csv = DestinationKind(
        parse: { text, lowered in
            if lowered.hasSuffix(".csv") { return .csv(path: text, delimiter: UInt8(ascii: ",")) }
            return lowered.hasSuffix(".tsv") ? .csv(path: text, delimiter: 0x09) : nil
        },
        spelling: "CSV (FILE.csv), TSV (FILE.tsv)",
        keepsCheckpoints: false, takesParquetOptions: false, choosesDateStorage: false,
        leftAfterInterrupt: "no file was left (files appear only when a run ends well)",
        restrict: { _ in },
        open: { job throws(SluiceError) in
            guard case .csv(_, let delimiter) = job.destination else { throw mismatched(job) }
            return try files(of: job, format: .csv(delimiter: delimiter, nullText: job.nullText))
        }
    )

    static let ndjson = DestinationKind(
        parse: { text, lowered in lowered.hasSuffix(".ndjson") || lowered.hasSuffix(".jsonl") ? .ndjson(path: text) : nil },
        spelling: "NDJSON (FILE.ndjson or .jsonl, or - for standard output)",
        keepsCheckpoints: false, takesParquetOptions: false, choosesDateStorage: false,
        leftAfterInterrupt: "no file was left (files appear only when a run ends well)",
        restrict: { _ in },
        open: { job throws(SluiceError) in
            try files(of: job, format: .ndjson)
        }
    )

    static let parquet = DestinationKind(
        parse: { text, lowered in
            if lowered.hasSuffix(".parquet") { return .parquet(path: text) }
            return text.hasSuffix("/") ? .parquetDirectory(text) : nil
        },
        spelling: "Parquet (FILE.parquet, or DIR/ for a directory of files)",
        keepsCheckpoints: false, takesParquetOptions: true, choosesDateStorage: false,
        leftAfterInterrupt: "no file was left (files appear only when a run ends well)",
        restrict: { _ in },
        open: { job throws(SluiceError) in
            try ParquetSink(destination: job.destination, tables: job.tables, options: job.parquet,
                            limits: ParquetSink.FileLimits(rows: job.maxFileRows, bytes: job.maxFileBytes), ifExists: job.ifExists)
        }
    )

    /// The text files of the job's tables (none for standard output).
    private static func files(of job: ImportJob, format: FileSink.Format) throws(SluiceError) -> any TableSink {
        try FileSink(destinationName: job.destination.description, tables: job.tables, paths: job.destination.filePaths(tables: job.tables.map(\.name)),
                     format: format, ifExists: job.ifExists)
    }

    /// A job whose destination is not of the kind asked to open it: a mistake in this file, reported, not trapped.
    private static func mismatched(_ job: ImportJob) -> SluiceError {
        .invalidOptions("\(job.destination) is not a destination of the kind opened for it")
    }
}
