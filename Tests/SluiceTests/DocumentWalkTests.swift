import Testing
import SluiceFixtures
@testable import Sluice

/// One document is one record: read whole and walked by yajl's matched walk (whichever tokenizer is chosen, both
/// tried), it gives what yajl's events gave, for documents clean, failing, damaged, followed by another value, behind
/// blank lines or a byte order mark, scalar, empty and over the record size limit.
@Suite struct DocumentWalkTests {
    static var documents: [[UInt8]] {
        var generator = TweetGenerator(seed: 21)
        let tweet = generator.nextRecord(ordinal: 1)
        return [
            Array(tweet.utf8),
            Array(("\n\n  " + tweet + "\n \n").utf8),
            [0xEF, 0xBB, 0xBF] + Array(tweet.utf8),
            Array(tweet.replacingOccurrences(of: #""id":"#, with: #""id":"x","was":"#).utf8),
            Array(tweet.dropLast(5).utf8),
            Array((tweet + " {}").utf8),
            Array((tweet + " x").utf8),
            Array("42".utf8),
            Array("".utf8),
            Array("  \n".utf8),
            Array(#"{"id":1,"id_str":"1","text":"\u00e9"}"#.utf8),
        ]
    }

    @Test(arguments: [TokenizerChoice.simdjson, .yajl])
    func documentsAgree(_ tokenizer: TokenizerChoice) throws {
        for (index, document) in Self.documents.enumerated() {
            for (fieldsName, fields) in [("reference", ReferenceMapping.fields), ("rich", ReferenceMapping.richFields), ("whole", [field("record", .json, path: "$")])] {
                let matched = try MatchedWalkTests.run(document, fields, schemaOptions: MappingOptions(), workers: 1, chunkSize: 1 << 20,
                                                       tokenizer: tokenizer, shape: .document)
                EventWalkDigests.expect(matched, named: "documents/\(index), \(fieldsName), \(tokenizer)")
            }
        }
    }

    /// The documents yajl's walk reads whole go through it; only damaged ones go to its verdict.
    @Test func cleanDocumentsAreWalked() throws {
        let plan = try PlanCompiler.compile(ReferenceMapping.fields)
        for (index, document) in Self.documents.enumerated() {
            let engine = try MappingEngine(plan: plan, document: MemorySource(bytes: document), options: TokenizerDifferentialTests.options(.yajl, shape: .document))
            var rows = 0
            while let batch = try? engine.nextBatch() { rows += batch.count }
            // Walked whole: the clean ones, the one whose id fails, a scalar (which fails), one missing fields.
            #expect(engine.yajl.matchedRecords == ([0, 1, 2, 3, 7, 10].contains(index) ? 1 : 0), "document \(index)")
            #expect(rows == (index < 3 ? 1 : 0), "document \(index)")
        }
    }

    /// A read that fails while the document is read whole (a gzip member whose check fails at its end) comes where
    /// the stream would meet it: after the verdict on what was read before it.
    @Test(arguments: [#"{"id":1,"id_str":"1","x":tru }"#, #"{"id":1,"id_str":"1","text":"t"}"#])
    func aReadErrorComesWhereTheStreamMeetsIt(_ document: String) throws {
        var compressed = Compressor.gzip(Array((document + String(repeating: " ", count: 3000)).utf8))
        compressed[compressed.count - 6] ^= 0xFF
        let matched = try MatchedWalkTests.run(compressed, ReferenceMapping.fields, schemaOptions: MappingOptions(), workers: 1,
                                               chunkSize: 1 << 20, tokenizer: .yajl, shape: .document)
        EventWalkDigests.expect(matched, named: "a read error/\(document)")
        #expect(matched.transcript.error != nil)
    }

    /// Documents over the record size limit, or damaged before or after it, read in small pieces: rejected as too
    /// large, or failing for the damage the stream would have met first, as the events read them.
    @Test(arguments: [TokenizerChoice.simdjson, .yajl])
    func documentsNearTheLimitAgree(_ tokenizer: TokenizerChoice) throws {
        var generator = TweetGenerator(seed: 5)
        let tweet = generator.nextRecord(ordinal: 1)
        let damagedEarly = tweet.replacingOccurrences(of: #""id":"#, with: #""id":x"#)
        let damagedLate = String(tweet.dropLast()) + "]"
        let documents = [tweet, "  \n" + tweet, damagedEarly, damagedLate, tweet + " x", tweet + String(repeating: " ", count: 900) + "{}",
                         String(tweet.dropLast(3)), "\"" + String(repeating: "a", count: 1500) + "\"", "\"" + String(repeating: "a", count: 1500)]
        for (index, document) in documents.enumerated() {
            for limit in [64, 700, tweet.utf8.count - 1, tweet.utf8.count, 1 << 20] {
                for readBufferSize in [100, 4096] {
                    for schemaOptions in [MappingOptions(), MappingOptions(skippedRecords: 1)] {
                        var options = TokenizerDifferentialTests.options(tokenizer, shape: .document, readBufferSize: readBufferSize)
                        options.maximumRecordSize = limit
                        let schema = try MappingSchema(fields: ReferenceMapping.fields, options: schemaOptions)
                        let outcome = try MatchedWalkTests.outcome(of: Array(document.utf8), schema: schema, options: options)
                        EventWalkDigests.expect(outcome, named: "documents near the limit/\(index), limit \(limit), reads of \(readBufferSize), skipping \(schemaOptions.skippedRecords), \(tokenizer)")
                    }
                }
            }
        }
    }

    /// A document over the record size limit is rejected as too large, walked or not.
    @Test func aDocumentOverTheLimitIsRejected() throws {
        var options = TokenizerDifferentialTests.options(.simdjson, shape: .document)
        options.maximumRecordSize = 64
        let text = #"{"id":1,"id_str":"1","text":""# + String(repeating: "a", count: 200) + #""}"#
        let reader = try ColumnarReader(input: .bytes(Array(text.utf8)), schema: try MappingSchema(fields: ReferenceMapping.fields), options: options)
        let run = transcript(batchCapacity: options.batchCapacity, next: reader.next, statistics: { reader.statistics })
        #expect(run.rows.isEmpty && run.rejections.count == 1 && run.rejections.first?.contains("at most 64 bytes") == true, "\(run)")
    }
}
