import Foundation
import Testing
import SluiceBench
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

    @Test(arguments: [(FixtureFile.Layout.array, FixtureFile.Compression.none), (.wrapped, .none), (.ndjson, .gzip), (.ndjson, .zstd)])
    func sluiceReadsEveryLayoutAndCompressionToTheSameRecords(_ layout: FixtureFile.Layout, _ compression: FixtureFile.Compression) throws {
        let plain = try BenchRunner(input: try Self.smallInput(), contenders: [SwiftContenders.columnar(workers: 1)], repetitions: 1).run()
        let other = try BenchRunner(input: try Self.smallInput(layout: layout, compression: compression),
                                    contenders: [SwiftContenders.columnar(workers: 2), SwiftContenders.typed(workers: 1)], repetitions: 1).run()
        #expect(other.records == plain.records)
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
