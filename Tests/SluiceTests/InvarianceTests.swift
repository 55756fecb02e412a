import Foundation
import Testing
import SluiceFixtures
@testable import Sluice

/// Output must not depend on how the input was cut up: every read size from one byte upward and every batch
/// capacity give the same records, the same rejections (with the same raw text) and the same ending.
@Suite struct InvarianceTests {
    static let readSizes = [1, 2, 3, 5, 7, 13, 31, 64, 1000, 4093, 1 << 20]
    static let batchCapacities = [1, 2, 3, 7, 100, 4096]

    @Test(arguments: GoldenTests.cases.filter { $0.name.hasPrefix("people") || $0.name == "tweets-example" })
    func goldenInputs(_ testCase: GoldenTests.Case) throws {
        let reference = try GoldenTests.run(testCase)
        for readSize in Self.readSizes {
            let result = try GoldenTests.run(testCase, readBufferSize: readSize, batchCapacity: Self.batchCapacities[readSize % Self.batchCapacities.count])
            #expect(result == reference, "\(testCase.name): read size \(readSize) differs")
        }
        for capacity in Self.batchCapacities {
            let result = try GoldenTests.run(testCase, batchCapacity: capacity)
            #expect(result == reference, "\(testCase.name): batch capacity \(capacity) differs")
        }
    }

    @Test(arguments: GoldenTests.cases.filter { $0.name == "amazon-arrays" || $0.name == "twitter-document" })
    func largeRealInputs(_ testCase: GoldenTests.Case) throws {
        let reference = try GoldenTests.run(testCase)
        for readSize in [1, 4093] {
            #expect(try GoldenTests.run(testCase, readBufferSize: readSize, batchCapacity: 7) == reference, "\(testCase.name): read size \(readSize)")
        }
    }

    /// Generated tweets in all three shapes, with a rejected record among them.
    @Test(arguments: [InputShape.ndjson, .array, .concatenated])
    func generatedRecords(_ shape: InputShape) throws {
        var generator = TweetGenerator(seed: 7)
        var records = (1...40).map { generator.nextRecord(ordinal: $0) }
        records[17] = records[17].replacingOccurrences(of: "\"retweet_count\":", with: "\"retweet_count\":\"oops\",\"x\":")
        let text: String
        switch shape {
        case .array: text = "[\n" + records.joined(separator: ",\n") + "\n]"
        case .concatenated: text = records.enumerated().map { $0.offset % 3 == 0 ? $0.element + "\n\n" : $0.element + " " }.joined()
        default: text = records.joined(separator: "\n") + "\n"
        }
        let bytes = Array(text.utf8)
        func run(_ readSize: Int, _ capacity: Int) throws -> RunTranscript {
            try transcript(of: .bytes(bytes), fields: fixtureFields, options: ReaderOptions(shape: shape, readBufferSize: readSize, batchCapacity: capacity, rejectionPolicy: .collect))
        }
        let reference = try run(1 << 20, 4096)
        #expect(reference.rows.count == 39)
        #expect(reference.rejections.count == 1)
        for readSize in [1, 3, 17, 257, 4096] {
            for capacity in [1, 5, 64] {
                #expect(try run(readSize, capacity) == reference, "\(shape): read size \(readSize), capacity \(capacity)")
            }
        }
    }

    let fixtureFields = ReferenceMapping.fields
}

/// Lines in streams are counted before the bytes holding them are let go: records spread over several lines
/// keep their line numbers at every read size.
@Suite struct StreamLineCountTests {
    @Test(arguments: [InputShape.array, .concatenated])
    func multiLineRecordsKeepTheirLines(_ shape: InputShape) throws {
        // Enough records, with enough text, that the reader lets go of bytes many times over.
        let padding = String(repeating: "p", count: 200)
        let records = (1...3000).map { "{\n  \"id\": \($0),\n  \"name\": \"\(padding)\"\n}" }
        let text = shape == .array ? "[\n" + records.joined(separator: ",\n") + "\n]\n" : records.joined(separator: "\n")
        let fields = [field("id", .int64)]
        let expectedLines = (0..<3000).map { (shape == .array ? 2 : 1) + $0 * 4 }
        for readSize in [7, 64, 4093, 1 << 20] {
            let result = try transcript(of: text, fields: fields, options: ReaderOptions(shape: shape, readBufferSize: readSize, rejectionPolicy: .collect))
            let lines = result.rows.compactMap { row in Int(row.split(separator: "@")[1].split(separator: ":")[0]) }
            #expect(lines == expectedLines, "read size \(readSize)")
        }
    }
}
