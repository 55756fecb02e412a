// Times `sluice import` against the loaders it stands in for, as whole processes, in interleaved rounds:
//   - SQLite: `sluice import --to x.db` against `sqlite3 x.db ".import --csv"` of the same rows already mapped to
//     CSV, into the same table, and against mapping the dump to /dev/null (`sluice map -o /dev/null`);
//   - PostgreSQL (when SLUICE_TEST_POSTGRES names a server, e.g. under scripts/with-postgres): `sluice import`
//     against `psql -c "\copy … from … csv"` of the same CSV, into the same table;
//   - CSV against NDJSON output (`sluice import --to x.csv` and `--to x.ndjson`);
//   - Parquet (zstd): `sluice import --to x.parquet` against DuckDB's `COPY (SELECT <the same 16 columns> FROM
//     read_ndjson(…)) TO 'x.parquet' (FORMAT parquet, COMPRESSION zstd)` on as many threads, run by the Python that
//     has duckdb (--python, by default scripts/python-env's), and the two files' sizes.
// The input is the generated tweet dump with the reference mapping (16 fields). Medians of the rounds, and the
// ratios the import and Parquet issues name. With --rss-sizes, also the peak resident memory of SQLite and Parquet
// imports of each size.
//
// Usage: ImportThroughput [--megabytes N] [--rounds N] [--workers N] [--rss-sizes 256,4096] [--sluice PATH] [--python PATH]
import Foundation
import SluiceBench
import SluiceFixtures

struct Options {
    var megabytes = 256
    var rounds = 5
    var workers = ProcessInfo.processInfo.activeProcessorCount
    var rssSizes: [Int] = []
    var sluice = ".build/release/sluice"
    var python = ".build/python/bin/python"

    init() throws {
        var iterator = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            func number() throws -> Int {
                guard let text = iterator.next(), let value = Int(text), value > 0 else { throw BenchError("\(argument) takes a positive number") }
                return value
            }
            switch argument {
            case "--megabytes": megabytes = try number()
            case "--rounds": rounds = try number()
            case "--workers": workers = try number()
            case "--rss-sizes": rssSizes = (iterator.next() ?? "").split(separator: ",").compactMap { Int($0) }
            case "--sluice": sluice = iterator.next() ?? sluice
            case "--python": python = iterator.next() ?? python
            default: throw BenchError("unknown option \(argument); see the usage at the top of Benchmarks/ImportThroughput/main.swift")
            }
        }
    }
}

/// Runs a command, its output discarded; returns the wall seconds, and fails on a status other than `allowed`.
@discardableResult
func time(_ arguments: [String], allowed: Set<Int32> = [0], environment: [String: String]? = nil) throws -> Double {
    try Measure.command(arguments, allowed: allowed, environment: environment).seconds
}

func output(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

/// The reference mapping as a mapping file.
func referenceMappingFile() -> String {
    var text = "fields:\n"
    for field in ReferenceMapping.fields {
        text += "  - {name: \(field.name), path: \"\(field.path ?? field.name)\", type: \(field.type.rawValue)\(field.isOptional ? ", optional: true" : "")}\n"
    }
    return text
}

func run() throws {
    let options = try Options()
    let directory = NSTemporaryDirectory() + "sluice-import-bench"
    try? FileManager.default.removeItem(atPath: directory)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let mapping = directory + "/tweets.mapping.yaml"
    try referenceMappingFile().write(toFile: mapping, atomically: false, encoding: .utf8)

    func dump(_ megabytes: Int) throws -> String {
        let path = NSTemporaryDirectory() + "sluice-import-\(megabytes)MB.ndjson"
        if !FileManager.default.fileExists(atPath: path) {
            FileHandle.standardError.write(Data("generating \(path)…\n".utf8))
            _ = try FixtureFile(layout: .ndjson, compression: .none).write(bytes: megabytes << 20, to: path)
        }
        return path
    }
    let input = try dump(options.megabytes)
    let sluice = options.sluice
    let workers = String(options.workers)
    let records = try output(["wc", "-l", input]).split(separator: " ").first.map(String.init) ?? "?"

    // The rows already mapped, as the loaders' input, and the table they load into (the schema sluice creates).
    let csv = directory + "/mapped.csv"
    try time([sluice, "import", "-m", mapping, input, "--to", csv, "-q", "--workers", workers])
    try time([sluice, "import", "-m", mapping, input, "--to", directory + "/schema.db", "-q", "--workers", workers])
    let schema = try output(["sqlite3", directory + "/schema.db", ".schema tweets"]).trimmingCharacters(in: .whitespacesAndNewlines)
    let postgres = ProcessInfo.processInfo.environment["SLUICE_TEST_POSTGRES"]
    let postgresDDL = try postgres.map { url -> String in
        try time([sluice, "import", "-m", mapping, dump(1), "--to", url, "-q", "--if-exists", "replace"])
        return try output(["psql", url, "-Atc", "SELECT 'CREATE TABLE tweets_copy (' || string_agg(quote_ident(column_name) || ' ' || "
                           + "CASE WHEN data_type = 'numeric' THEN 'numeric(20)' ELSE data_type END, ', ' ORDER BY ordinal_position) || ')' "
                           + "FROM information_schema.columns WHERE table_name = 'tweets'"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // DuckDB writing the reference mapping's columns to Parquet: the same names, types and nesting.
    let duckdb = FileManager.default.isExecutableFile(atPath: options.python) ? """
        import sys, duckdb
        con = duckdb.connect()
        con.execute("SET threads = %d" % int(sys.argv[3]))
        columns = ("{'id': 'BIGINT', 'id_str': 'VARCHAR', 'created_at': 'VARCHAR', 'text': 'VARCHAR', "
                   "'user': 'STRUCT(id BIGINT, screen_name VARCHAR, followers_count BIGINT, verified BOOLEAN, location VARCHAR)', "
                   "'retweet_count': 'BIGINT', 'favorite_count': 'BIGINT', 'favorited': 'BOOLEAN', 'lang': 'VARCHAR', 'score': 'DOUBLE', "
                   "'coordinates': 'STRUCT(coordinates DOUBLE[])', 'entities': 'STRUCT(hashtags STRUCT(text VARCHAR)[])'}")
        con.execute(f\"\"\"COPY (SELECT id, id_str, created_at, text, "user".id AS user_id, "user".screen_name AS screen_name,
            "user".followers_count AS followers, "user".verified AS verified, "user".location AS location,
            retweet_count AS retweets, favorite_count AS favorites, favorited, lang, score,
            coordinates.coordinates[1] AS longitude, entities.hashtags[1].text AS first_hashtag
            FROM read_ndjson('{sys.argv[1]}', columns = {columns})) TO '{sys.argv[2]}' (FORMAT parquet, COMPRESSION zstd)\"\"\")
        """ : nil
    let duckdbScript = directory + "/duckdb-parquet.py"
    try duckdb?.write(toFile: duckdbScript, atomically: false, encoding: .utf8)
    func fileSize(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0 }
    var parquetSizes: (sluice: Int, duckdb: Int) = (0, 0)

    var times: [String: [Double]] = [:]
    for round in 1...options.rounds {
        FileHandle.standardError.write(Data("round \(round) of \(options.rounds)…\n".utf8))
        let database = directory + "/round.db"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
        times["sluice import → SQLite", default: []].append(try time([sluice, "import", "-m", mapping, input, "--to", database, "-q", "--workers", workers]))
        let loaded = directory + "/loaded.db"
        try? FileManager.default.removeItem(atPath: loaded)
        times["sqlite3 .import --csv (rows mapped already)", default: []].append(
            try time(["sqlite3", loaded, schema, ".import --csv --skip 1 \(csv) tweets"]))
        times["sluice map → /dev/null", default: []].append(try time([sluice, "map", "-m", mapping, input, "-o", "/dev/null", "-q", "--workers", workers]))
        times["sluice import → CSV", default: []].append(
            try time([sluice, "import", "-m", mapping, input, "--to", directory + "/round.csv", "--if-exists", "replace", "-q", "--workers", workers]))
        times["sluice import → NDJSON", default: []].append(
            try time([sluice, "import", "-m", mapping, input, "--to", directory + "/round.ndjson", "--if-exists", "replace", "-q", "--workers", workers]))
        times["sluice import → Parquet (zstd)", default: []].append(
            try time([sluice, "import", "-m", mapping, input, "--to", directory + "/round.parquet", "--if-exists", "replace", "-q", "--workers", workers]))
        parquetSizes.sluice = fileSize(directory + "/round.parquet")
        if duckdb != nil {
            try? FileManager.default.removeItem(atPath: directory + "/duckdb.parquet")
            times["DuckDB COPY read_ndjson → Parquet (zstd)", default: []].append(
                try time([options.python, duckdbScript, input, directory + "/duckdb.parquet", workers]))
            parquetSizes.duckdb = fileSize(directory + "/duckdb.parquet")
        }
        if let postgres, let postgresDDL {
            times["sluice import → PostgreSQL", default: []].append(
                try time([sluice, "import", "-m", mapping, input, "--to", postgres, "--if-exists", "replace", "-q", "--workers", workers]))
            try time(["psql", postgres, "-qc", "DROP TABLE IF EXISTS tweets_copy", "-c", postgresDDL])
            times["psql \\copy csv (rows mapped already)", default: []].append(
                try time(["psql", postgres, "-qc", "\\copy tweets_copy from '\(csv)' csv header"]))
        }
    }

    print("\(options.megabytes) MiB of generated tweets (\(records) records), reference mapping (16 fields), \(options.workers) workers, "
          + "\(options.rounds) interleaved rounds; medians:\n")
    print("| run | median | MB/s |")
    print("| --- | ---: | ---: |")
    let bytes = Double(options.megabytes << 20)
    for (name, values) in times.sorted(by: { $0.key < $1.key }) {
        print("| \(name) | " + String(format: "%.2f s", Measure.median(values)) + " | " + String(format: "%.0f", bytes / Measure.median(values) / 1e6) + " |")
    }
    func ratio(_ a: String, _ b: String) -> String {
        guard let x = times[a], let y = times[b] else { return "n/a" }
        return String(format: "%.2f", Measure.median(y) / Measure.median(x))
    }
    print("\n| target | ratio | bound |")
    print("| --- | ---: | ---: |")
    print("| SQLite import vs sqlite3 .import of the mapped CSV (throughput) | \(ratio("sluice import → SQLite", "sqlite3 .import --csv (rows mapped already)")) | ≥ 0.8 |")
    print("| SQLite import vs mapping to /dev/null (throughput) | \(ratio("sluice import → SQLite", "sluice map → /dev/null")) | ≥ 0.7 |")
    print("| PostgreSQL import vs psql \\copy of the mapped CSV | \(ratio("sluice import → PostgreSQL", "psql \\copy csv (rows mapped already)")) | ≥ 0.8 |")
    print("| CSV output vs NDJSON output (throughput) | \(ratio("sluice import → CSV", "sluice import → NDJSON")) | ≥ 0.8 |")
    print("| Parquet import vs DuckDB's COPY to Parquet (throughput) | \(ratio("sluice import → Parquet (zstd)", "DuckDB COPY read_ndjson → Parquet (zstd)")) | ≥ 1.3 |")
    print("| Parquet import vs mapping to /dev/null (throughput) | \(ratio("sluice import → Parquet (zstd)", "sluice map → /dev/null")) | ≥ 0.7 |")
    if parquetSizes.duckdb > 0 {
        print("| Parquet file size vs DuckDB's (\(parquetSizes.sluice) / \(parquetSizes.duckdb) bytes) | "
              + String(format: "%.2f", Double(parquetSizes.sluice) / Double(parquetSizes.duckdb)) + " | within 0.85–1.15 |")
    }

    if !options.rssSizes.isEmpty {
        print("\n| import of | peak RSS, SQLite | peak RSS, Parquet |")
        print("| --- | ---: | ---: |")
        for size in options.rssSizes {
            let path = try dump(size)
            let database = directory + "/rss.db"
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
            let summary = directory + "/rss.json"
            func peak(_ destination: String) throws -> String {
                let run = try Measure.summarisedRun([sluice, "import", "-m", mapping, path, "--to", destination, "-q", "--workers", workers, "--if-exists", "replace"],
                                                   summary: summary)
                return String(format: "%.1f MiB", Double((run.summary["peak_memory_bytes"] as? Int) ?? 0) / 1048576)
            }
            print("| \(size) MiB | \(try peak(database)) | \(try peak(directory + "/rss.parquet")) |")
            try? FileManager.default.removeItem(atPath: database)
            try? FileManager.default.removeItem(atPath: directory + "/rss.parquet")
        }
    }
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("ImportThroughput: \(error)\n".utf8))
    exit(1)
}
