import Foundation
import Testing
import SluiceFixtures
@testable import Sluice

/// A stream of concatenated values is cut into chunks at the ends of its values (``RecordFramer`` over values at the
/// top level) and mapped by the pipeline's workers. It must give exactly what one yajl stream of events over the
/// whole input gave, which is how such input was read before (``EventWalkDigests``): the same rows, rejections,
/// counts and unmapped keys, with one worker or several, either tokenizer, any chunk size, clean and damaged. One
/// difference is allowed, as lines have it: a damaged record fails for its damage alone.
@Suite struct ConcatenatedFramingTests {
    typealias Outcome = MatchedWalkTests.Outcome

    /// The stream cut into chunks by the reader and mapped by `workers`.
    static func framed(_ bytes: [UInt8], _ fields: [FieldSpec], _ schemaOptions: MappingOptions, tokenizer: TokenizerChoice,
                       workers: Int, chunkSize: Int, maximumRecordSize: Int = ReaderOptions().maximumRecordSize) throws -> Outcome {
        var options = TokenizerDifferentialTests.options(tokenizer, shape: .concatenated, workers: workers, chunkSize: chunkSize)
        options.maximumRecordSize = maximumRecordSize
        return try MatchedWalkTests.outcome(of: bytes, schema: try MappingSchema(fields: fields, options: schemaOptions), options: options)
    }

    /// Reads the stream with both tokenizers at several worker counts and chunk sizes and expects what one stream of
    /// yajl's events gave, recorded under `name`; returns yajl's reading with one worker.
    /// `simdjsonMayDiffer`: the input may be damaged inside a value no field reads, which simdjson passes over
    /// unchecked (docs/tokenizers.md); its readings must then agree among themselves, and with yajl's on the records
    /// before the first that yajl rejects.
    @discardableResult
    static func expectAgreement(_ bytes: [UInt8], fields: [FieldSpec] = ReferenceMapping.fields, schemaOptions: MappingOptions = MappingOptions(),
                                simdjsonMayDiffer: Bool = false, named name: String,
                                sourceLocation: SourceLocation = #_sourceLocation) throws -> Outcome {
        let reference = try framed(bytes, fields, schemaOptions, tokenizer: .yajl, workers: 1, chunkSize: 1 << 20)
        EventWalkDigests.expect(reference, named: "concatenated/\(name)", sourceLocation: sourceLocation)
        for tokenizer in [TokenizerChoice.yajl, .simdjson] {
            var expected = reference
            for (workers, chunkSize) in [(1, 1 << 20), (1, 1), (2, 300), (3, 2_000)] {
                let result = try framed(bytes, fields, schemaOptions, tokenizer: tokenizer, workers: workers, chunkSize: chunkSize)
                if tokenizer == .simdjson && simdjsonMayDiffer && workers == 1 && chunkSize == 1 << 20 {
                    // The rows before yajl's first rejection (`record N (line …`) are simdjson's too.
                    let firstRejected = reference.transcript.rejections.first.flatMap { Int($0.split(separator: " ")[1]) } ?? .max
                    let agreed = reference.transcript.rows.prefix { row in Int(row.dropFirst().prefix { $0 != "@" }).map { $0 < firstRejected } ?? false }
                    #expect(agreed.count > 0 || firstRejected <= 2, "\(name)", sourceLocation: sourceLocation)
                    #expect(Array(result.transcript.rows.prefix(agreed.count)) == Array(agreed), "\(name)", sourceLocation: sourceLocation)
                    expected = result
                }
                #expect(result == expected, "\(name)\n\(tokenizer), \(workers) workers, chunks of \(chunkSize)\nexpected:\n\(expected)\nframed:\n\(result)",
                        sourceLocation: sourceLocation)
            }
        }
        return reference
    }

    /// Generated tweets as a stream, apart in every way yajl allows: not at all, by spaces, tabs and line ends, some
    /// pretty-printed over many lines, with scalars among them.
    static func stream(count: Int, seed: UInt64) -> [UInt8] {
        var generator = TweetGenerator(seed: seed)
        let separators = ["", " ", "\n", "\r\n\t", "\n\n  "]
        var text = ""
        for ordinal in 1...count {
            var record = generator.nextRecord(ordinal: ordinal)
            switch ordinal % 11 {
            case 3: record = record.replacingOccurrences(of: ",\"", with: ",\n  \"")
            case 5: record = "42"
            case 7: record = "\"text\""
            case 9: record = "[" + record + ",null]"
            default: break
            }
            text += record + separators[(ordinal * 7 + Int(seed)) % separators.count]
        }
        return Array(text.utf8)
    }

    @Test(arguments: [ReferenceMapping.fields, ReferenceMapping.richFields])
    func cleanStreamsAgree(_ fields: [FieldSpec]) throws {
        let reference = try Self.expectAgreement(Self.stream(count: 60, seed: 3), fields: fields, named: "clean, \(fields.count) fields")
        #expect(reference.transcript.rows.count > 40)
        #expect(reference.transcript.error == nil)
    }

    @Test func strictMappingsAndWholeRecordsAgree() throws {
        try Self.expectAgreement(Self.stream(count: 40, seed: 5), schemaOptions: MappingOptions(unmappedKeys: .reject), named: "strict")
        try Self.expectAgreement(Self.stream(count: 40, seed: 6), fields: ReferenceMapping.fields + [field("record", .json, path: "$")], named: "whole records")
        try Self.expectAgreement(Self.stream(count: 40, seed: 7), schemaOptions: MappingOptions(skippedRecords: 4), named: "passing over 4")
    }

    /// Values that touch: yajl's lexer ends a number or literal where it can go on no further (`01` is two values).
    @Test func valuesThatTouchAgree() throws {
        let whole = [field("value", .json, path: "$", optional: true)]
        for text in ["01", "1 2", "truefalse", "nullnull", "1\"x\"", "\"x\"1", "{}[]", "[]{}", "1{}", "-1.5e3[1]", "0.5 ", "  7", "{\"a\":1}2",
                     "tru", "1.", "-", "01.5", "1e", "\"open", "{\"a\":", "[1,2", "", "   \n  ", "\u{FEFF}{\"id\":1}", "1 ]", "1,2", "{\"a\":1},{\"a\":2}",
                     "12\u{0C}", "{\"a\":1}12\u{0B}", "1\u{0C}2", "{}\u{0C}{}", "\"x\"\u{0C}"] {
            try Self.expectAgreement(Array(text.utf8), fields: whole, named: "touching: \(text)")
        }
    }

    /// Damage at many places: a byte replaced, a byte inserted, the stream cut off. Whatever one stream made of it
    /// (records before it mapped, then a rejection and the end of the run), the framed stream makes of it too.
    @Test func damagedStreamsAgree() throws {
        let clean = Self.stream(count: 12, seed: 9)
        let bytes: [UInt8] = Array("}],:\"x{[0\\ \n".utf8) + [0x0C, 0x0B, 0xFF, 0x00]
        var random = SplitMix(seed: 21)
        for round in 0..<48 {
            var damaged = clean
            let at = Int(random.next() % UInt64(clean.count))
            let byte = bytes[Int(random.next() % UInt64(bytes.count))]
            switch round % 3 {
            case 0: damaged[at] = byte
            case 1: damaged.insert(byte, at: at)
            default: damaged.removeSubrange(at...)
            }
            try Self.expectAgreement(damaged, simdjsonMayDiffer: true, named: "damaged round \(round): \(round % 3 == 2 ? "cut" : "byte \(byte)") at \(at)")
        }
    }

    /// Records passed over and header rows, which no walk reads: passed over unread when whole, and
    /// a damaged one ends the run as one stream ends it; rows read by the header's names.
    @Test func headerRowsAndSkippedRecordsAgree() throws {
        let fields = [field("id", .int64), field("name", .string, optional: true)]
        let scalarHeader = "5\n" + #"[1, "a"]"#
        try Self.expectAgreement(Array(scalarHeader.utf8), fields: fields, schemaOptions: MappingOptions(columnsFromHeader: true), named: "scalar header")
        let rows = [#"{"title": "people"}"#, #"["id", "name"]"#, #"[1, "a"]"#, "[2,\n \"b\"]", #"[3]"#, #"[4, "d", "extra"]"#]
        for separator in ["\n", " ", ""] {
            let text = rows.joined(separator: separator)
            try Self.expectAgreement(Array(text.utf8), fields: fields, schemaOptions: MappingOptions(skippedRecords: 1, columnsFromHeader: true), named: "header: \(text)")
            try Self.expectAgreement(Array(text.utf8), fields: fields, schemaOptions: MappingOptions(skippedRecords: 3), named: "passing over 3: \(text)")
            let damagedHeader = text.replacingOccurrences(of: #"["id", "name"]"#, with: #"["id", "na\qme"]"#)
            try Self.expectAgreement(Array(damagedHeader.utf8), fields: fields, schemaOptions: MappingOptions(skippedRecords: 1, columnsFromHeader: true), named: "damaged header: \(damagedHeader)")
            let notAHeader = text.replacingOccurrences(of: #"["id", "name"]"#, with: #"{"id": 1}"#)
            try Self.expectAgreement(Array(notAHeader.utf8), fields: fields, schemaOptions: MappingOptions(skippedRecords: 1, columnsFromHeader: true), named: "not a header: \(notAHeader)")
            let damagedSkipped = text.replacingOccurrences(of: #""people""#, with: #""peo\qple""#)
            try Self.expectAgreement(Array(damagedSkipped.utf8), fields: fields, schemaOptions: MappingOptions(skippedRecords: 1, columnsFromHeader: true), named: "damaged, passed over: \(damagedSkipped)")
        }
    }

    /// A damaged record after a number or word (whose element ends with the whitespace after it) fails for its
    /// damage alone, as after any other record, whatever the chunk size.
    @Test func damageAfterAScalarFailsForItsDamageAlone() throws {
        let fields = [field("id", .int64), field("name", .string, optional: true)]
        for text in [#"42 {"id":"x","zz":1,"#, #"{"id":1} {"id":"x","zz":1,"#, #"true {"id":"x","zz":1,"name":tru}"#, #""s" {"id":"x","zz":1] "#] {
            let outcome = try Self.expectAgreement(Array(text.utf8), fields: fields, named: "damage after a scalar: \(text)")
            #expect(outcome.transcript.rejections.last?.contains("$.id") == false, "\(text): \(outcome)")
        }
    }

    /// Damage right after an element, which a chunk may begin with: the bytes shown near it are the same whatever
    /// the chunks (a chunk does not hold the element before it).
    @Test(arguments: [InputShape.array, .concatenated])
    func damageRightAfterAnElementReadsTheSameWithAnyChunks(_ shape: InputShape) throws {
        let text = shape == .array ? #"["asin","brand"/dp/x",3]"# : #""asin" "brand"/dp/x" 3"#
        let fields = [field("value", .json, path: "$")]
        let reference = try Self.framed(Array(text.utf8), fields, MappingOptions(), tokenizer: .yajl, workers: 1, chunkSize: 1 << 20)
        #expect(reference.transcript.error?.contains("probable comment") == true, "\(reference)")
        for tokenizer in [TokenizerChoice.yajl, .simdjson] {
            for (workers, chunkSize) in [(1, 1 << 20), (2, 1), (2, 4), (3, 7)] {
                let result = try Self.framed(Array(text.utf8), fields, MappingOptions(), tokenizer: tokenizer, workers: workers, chunkSize: chunkSize)
                #expect(result == reference, "\(tokenizer), \(workers) workers, chunks of \(chunkSize):\n\(result)\nagainst\n\(reference)")
            }
        }
    }

    /// Records nested past the limit and records over the size limit end the run where one stream ends it.
    @Test func limitsAgree() throws {
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        try Self.expectAgreement(Array(("{\"id\":1} " + deep + " {\"id\":2}").utf8), named: "too deep")
        let big = "{\"id\":3,\"text\":\"" + String(repeating: "b", count: 8000) + "\"}"
        let input = Array(("{\"id\":1}\n" + big + "\n{\"id\":2}").utf8)
        for (tokenizer, workers, chunkSize) in [(TokenizerChoice.yajl, 1, 1 << 20), (.simdjson, 2, 1000)] {
            let framed = try Self.framed(input, ReferenceMapping.fields, MappingOptions(), tokenizer: tokenizer, workers: workers, chunkSize: chunkSize, maximumRecordSize: 4096)
            EventWalkDigests.expect(framed, named: "concatenated/too large")
            #expect(framed.transcript.error != nil)
        }
    }

    /// Elements that simdjson finds not UTF-8 go to yajl's walk, which reads past ill-formed UTF-8 in values no
    /// field reads (and checks mapped text); scalar elements of an array allowed one level of nesting are walked
    /// though no container may open in them. Both as yajl's events read them, in arrays and streams of values.
    @Test(arguments: [InputShape.array, .concatenated])
    func elementsNotUTF8AndShallowArraysAgree(_ shape: InputShape) throws {
        let elements: [[UInt8]] = [Array(#"{"id":1,"id_str":"1","text":"ok"}"#.utf8),
                                   Array(#"{"id":2,"id_str":"2","text":"ok","source":""#.utf8) + [0xC0, 0x80] + Array(#""}"#.utf8),
                                   Array(#"{"id":3,"id_str":"3","text":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8),
                                   Array("4".utf8), Array(#""five""#.utf8), Array("null".utf8), Array(#"{"id":7,"user":{"id":1}}"#.utf8)]
        let input = shape == .array ? Array("[".utf8) + Array(elements.joined(separator: Array(",".utf8))) + Array("]".utf8)
            : Array(elements.joined(separator: Array(" ".utf8)))
        // An overlong encoding and a surrogate, which yajl lets through and simdjson does not.
        let fields = [field("id", .int64, optional: true), field("text", .string, optional: true)]
        for maximumDepth in [1, 2, 64] {
            for tokenizer in [TokenizerChoice.simdjson, .yajl] {
                for (workers, chunkSize) in [(1, 1 << 20), (2, 40)] {
                    var options = TokenizerDifferentialTests.options(tokenizer, shape: shape, workers: workers, chunkSize: chunkSize)
                    options.maximumDepth = maximumDepth
                    let outcome = try MatchedWalkTests.outcome(of: input, schema: try MappingSchema(fields: fields), options: options)
                    EventWalkDigests.expect(outcome, named: "not UTF-8/\(shape), depth \(maximumDepth), \(tokenizer), \(workers) workers")
                    // The record whose ill-formed bytes no field reads is mapped; the one whose text holds them is not;
                    // the last nests two levels deep (three with an array's own).
                    let mapped = outcome.transcript.rows.map { String($0.prefix(3)) }
                    #expect(Array(mapped.prefix(2)) == ["#1@", "#2@"] && (mapped.last == "#7@") == (maximumDepth > (shape == .array ? 2 : 1)),
                            "\(outcome)")
                }
            }
        }
    }

    /// A stream of pretty-printed values now gets every worker: its records come in order, numbered as one reader
    /// numbers them, and the chunks hold many records each.
    @Test func severalWorkersShareAStream() throws {
        let bytes = Self.stream(count: 400, seed: 13)
        let reference = try Self.framed(bytes, ReferenceMapping.fields, MappingOptions(), tokenizer: .yajl, workers: 1, chunkSize: 1 << 20)
        EventWalkDigests.expect(reference, named: "concatenated/shared by workers")
        for workers in [2, 4] {
            let result = try Self.framed(bytes, ReferenceMapping.fields, MappingOptions(), tokenizer: .simdjson, workers: workers, chunkSize: 16 << 10)
            #expect(result == reference, "\(workers) workers")
        }
    }
}
