import Foundation
import Testing
import SluiceFixtures
@testable import Sluice

/// yajl and simdjson must give the same records, rejections (wording, locations, raw text) and counts, except
/// where docs/tokenizers.md says they differ: a malformed value no field reads, and ill-formed UTF-8 in one.
@Suite struct TokenizerDifferentialTests {
    static func options(_ tokenizer: TokenizerChoice, shape: InputShape = .ndjson, readBufferSize: Int = 1 << 20, workers: Int = 1,
                        chunkSize: Int = 1 << 20) -> ReaderOptions {
        var options = ReaderOptions(shape: shape, readBufferSize: readBufferSize, rejectionPolicy: .collect, workers: workers, chunkSize: chunkSize)
        options.tokenizer = tokenizer
        return options
    }

    /// Maps `bytes` with both tokenizers, expects the same transcript, and returns it.
    @discardableResult
    static func expectAgreement(_ bytes: [UInt8], fields: [FieldSpec], shape: InputShape = .ndjson, readBufferSize: Int = 1 << 20, workers: Int = 1,
                                chunkSize: Int = 1 << 20, schemaOptions: MappingOptions = MappingOptions(),
                                _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws -> RunTranscript {
        let yajl = try transcript(of: .bytes(bytes), fields: fields, options: options(.yajl, shape: shape, readBufferSize: readBufferSize, workers: workers, chunkSize: chunkSize),
                                  schemaOptions: schemaOptions)
        let simdjson = try transcript(of: .bytes(bytes), fields: fields, options: options(.simdjson, shape: shape, readBufferSize: readBufferSize, workers: workers, chunkSize: chunkSize),
                                      schemaOptions: schemaOptions)
        #expect(simdjson == yajl, "\(comment)\nyajl:\n\(yajl)\nsimdjson:\n\(simdjson)", sourceLocation: sourceLocation)
        return yajl
    }

    static let wholeRecord = [field("value", .json, path: "$", optional: true)]

    /// Generated tweets, clean and damaged in the ways real dumps are: cut off, garbage, wrong types, numbers past
    /// int64, duplicate keys, escapes in keys and strings, extra values on a line, blank and indented lines.
    static func damagedTweets(count: Int, seed: UInt64) -> [UInt8] {
        var generator = TweetGenerator(seed: seed)
        var lines: [String] = []
        for ordinal in 1...count {
            let record = generator.nextRecord(ordinal: ordinal)
            switch ordinal % 17 {
            case 1: lines.append(String(record.prefix(record.count / 2)))
            case 2: lines.append("not json at all")
            case 3: lines.append(record.replacingOccurrences(of: "\"retweet_count\":", with: "\"retweet_count\":\"many\",\"x\":"))
            case 4: lines.append(record.replacingOccurrences(of: "\"id\":", with: "\"id\":123456789012345678901234567890,\"was\":"))
            case 5: lines.append(record + " " + record)
            case 6: lines.append("   \t" + record + "  \r")
            case 7: lines.append("")
            case 8: lines.append(record.replacingOccurrences(of: "\"lang\":", with: "\"l\\u0061ng\":"))
            case 9: lines.append(record.replacingOccurrences(of: "\"text\":\"", with: "\"text\":\"\\ud83d\\ude00 \\\"q\\\" \\n "))
            case 10: lines.append(record.replacingOccurrences(of: "\"favorited\":", with: "\"favorited\":true,\"favorited\":"))
            case 11: lines.append(record.replacingOccurrences(of: "\"user\":{", with: "\"user\":{\"a\\\"b\":[[[{}]]],"))
            case 12: lines.append(record.replacingOccurrences(of: "\"score\":", with: "\"score\":-0.0e+0,\"s2\":"))
            case 13: lines.append("[" + record + "]")
            case 14: lines.append("42")
            default: lines.append(record)
            }
        }
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    @Test(arguments: [ReferenceMapping.fields, ReferenceMapping.richFields])
    func generatedRecordsAgree(_ fields: [FieldSpec]) throws {
        let bytes = Self.damagedTweets(count: 300, seed: 11)
        let reference = try Self.expectAgreement(bytes, fields: fields)
        #expect(reference.rows.count > 150)
        #expect(reference.rejections.count > 50)
    }

    @Test func wholeRecordsCapturedAsJSONAgree() throws {
        try Self.expectAgreement(Self.damagedTweets(count: 120, seed: 5), fields: Self.wholeRecord)
    }

    /// Records cut at every read size, so that some end where the buffer does (simdjson gets a padded copy).
    @Test func readSizesAgree() throws {
        let bytes = Self.damagedTweets(count: 40, seed: 3)
        let reference = try Self.expectAgreement(bytes, fields: ReferenceMapping.fields)
        for size in [1, 7, 256, 4093] {
            let result = try Self.expectAgreement(bytes, fields: ReferenceMapping.fields, readBufferSize: size, "read size \(size)")
            #expect(result == reference, "read size \(size)")
        }
    }

    @Test func parallelChunksAgree() throws {
        let bytes = Self.damagedTweets(count: 200, seed: 9)
        let reference = try Self.expectAgreement(bytes, fields: ReferenceMapping.richFields)
        for (workers, chunk) in [(2, 1), (2, 5000), (3, 1 << 16)] {
            let result = try Self.expectAgreement(bytes, fields: ReferenceMapping.richFields, workers: workers, chunkSize: chunk, "\(workers) workers, chunks of \(chunk)")
            #expect(result == reference, "\(workers) workers, chunks of \(chunk)")
        }
    }

    /// The elements of a top-level array and of a wrapper document, read by the pipeline's workers: simdjson reads
    /// them one by one until one it cannot read, from which on yajl reads the chunk. Damage ends the run, as it must
    /// in a single value.
    @Test(arguments: [false, true])
    func arrayElementsAgree(_ isWrapped: Bool) throws {
        var generator = TweetGenerator(seed: 21)
        let records = (1...120).map { ordinal -> String in
            let record = generator.nextRecord(ordinal: ordinal)
            switch ordinal % 13 {
            case 3: return record.replacingOccurrences(of: "\"retweet_count\":", with: "\"retweet_count\":\"many\",\"x\":")
            case 5: return "42"
            case 7: return "\"a string\""
            case 9: return record.replacingOccurrences(of: "\"lang\":", with: "\"l\\u0061ng\":")
            default: return record
            }
        }
        let array = "[\n" + records.joined(separator: ",\n") + "\n]"
        let text = isWrapped ? "{\"meta\": {\"n\": 1}, \"data\": " + array + ", \"more\": [1, 2]}" : array
        let schemaOptions = MappingOptions(recordsPath: isWrapped ? "data" : nil)
        let clean = Array(text.utf8)
        let reference = try Self.expectAgreement(clean, fields: ReferenceMapping.fields, shape: isWrapped ? .automatic : .array, schemaOptions: schemaOptions)
        #expect(reference.rows.count > 90)
        for (workers, chunk) in [(2, 1), (2, 3000), (3, 1 << 16)] {
            let result = try Self.expectAgreement(clean, fields: ReferenceMapping.fields, shape: isWrapped ? .automatic : .array, workers: workers, chunkSize: chunk,
                                                  schemaOptions: schemaOptions, "\(workers) workers, chunks of \(chunk)")
            #expect(result == reference, "\(workers) workers, chunks of \(chunk)")
        }
        // Damage inside an element, and an array cut off: the records before it, then the run's end.
        for damaged in [text.replacingOccurrences(of: "\"favorited\":true", with: "\"favorited\":tru"), String(text.prefix(text.utf8.count * 2 / 3))] {
            for (workers, chunk) in [(2, 1), (2, 3000)] {
                try Self.expectAgreement(Array(damaged.utf8), fields: ReferenceMapping.fields, shape: isWrapped ? .automatic : .array, workers: workers, chunkSize: chunk,
                                         schemaOptions: schemaOptions, "damaged, \(workers) workers, chunks of \(chunk)")
            }
        }
    }

    @Test func realRecordsAgree() throws {
        let amazon = Array(try Data(contentsOf: GoldenTests.realData.appendingPathComponent("amazon_cellphones.ndjson")))
        let schema = try MappingSchema(contentsOfFile: GoldenTests.golden.appendingPathComponent("amazon.mapping.yaml").path)
        try Self.expectAgreement(amazon, fields: schema.fields)
        let tweets = Array(try Data(contentsOf: fixturesDirectory.appendingPathComponent("examples/tweets.ndjson")))
        let tweetSchema = try MappingSchema(contentsOfFile: fixturesDirectory.appendingPathComponent("examples/tweets.mapping.yaml").path)
        try Self.expectAgreement(tweets, fields: tweetSchema.fields)
        try Self.expectAgreement(tweets, fields: Self.wholeRecord)
    }

    /// Every JSONTestSuite document that fits on one line, as an NDJSON record captured whole: valid ones are
    /// mapped, invalid ones rejected, with the same words from both tokenizers.
    @Test func conformanceDocumentsAgree() throws {
        let directory = ConformanceTests.parsing
        var compared = 0
        for name in ConformanceTests.files(in: directory, prefix: "") {
            let bytes = Array(try Data(contentsOf: directory.appendingPathComponent(name)))
            guard !bytes.contains(0x0A), !bytes.contains(0x0D) else { continue }
            let result = try Self.expectAgreement(bytes, fields: Self.wholeRecord, name)
            if name.hasPrefix("y_") { #expect(result.rows.count == 1, "\(name): \(result)") }
            if name.hasPrefix("n_") && !bytes.allSatisfy({ ShapeDetector.isWhitespace($0) }) {
                #expect(result.rows.isEmpty, "\(name) was accepted: \(result)")
            }
            compared += 1
        }
        #expect(compared > 250)
    }

    /// Nesting past the limit inside a value no field reads: simdjson passes over such values unread, so the record
    /// goes to yajl, which counts the levels.
    @Test func nestingPastTheLimitInAnUnreadValueIsRejected() throws {
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        let text = "{\"id\": 1, \"deep\": \(deep)}\n{\"id\": 2}\n"
        var yajl = Self.options(.yajl)
        yajl.maximumDepth = 20
        var simdjson = Self.options(.simdjson)
        simdjson.maximumDepth = 20
        let fields = [field("id", .int64)]
        let expected = try transcript(of: text, fields: fields, options: yajl)
        #expect(expected.rejections.count == 1 && expected.rejections[0].contains("nesting"), "\(expected)")
        #expect(try transcript(of: text, fields: fields, options: simdjson) == expected)
    }

    /// A value simdjson would skip by counting brackets, but whose first token cannot start a value, or whose
    /// brackets leave the record open: passing over it would shift or swallow the rest of the record, so the record
    /// goes to yajl.
    @Test func skippedValuesThatBreakTheRecordsStructureGoToYajl() throws {
        let lines = [
            #"{"id":1,"x":}}"#, #"{"id":2,"x":]}"#, #"{"u":{"x":},"id":3}}"#, #"{"u":{"x":[},"id":4]}"#, #"{"a":,"id":5}"#,
            #"{"a":[1,{"b":"]"}],"id":6}"#, #"{"u":{"x":"a]"},"id":7}"#, #"{"a":[1,2,"id":8}"#, #"{"a":"x\"]","id":9}"#,
            #"{"u":{"x":[1,"id":10}}"#, #"{"a":{"b":1,"id":11}"#, #"{"a":[1]],"id":12}"#,
        ]
        let fields = [field("id", .int64, optional: true), field("uid", .int64, path: "u.id", optional: true)]
        let result = try Self.expectAgreement(Array((lines.joined(separator: "\n") + "\n").utf8), fields: fields)
        #expect(result.rows.count == 3, "\(result)")
        #expect(result.rejections.count == 9, "\(result)")
    }

    /// A value a field reads, or a scalar passed over, must end where its token does: simdjson's iterator moves past
    /// a scalar it was not asked to convert by counting brackets, which would swallow what follows it (`"p":{…}}`
    /// after an array's string, a second token after a value). Both tokenizers reject such records alike, and no
    /// json column ever holds text that is not JSON.
    @Test func whatFollowsAValueIsCheckedWhereverItIs() throws {
        let lines = [
            #"{"id":1,"extra":[{"x":1},"p":{"n":1}}]}"#, #"{"id":2,"extra":{"d":[[{"x":1},"p":{"n":1}}]]}}"#,
            #"{"id":3,"tags":["a","b":{"c":1}}]}"#, #"{"id":4,"skip":"x" : {"n":1}},"extra":2}"#, #"{"id":5,"skip":7 8,"extra":2}"#,
            #"{"id":6 , "extra" : [ 1 , "a" , {"b":[true,null]} ] , "skip" : "y" }"#,
        ]
        let fields = [field("id", .int64), field("extra", .json, optional: true), field("tags", .string, path: "tags.*", optional: true)]
        let result = try Self.expectAgreement(Array((lines.joined(separator: "\n") + "\n").utf8), fields: fields)
        #expect(result.rows.count == 1, "\(result)")
        #expect(result.rejections.count == 5, "\(result)")
    }

    /// The `$key` of a record that simdjson started and yajl read again is the record's own, and so are the keys of
    /// the records after it.
    @Test func recordKeysSurviveARecordReadAgain() throws {
        let text = #"{"data": {"k1": {"s": "\ud800"}, "k2": {"s": "b"}, "k3": {"s": "c\u0041"}, "k4": {"s": "d"}}}"#
        let fields = [field("key", .string, path: "$key"), field("s", .string)]
        for (workers, chunk) in [(2, 1), (2, 1 << 20)] {
            let result = try Self.expectAgreement(Array(text.utf8), fields: fields, shape: .automatic, workers: workers, chunkSize: chunk,
                                                  schemaOptions: MappingOptions(recordsPath: "data"), "\(workers) workers, chunks of \(chunk)")
            #expect(result.rows.map { $0.split(separator: " ").dropFirst().joined(separator: " ") }
                    == [#"key="k1" s="?""#, #"key="k2" s="b""#, #"key="k3" s="cA""#, #"key="k4" s="d""#], "\(result)")
        }
    }

    /// A header line with ill-formed UTF-8 is not a record: it gets yajl's verdict on the header, not a rejection.
    @Test func aHeaderLineIsNotRejectedForItsUTF8() throws {
        let bytes = Array(#"["a","b"#.utf8) + [0xC0, 0xAF] + Array("\"]\n[\"x\",\"y\"]\n".utf8)
        let fields = [field("a", .string, optional: true)]
        try Self.expectAgreement(bytes, fields: fields, schemaOptions: MappingOptions(columnsFromHeader: true))
    }

    // MARK: - The documented differences

    /// A malformed value no field reads (a bad literal, brackets of the wrong kind, a missing colon inside it): yajl
    /// rejects the record, simdjson passes over it.
    @Test(arguments: [#"{"id": 1, "flag": tru}"#, #"{"a": {"b": [}], "id": 1}"#, #"{"a": {"b" 1, "c"}, "id": 1}"#])
    func aMalformedUnreadValueIsPassedOverBySimdjsonOnly(_ line: String) throws {
        let text = line + "\n"
        let fields = [field("id", .int64)]
        let yajl = try transcript(of: text, fields: fields, options: Self.options(.yajl))
        let simdjson = try transcript(of: text, fields: fields, options: Self.options(.simdjson))
        #expect(yajl.rows.isEmpty && yajl.rejections.count == 1)
        #expect(simdjson.rows == ["#1@1:0 id=1"])
    }

    /// Ill-formed UTF-8 in a value no field reads: yajl maps the record, simdjson rejects it, naming the byte.
    @Test func illFormedUTF8InAnUnreadValueIsRejectedBySimdjsonOnly() throws {
        let bytes = Array("{\"id\": 1, \"note\": \"".utf8) + [0xC0, 0xAF] + Array("\"}\n{\"id\": 2}\n".utf8)
        let fields = [field("id", .int64)]
        let yajl = try transcript(of: .bytes(bytes), fields: fields, options: Self.options(.yajl))
        let simdjson = try transcript(of: .bytes(bytes), fields: fields, options: Self.options(.simdjson))
        #expect(yajl.rows.count == 2)
        #expect(simdjson.rows == ["#2@2:24 id=2"])
        #expect(simdjson.rejections == ["record 1 (line 1, byte 0): $: expected well-formed UTF-8, found text with ill-formed UTF-8 (C0 AF) at byte 19"], "\(simdjson)")
    }
}
