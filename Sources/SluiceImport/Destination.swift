import Sluice

/// Where an import writes, as named on the command line: the kind comes from a scheme or the file extension.
public enum Destination: Sendable, Hashable, CustomStringConvertible {
    /// A SQLite database file (`out.sqlite`, `out.db`, `sqlite:PATH`).
    case sqlite(path: String)
    /// A PostgreSQL database, by libpq connection URL (`postgresql://user@host/db`); what the URL leaves out comes
    /// from the usual `PG*` environment variables.
    case postgres(url: String)
    /// CSV (`,`) or TSV (tab) files, one per table.
    case csv(path: String, delimiter: UInt8)
    /// NDJSON files, one per table, or standard output (`-`, one table).
    case ndjson(path: String?)
    /// NDJSON files in a directory, `<table>.ndjson` each.
    case ndjsonDirectory(String)
    /// Parquet files (`out.parquet`), one per table.
    case parquet(path: String)
    /// Parquet files in a directory (`DIR/`): `<table>.parquet` each, or, when files are split by rows or bytes,
    /// `<table>/part-00000.parquet` onward.
    case parquetDirectory(String)

    /// Reads a destination: `-`, `sqlite:PATH`, a `postgres://` or `postgresql://` URL, a path ending in `.sqlite`,
    /// `.sqlite3`, `.db`, `.csv`, `.tsv`, `.ndjson`, `.jsonl` or `.parquet`, or a directory for Parquet files
    /// (ending in `/`).
    /// - Throws: `SluiceError.invalidOptions(_:)` naming the kinds understood.
    public init(parsing text: String) throws(SluiceError) {
        let lowered = text.lowercased()
        for kind in DestinationKind.all {
            if let destination = try kind.parse(text, lowered) {
                self = destination
                return
            }
        }
        throw DestinationKind.unknown(text)
    }

    /// Whether the destination keeps checkpoints, so that an interrupted import can be resumed.
    public var keepsCheckpoints: Bool { kind.keepsCheckpoints }

    /// Whether the Parquet options (compression, row groups, file limits) apply to the destination.
    public var takesParquetOptions: Bool { kind.takesParquetOptions }

    /// What an interrupted import leaves in the destination, in words for a message.
    public var leftAfterInterrupt: String { kind.leftAfterInterrupt }

    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let url): Self.withoutPassword(url)
        case .csv(let path, _): path
        case .ndjson(let path): path ?? "<stdout>"
        case .ndjsonDirectory(let directory), .parquetDirectory(let directory): directory.hasSuffix("/") ? directory : directory + "/"
        case .parquet(let path): path
        }
    }

    /// A URL as shown in messages: a password in it is left out.
    static func withoutPassword(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://"), let at = url[schemeEnd.upperBound...].firstIndex(of: "@") else { return url }
        guard let colon = url[schemeEnd.upperBound..<at].firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }

    /// The file of each table: the path itself for one table; for several, the table's name before the
    /// extension (`out.csv` → `out.events.csv`).
    func filePaths(tables: [String]) -> [String] {
        let path: String
        switch self {
        case .sqlite, .postgres: return []
        case .ndjson(nil): return []
        case .ndjsonDirectory(let directory), .parquetDirectory(let directory):
            let base = directory.hasSuffix("/") ? directory : directory + "/"
            let suffix = if case .parquetDirectory = self { ".parquet" } else { ".ndjson" }
            return tables.map { base + $0 + suffix }
        case .csv(let file, _), .ndjson(.some(let file)), .parquet(let file): path = file
        }
        guard tables.count > 1 else { return [path] }
        let slash = path.lastIndex(of: "/")
        let dot = path.lastIndex(of: ".").flatMap { dot in slash.map { dot > $0 } ?? true ? dot : nil }
        let stem = dot.map { String(path[..<$0]) } ?? path
        let suffix = dot.map { String(path[$0...]) } ?? ""
        return tables.map { stem + "." + $0 + suffix }
    }
}
