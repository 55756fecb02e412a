import Foundation
import Testing
@testable import SluiceBench
import SluiceFixtures
@testable import Sluice

/// `sluice bench`'s machinery on a small input: every contender maps the same records, a contender that maps
/// differently stops the run, and the reports say what was measured.
@Suite struct BenchTests {
    static func smallInput(layout: FixtureFile.Layout = .ndjson, compression: FixtureFile.Compression = .none) throws -> BenchInput {
        let url = scratchPath("bench-input.\(layout.rawValue)\(compression.fileExtension)")
        let written = try FixtureFile(layout: layout, compression: compression, seed: 5).write(bytes: 300_000, to: url.path)
        return BenchInput(path: url.path, layout: layout, compression: compression, bytes: written.bytes)
    }

    @Test func everySwiftContenderMapsTheSameRecords() throws {
        let input = try Self.smallInput()
        let contenders = [SwiftContenders.ceiling, SwiftContenders.columnar(workers: 1), SwiftContenders.columnar(workers: 3),
                          SwiftContenders.typed(workers: 1), SwiftContenders.typed(workers: 2), SwiftContenders.decoder,
                          SwiftContenders.decoderWithFormatter, SwiftContenders.serialization]
        let result = try BenchRunner(input: input, contenders: contenders, repetitions: 2).run()
        #expect(result.records > 150)
        #expect(result.rows.count == contenders.count)
        #expect(result.rows.allSatisfy { $0.seconds.count == 2 && $0.medianSeconds > 0 })
    }

    @Test(arguments: [(FixtureFile.Layout.array, FixtureFile.Compression.none), (.wrapped, .none), (.ndjson, .gzip), (.ndjson, .zstd), (.ndjson, .bzip2), (.ndjson, .xz)])
    func sluiceReadsEveryLayoutAndCompressionToTheSameRecords(_ layout: FixtureFile.Layout, _ compression: FixtureFile.Compression) throws {
        let plain = try BenchRunner(input: try Self.smallInput(), contenders: [SwiftContenders.columnar(workers: 1)], repetitions: 1).run()
        let input = try Self.smallInput(layout: layout, compression: compression)
        #expect(FixtureFile.Compression(firstBytes: Array(try Data(contentsOf: URL(fileURLWithPath: input.path)).prefix(6))) == compression)
        // The system's decompressors run beside Sluice on compressed input (scripts/install-deps installs gzip's,
        // igzip, bzip2's and xz's).
        let tools = DecompressorContenders.available(for: compression).contenders
        #expect(compression == .none || compression == .zstd || !tools.isEmpty, "\(tools.map(\.name))")
        let other = try BenchRunner(input: input, contenders: [SwiftContenders.columnar(workers: 2), SwiftContenders.typed(workers: 1)] + tools, repetitions: 1).run()
        #expect(other.records == plain.records)
        #expect(other.rows.filter { $0.family == .decompressor }.allSatisfy { $0.medianSeconds > 0 })
    }

    @Test func aContenderThatMapsDifferentlyStopsTheRun() throws {
        let input = try Self.smallInput()
        let wrong = Contender(name: "off by one", key: "wrong", family: .foundation, threads: 1) { input in
            var checksum = Checksum()
            try LineCounter.lines(of: input.path).forEach { _ in
                checksum.add(id: 1, followers: 0, retweets: 0, createdSeconds: 0, userCreatedMilliseconds: 0, textBytes: 0, verified: false, firstHashtagBytes: nil)
            }
            return RunOutcome(checksum: checksum)
        }
        #expect(throws: BenchError.self) { try BenchRunner(input: input, contenders: [SwiftContenders.columnar(workers: 1), wrong], repetitions: 1).run() }
    }

    @Test func twitterDatesByHand() {
        #expect(TwitterDate.seconds("Wed Aug 27 13:08:45 +0000 2008") == 1_219_842_525)
        #expect(TwitterDate.seconds("Sun Aug 31 00:29:15 +0900 2014") == 1_409_412_555)
        #expect(TwitterDate.seconds("Sun Aug 31 00:29:15 -0130 2014") == 1_409_450_355)
        #expect(TwitterDate.seconds("Sun Foo 31 00:29:15 +0000 2014") == nil)
        #expect(TwitterDate.seconds("2014-08-31") == nil)
    }

    @Test func reportsSayWhatWasMeasured() throws {
        let input = try Self.smallInput()
        let contenders = [SwiftContenders.ceiling, SwiftContenders.simdjsonCeiling, SwiftContenders.columnar(workers: 1),
                          SwiftContenders.columnar(workers: 1, tokenizer: .yajl), SwiftContenders.decoder]
        let result = try BenchRunner(input: input, contenders: contenders, repetitions: 3).run()
        let table = result.table()
        #expect(table.contains("| Sluice columnar, 1 worker | "))
        #expect(table.contains("| Sluice columnar (yajl), 1 worker | "))
        #expect(table.contains("| simdjson On-Demand, the same fields by hand (ceiling) | "))
        #expect(table.contains("| JSONDecoder, dates by hand | "))
        #expect(table.contains("× as fast as JSONDecoder with dates by hand"))
        #expect(table.contains("× as fast as with the yajl tokenizer"))
        #expect(table.contains("× the speed of the simdjson ceiling"))
        #expect(!table.contains("target"))
        #expect(table.contains("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores"))
        let decoded = try JSONDecoder().decode(BenchResult.self, from: Data(try result.json().utf8))
        #expect(decoded.records == result.records)
        #expect(decoded.rows.map(\.key) == ["yajl-ceiling", "simdjson-ceiling", "sluice-columnar-1", "sluice-columnar-yajl-1", "jsondecoder"])
        #expect(decoded.rows.allSatisfy { $0.seconds.count == 3 })
        let html = result.html()
        #expect(html.hasPrefix("<!doctype html>"))
        #expect(html.contains("<svg"))
        #expect(html.components(separatedBy: "<rect ").count == 6)
        #expect(html.contains("JSONDecoder, dates by hand"))
    }
}

/// Counts lines, for a contender that maps nothing.
enum LineCounter {
    static func lines(of path: String) throws -> [Substring] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    }
}

/// `sluice bench --input`: on your own file, JSONDecoder, msgspec and DuckDB read the mapped fields, and agree with
/// Sluice on every record before any time counts.
@Suite struct BenchOnYourInputTests {
    static let mapping = """
        fields:
          - {name: id, type: int64}
          - {name: big, type: uint64, optional: true}
          - {name: score, type: double, optional: true}
          - {name: ok, path: flags.ok, type: bool, optional: true}
          - {name: name, path: user.name, type: string}
          - {name: site, type: url, optional: true}
          - {name: level, type: enum, values: [low, high], optional: true}
          - {name: tags, path: "tags.*", type: int64, optional: true}
          - {name: first_tag, path: tags.0, type: int64, optional: true}
          - {name: entities, type: json, optional: true}
          - {name: first_entity, path: entities.0.text, type: string, optional: true}
          - {name: at_ms, type: date, formats: [epoch], unit: milliseconds, optional: true}
          - {name: at_iso, type: date, formats: [iso8601], optional: true}
          - {name: at_twitter, type: date, formats: [twitter], optional: true}
          - {name: at_either, type: date, optional: true}
          - {name: blob, type: bytes, optional: true}
          - {name: "key with.dot", path: 'odd\\.key', type: string, optional: true}
        """

    static func input() throws -> (path: String, schema: MappingSchema) {
        var lines: [String] = []
        for id in 0..<400 {
            var members = ["\"id\":\(id - 200)", "\"user\":{\"name\":\"n\(String(repeating: "é", count: id % 4))\"}"]
            if id % 3 != 0 { members.append("\"big\":\(id % 2 == 0 ? "18446744073709551615" : String(id))") }
            if id % 5 != 0 { members.append("\"score\":\(id % 2 == 0 ? "1.5e3" : String(id))") }
            if id % 7 != 0 { members.append("\"flags\":{\"ok\":\(id % 2 == 0)}") }
            if id % 4 == 0 { members.append("\"site\":\"https://example.com/\(id)\"") }
            members.append("\"level\":" + (id % 6 == 0 ? "null" : id % 2 == 0 ? "\"low\"" : "\"high\""))
            if id % 3 != 1 { members.append("\"tags\":[" + (0..<(id % 4)).map { String($0 * id) }.joined(separator: ",") + "]") }
            if id % 2 == 0 { members.append("\"entities\":[{\"text\":\"e\(id)\"},{\"text\":\"f\"}]") } else if id % 5 == 0 { members.append("\"entities\":null") }
            members.append("\"at_ms\":\(1_600_000_000_000 + id * 12_345 - 200_000)")
            members.append("\"at_iso\":\"2021-03-\(10 + id % 18)T0\(id % 10):15:07\(id % 2 == 0 ? "Z" : "+02:00")\"")
            if id % 2 == 0 { members.append("\"at_twitter\":\"Sun Aug 31 00:29:\(10 + id % 50) +0900 2014\"") }
            members.append("\"at_either\":" + (id % 2 == 0 ? "\(1_400_000_000 + id)" : "\"1969-12-31T23:59:\(10 + id % 40)Z\""))
            if id % 8 != 0 { members.append("\"blob\":\"" + Data((0..<(id % 9)).map { UInt8($0) }).base64EncodedString() + "\"") }
            if id % 9 == 0 { members.append("\"odd.key\":\"dotted\"") }
            lines.append("{" + members.joined(separator: ",") + "}")
        }
        let url = scratchPath("your-input.ndjson")
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: false, encoding: .utf8)
        return (url.path, try MappingSchema(mappingText: mapping))
    }

    @Test func theOtherReadersReadTheMappedFieldsAsSluiceDoes() throws {
        let python = try #require(ProcessInfo.processInfo.environment["SLUICE_TEST_PYTHON"], "run the tests through scripts/test (it sets SLUICE_TEST_PYTHON)")
        let (path, schema) = try Self.input()
        let fields = try MappedFields.of(schema).get()
        var input = BenchInput(path: path, layout: .ndjson, compression: .none, bytes: 1, schema: schema)
        input.recordsRejected = 0
        let foreign = ForeignContenders.available(fields: fields, threads: 2, layout: .ndjson, python: python)
        #expect(foreign.notRun.isEmpty, "\(foreign.notRun)")
        let decoder = try #require(SwiftContenders.decoder(fields: fields))
        let contenders = [SwiftContenders.columnar(workers: 1), SwiftContenders.columnar(workers: 2, tokenizer: .yajl), decoder] + foreign.contenders
        let result = try BenchRunner(input: input, contenders: contenders, repetitions: 1).run()
        #expect(result.notRun.isEmpty, "\(result.notRun)")
        #expect(result.rows.map(\.key) == ["sluice-columnar-1", "sluice-columnar-yajl-2", "jsondecoder-mapped", "msgspec", "duckdb-2"])
        #expect(result.records == 400)
    }

    /// A reader that reads the records differently is named and left out, on your input; Sluice's own rules
    /// (cleanups, defaults, …) leave the others out before they run.
    @Test func aReaderThatDisagreesIsLeftOutAndSaid() throws {
        let (path, schema) = try Self.input()
        let input = BenchInput(path: path, layout: .ndjson, compression: .none, bytes: 1, schema: schema)
        let wrong = Contender(name: "off by one", key: "wrong", family: .foundation, threads: 1) { _ in RunOutcome(checksum: Checksum(value: 1, records: 400)) }
        let failing = Contender(name: "refuses", key: "failing", family: .foreign, threads: 1) { _ in throw BenchError("no") }
        let result = try BenchRunner(input: input, contenders: [SwiftContenders.columnar(workers: 1), wrong, failing], repetitions: 2).run()
        #expect(result.rows.map(\.key) == ["sluice-columnar-1"])
        #expect(result.notRun.count == 2 && result.notRun[0].hasPrefix("refuses: it could not read the records") && result.notRun[1].hasPrefix("off by one: it read the records differently from Sluice"), "\(result.notRun)")
        let cleaned = try MappingSchema(mappingText: "fields:\n  - {name: name, type: string, clean: [trim]}\n")
        guard case .failure(let reason) = MappedFields.of(cleaned) else { Issue.record("a cleanup was taken for a plain field"); return }
        #expect(reason.description == "field 'name' has cleanups")
    }

    @Test func unicodePatternsBecomeStrptimeDirectives() {
        #expect(MappedFields.strptime("EEE MMM dd HH:mm:ss Z yyyy") == "%a %b %d %H:%M:%S %z %Y")
        #expect(MappedFields.strptime("yyyy-MM-dd'T'HH:mm") == "%Y-%m-%dT%H:%M")
        #expect(MappedFields.strptime("dd.MM.yyyy '100%'") == "%d.%m.%Y 100%%")
        #expect(MappedFields.strptime("yyyy QQ") == nil)
    }
}
