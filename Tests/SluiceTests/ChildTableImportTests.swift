import Foundation
import Testing

/// `sluice import` of child tables, compared table by table with an independent normaliser written in Python
/// (Tests/ChildTables/check_tables.py) on the real twitter sample and on generated dumps full of awkward arrays, into
/// SQLite and Parquet (read back by pyarrow, DuckDB and polars), with one and several workers and both tokenizers.
@Suite struct ChildTableImportTests {
    static let mapping = repositoryRoot.appendingPathComponent("Tests/ChildTables/child_tables.mapping.yaml").path
    static let checker = repositoryRoot.appendingPathComponent("Tests/ChildTables/check_tables.py").path

    /// Tweets whose arrays take every shape: empty, null, missing, nulls inside, arrays of arrays, an object or a
    /// value where an array belongs, elements missing a required key, deep unread nesting, one very long array.
    static func awkwardTweets(count: Int, seed: UInt64) -> String {
        var random = SplitMix(seed: seed)
        var lines: [String] = []
        for id in 1...count {
            func hashtag(_ index: Int) -> String {
                switch random.below(40) {
                case 0: return "null"
                case 1: return "[\"not an object\"]"
                case 2: return "{\"text\": \"missing indices\"}"
                case 3: return "{\"text\": \"bad index\", \"indices\": [1, [2]]}"
                case 4: return "{\"text\": \"deep\", \"extra\": " + String(repeating: "{\"a\": [", count: 40) + "1" + String(repeating: "]}", count: 40) + "}"
                default: return "{\"text\": \"t\\u00e9\\\"\(id)-\(index)\", \"indices\": [\(index), null, \(index + 3)]}"
                }
            }
            let hashtags: String
            switch random.below(12) {
            case 0: hashtags = "[]"
            case 1: hashtags = "null"
            case 2: hashtags = "{\"text\": \"an object\"}"
            case 3: hashtags = id % 50 == 3 ? "[" + (0..<5_000).map { "{\"text\": \"h\($0)\"}" }.joined(separator: ",") + "]" : "[[1, 2]]"
            default: hashtags = "[" + (0..<random.below(5)).map(hashtag).joined(separator: ", ") + "]"
            }
            let mentions = (0..<random.below(4)).map { index in
                random.below(30) == 0 ? "{\"id\": \(index)}" : "{\"id\": \(id * 10 + index), \"screen_name\": \"u\(index)\"}"
            }
            let urls = (0..<random.below(3)).map { _ in
                ["{\"expanded_url\": \"https://e.example/\(id)\"}", "{\"expanded_url\": null}", "{}", "null"][random.below(4)]
            }
            var entities = "\"hashtags\": \(hashtags), \"user_mentions\": [\(mentions.joined(separator: ", "))]"
            if random.below(15) == 0 { entities += ", \"urls\": \"not an array\"" } else { entities += ", \"urls\": [\(urls.joined(separator: ", "))]" }
            lines.append(random.below(20) == 0 ? "{\"id\": \(id), \"text\": \"no entities\"}" : "{\"id\": \(id), \"text\": \"tweet \(id)\", \"entities\": {\(entities)}}")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var input: String
        var keyed: Bool
        var workers: Int
        var tokenizer: String
        var testDescription: String { "\(input), \(keyed ? "keyed" : "by source and ordinal"), \(workers) workers, \(tokenizer)" }
    }

    static let cases: [Case] = ["twitter", "awkward"].flatMap { input in
        [false, true].flatMap { keyed in [(1, "simdjson"), (3, "simdjson"), (1, "yajl"), (3, "yajl")].map { Case(input: input, keyed: keyed, workers: $0.0, tokenizer: $0.1) } }
    }

    @Test(arguments: cases)
    func everyTableAgreesWithTheNormaliser(_ testCase: Case) throws {
        let python = try #require(ProcessInfo.processInfo.environment["SLUICE_TEST_PYTHON"], "run the tests through scripts/test (it sets SLUICE_TEST_PYTHON)")
        let directory = scratchPath("child-tables")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input: String
        var reading: [String]
        if testCase.input == "twitter" {
            input = repositoryRoot.appendingPathComponent("Fixtures/realdata/twitter.json").path
            reading = [input, "--records-at", "statuses"]
        } else {
            input = directory.appendingPathComponent("awkward.ndjson").path
            try Self.awkwardTweets(count: 600, seed: 11).write(toFile: input, atomically: false, encoding: .utf8)
            reading = [input]
        }
        var mapping = Self.mapping
        if testCase.keyed {
            mapping = directory.appendingPathComponent("keyed.mapping.yaml").path
            try ("key: id\n" + String(contentsOfFile: Self.mapping, encoding: .utf8)).write(toFile: mapping, atomically: false, encoding: .utf8)
        }
        reading += ["--mapping", mapping, "--table", "t", "--workers", "\(testCase.workers)", "--tokenizer", testCase.tokenizer, "--chunk-size", "65536"]
        let database = directory.appendingPathComponent("out.db").path
        let parquet = directory.appendingPathComponent("parquet").path + "/"
        for destination in [database, parquet] {
            let run = try ImportCommandTests.run(["import"] + reading + ["--to", destination])
            #expect(run.status == 0 || run.status == 2, "\(run.standardError)")
        }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: python)
        check.arguments = [Self.checker, testCase.keyed ? "keyed" : "unkeyed", input, testCase.input == "twitter" ? "statuses" : "-", input, database, parquet]
        let output = Pipe()
        check.standardOutput = output
        try check.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "\(text)")
        #expect(text.hasPrefix("ok:"))
    }
}
