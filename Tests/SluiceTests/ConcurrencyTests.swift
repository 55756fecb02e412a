import Dispatch
import Foundation
import Synchronization
import Testing
import SluiceFixtures
@testable import Sluice

/// One compiled plan shared by many readers at once (rule 20): every reader gets the same records.
@Suite struct ConcurrencyTests {
    @Test func oneSchemaAndOneMappingServeManyThreadsAtOnce() throws {
        var generator = TweetGenerator(seed: 11)
        let text = Array((1...400).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n").utf8)
        let schema = try MappingSchema(fields: ReferenceMapping.richFields)
        let mapping = try ReferenceMapping.typed()

        @Sendable func columnarDigest() throws -> [String] {
            let reader = try ColumnarReader(input: .bytes(text), schema: schema, options: ReaderOptions(batchCapacity: 37))
            var rows: [String] = []
            while let batch = try reader.next() { rows += (0..<batch.count).map { render(batch, row: $0) } }
            return rows
        }
        @Sendable func typedDigest() throws -> [String] {
            let reader = try TypedReader(input: .bytes(text), mapping: mapping, options: ReaderOptions(batchCapacity: 41))
            var rows: [String] = []
            while let tweet = try reader.nextModel() { rows.append("\(tweet.id) \(tweet.text) \(tweet.score) \(String(describing: tweet.longitude))") }
            return rows
        }
        let expectedColumnar = try columnarDigest()
        let expectedTyped = try typedDigest()
        #expect(expectedColumnar.count == 400 && expectedTyped.count == 400)

        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 16) { iteration in
            let same = iteration % 2 == 0 ? (try? columnarDigest()) == expectedColumnar : (try? typedDigest()) == expectedTyped
            if !same { mismatches.withLock { $0 += 1 } }
        }
        #expect(mismatches.withLock { $0 } == 0)
    }
}
