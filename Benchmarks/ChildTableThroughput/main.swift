// Times `sluice import` of a generated tweet dump with its hashtags, mentions and urls as child tables against the
// same import with those arrays as JSON columns, into SQLite and into Parquet (zstd), as whole processes in
// interleaved rounds, and reports the ratios of their throughputs with each run's peak resident memory.
//
// The dump has a fixed shape: per record 0 to 6 hashtags, 0 to 4 mentions and 0 to 2 urls, each count uniform (on
// average 3, 2 and 1), plus about as many bytes of keys no field reads. With --rss-sizes, the child-table imports of
// dumps of each size report their peak resident memory.
//
// Usage: ChildTableThroughput [--megabytes N] [--rounds N] [--workers N] [--rss-sizes 256,1024] [--sluice PATH]
import Foundation
import SluiceBench

struct Options {
    var megabytes = 256
    var rounds = 5
    var workers = ProcessInfo.processInfo.activeProcessorCount
    var rssSizes: [Int] = []
    var sluice = ".build/release/sluice"

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
            default: throw BenchError("unknown option \(argument); see the usage at the top of Benchmarks/ChildTableThroughput/main.swift")
            }
        }
    }
}

/// Tweets of the fixed shape, from a seeded generator, so that every run reads the same bytes.
struct Tweets {
    private var state: UInt64 = 0x5EED
    private static let words = ["swift", "json", "data", "stream", "sqlite", "parquet", "tokyo", "rain", "coffee", "match", "music", "news"]

    private mutating func below(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }

    private mutating func words(_ count: Int) -> String { (0..<count).map { _ in Self.words[below(Self.words.count)] }.joined(separator: " ") }

    mutating func record(_ ordinal: Int) -> String {
        let hashtags = (0..<below(7)).map { _ in "{\"text\":\"\(Self.words[below(12)])\",\"indices\":[\(below(60)),\(60 + below(60))]}" }
        let mentions = (0..<below(5)).map { _ in
            "{\"screen_name\":\"user\(below(100_000))\",\"name\":\"\(words(2))\",\"id\":\(below(1_000_000_000)),\"indices\":[\(below(40)),\(40 + below(40))]}"
        }
        let urls = (0..<below(3)).map { _ in
            "{\"url\":\"https://t.co/\(below(1_000_000))\",\"expanded_url\":\"https://example.com/\(below(1_000_000))/a?ref=\(below(100))\",\"indices\":[\(below(80)),\(80 + below(60))]}"
        }
        return "{\"id\":\(100_000_000_000 + ordinal),\"created_at\":\"Mon Jan 0\(1 + below(9)) 12:00:00 +0000 2024\",\"text\":\"\(words(8 + below(12)))\","
            + "\"user\":{\"id\":\(below(2_000_000_000)),\"screen_name\":\"user\(below(1_000_000))\",\"followers_count\":\(below(1_000_000)),\"description\":\"\(words(10))\"},"
            + "\"lang\":\"en\",\"retweet_count\":\(below(5000)),\"source\":\"<a href=\\\"http://twitter.com/download/iphone\\\">Twitter for iPhone</a>\","
            + "\"entities\":{\"hashtags\":[\(hashtags.joined(separator: ","))],\"user_mentions\":[\(mentions.joined(separator: ","))],\"urls\":[\(urls.joined(separator: ","))]}}"
    }
}

let columns = """
      - {name: id, type: int64}
      - {name: created_at, type: date, formats: [twitter]}
      - {name: text, type: string}
      - {name: screen_name, path: user.screen_name, type: string}
      - {name: followers, path: user.followers_count, type: int64}
      - {name: retweets, path: retweet_count, type: int64}

    """
let childTables = "key: id\nfields:\n" + columns + """
      - name: hashtags
        path: entities.hashtags
        table: {fields: [{name: text, type: string}, {name: start, path: indices.0, type: int64}]}
      - name: mentions
        path: entities.user_mentions
        table: {fields: [{name: id, type: int64}, {name: screen_name, type: string}]}
      - name: urls
        path: entities.urls
        table: {path: expanded_url, type: string}

    """
let jsonColumns = "fields:\n" + columns + """
      - {name: hashtags, path: entities.hashtags, type: json}
      - {name: mentions, path: entities.user_mentions, type: json}
      - {name: urls, path: entities.urls, type: json}

    """

/// Runs a `sluice import`, its summary written to `summary`: the wall seconds, the peak resident bytes, the records
/// read, and the rows written per child table.
func importRun(_ arguments: [String], summary: String) throws -> (seconds: Double, peak: Int, records: Int, childRows: [String: Int]) {
    let run = try Measure.summarisedRun(arguments, summary: summary)
    var rows: [String: Int] = [:]
    for table in run.summary["child_tables"] as? [[String: Any]] ?? [] {
        if let name = table["name"] as? String { rows[name] = table["rows_written"] as? Int }
    }
    return (run.seconds, run.summary["peak_memory_bytes"] as? Int ?? 0, run.summary["records_read"] as? Int ?? 0, rows)
}

func run() throws {
    let options = try Options()
    let directory = NSTemporaryDirectory() + "sluice-child-table-bench"
    try? FileManager.default.removeItem(atPath: directory)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try childTables.write(toFile: directory + "/child.mapping.yaml", atomically: false, encoding: .utf8)
    try jsonColumns.write(toFile: directory + "/json.mapping.yaml", atomically: false, encoding: .utf8)

    func dump(_ megabytes: Int) throws -> String {
        let path = NSTemporaryDirectory() + "sluice-child-tables-\(megabytes)MB.ndjson"
        if FileManager.default.fileExists(atPath: path) { return path }
        var generator = Tweets()
        var records = 0
        FileHandle.standardError.write(Data("generating \(path)…\n".utf8))
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else { throw BenchError("cannot write \(path)") }
        var written = 0
        var block = ""
        while written < megabytes << 20 {
            records += 1
            let line = generator.record(records) + "\n"
            written += line.utf8.count
            block += line
            if block.utf8.count > 1 << 20 {
                handle.write(Data(block.utf8))
                block = ""
            }
        }
        handle.write(Data(block.utf8))
        try handle.close()
        return path
    }
    let input = try dump(options.megabytes)
    let workers = String(options.workers)
    var times: [String: [Double]] = [:]
    var peaks: [String: [Int]] = [:]
    let runs: [(name: String, mapping: String, destination: String)] = [
        ("child tables → SQLite", "child", "/round.db"), ("JSON columns → SQLite", "json", "/round.db"),
        ("child tables → Parquet (zstd)", "child", "/round/"), ("JSON columns → Parquet (zstd)", "json", "/round/"),
    ]
    var childRows: [String: Int] = [:]
    var records = 0
    for round in 1...options.rounds {
        FileHandle.standardError.write(Data("round \(round) of \(options.rounds)…\n".utf8))
        for (name, mapping, destination) in runs {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory + "/round.db" + suffix) }
            try? FileManager.default.removeItem(atPath: directory + "/round")
            let outcome = try importRun([options.sluice, "import", "-m", directory + "/\(mapping).mapping.yaml", input, "--table", "tweets",
                                         "--to", directory + destination, "-q", "--workers", workers], summary: directory + "/summary.json")
            times[name, default: []].append(outcome.seconds)
            peaks[name, default: []].append(outcome.peak)
            if mapping == "child" { (records, childRows) = (outcome.records, outcome.childRows) }
        }
    }
    func rows(_ table: String) -> String { childRows["tweets_" + table].map(String.init) ?? "?" }
    print("\(options.megabytes) MiB of generated tweets (\(records) records; child rows: \(rows("hashtags")) hashtags, \(rows("mentions")) mentions, "
          + "\(rows("urls")) urls), \(options.workers) workers, \(options.rounds) interleaved rounds; medians:\n")
    print("| run | median | MB/s | peak RSS |")
    print("| --- | ---: | ---: | ---: |")
    let bytes = Double(options.megabytes << 20)
    for (name, _, _) in runs {
        let median = Measure.median(times[name] ?? [])
        let peak = (peaks[name] ?? []).max() ?? 0
        print("| \(name) | " + String(format: "%.2f s | %.0f | %.1f MB |", median, bytes / median / 1e6, Double(peak) / 1e6))
    }
    func ratio(_ child: String, _ json: String) -> String {
        String(format: "%.2f", Measure.median(times[json] ?? []) / Measure.median(times[child] ?? []))
    }
    print("\n| target | ratio | bound |")
    print("| --- | ---: | ---: |")
    print("| child tables vs JSON columns, SQLite (throughput) | \(ratio("child tables → SQLite", "JSON columns → SQLite")) | ≥ 0.7 |")
    print("| child tables vs JSON columns, Parquet (throughput) | \(ratio("child tables → Parquet (zstd)", "JSON columns → Parquet (zstd)")) | ≥ 0.7 |")

    if !options.rssSizes.isEmpty {
        print("\n| child-table import of | peak RSS, SQLite | peak RSS, Parquet |")
        print("| --- | ---: | ---: |")
        for size in options.rssSizes {
            let path = try dump(size)
            var cells: [String] = []
            for destination in ["/rss.db", "/rss/"] {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory + "/rss.db" + suffix) }
                try? FileManager.default.removeItem(atPath: directory + "/rss")
                let outcome = try importRun([options.sluice, "import", "-m", directory + "/child.mapping.yaml", path, "--table", "tweets",
                                             "--to", directory + destination, "-q", "--workers", workers], summary: directory + "/summary.json")
                cells.append(String(format: "%.1f MB", Double(outcome.peak) / 1e6))
            }
            print("| \(size) MiB | \(cells[0]) | \(cells[1]) |")
        }
    }
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("ChildTableThroughput: \(error)\n".utf8))
    exit(1)
}
