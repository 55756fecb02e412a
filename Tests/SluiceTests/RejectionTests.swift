import Testing
@testable import Sluice

/// One test per error kind, with its exact message, location and raw text.
@Suite struct RejectionTests {
    let fields = [field("id", .int64), field("name", .string, path: "user.name", optional: true)]

    func rejections(_ text: String, options: ReaderOptions = ReaderOptions(rejectionPolicy: .collect)) throws -> RunTranscript {
        try transcript(of: text, fields: fields, options: options)
    }

    @Test func typeMismatch() throws {
        let result = try rejections("{\"id\":1}\n{\"id\":\"abc\",\"user\":{\"name\":[1]}}\n")
        #expect(result.rejections == [#"record 2 (line 2, byte 9): $.id: expected int64, found string "abc"; $.user.name: expected string, found an array"#])
        #expect(result.rawTexts == [#"{"id":"abc","user":{"name":[1]}}"#])
    }

    @Test func outOfRange() throws {
        let result = try rejections("{\"id\":18446744073709551616}\n")
        #expect(result.rejections == ["record 1 (line 1, byte 0): $.id: expected int64 (within ±9223372036854775807), found number 18446744073709551616"])
    }

    @Test func missing() throws {
        let result = try rejections("{\"user\":{\"name\":\"x\"}}\n")
        #expect(result.rejections == ["record 1 (line 1, byte 0): $.id: expected int64, found no value"])
    }

    @Test func null() throws {
        let result = try rejections("  {\"id\":null}\n")
        #expect(result.rejections == ["record 1 (line 1, byte 2): $.id: expected int64, found null"])
        #expect(result.rawTexts == ["{\"id\":null}"])
    }

    @Test func malformedJSONOnALineRejectsThatLineOnly() throws {
        let result = try rejections("{\"id\":1}\n{\"id\":2,,}\n{\"id\":3}\n")
        #expect(result.rows.count == 2)
        #expect(result.rejections == [#"record 2 (line 2, byte 9): $: expected well-formed JSON, found parse error: invalid object key (must be a string) near "{\"id\":2,,}" at byte 18"#])
        #expect(result.rawTexts == ["{\"id\":2,,}"])
    }

    @Test func truncatedLine() throws {
        let result = try rejections("{\"id\":1,\"user\":{\"name\":\"x\"\n{\"id\":2}", options: ReaderOptions(shape: .ndjson, rejectionPolicy: .collect))
        #expect(result.rejections == ["record 1 (line 1, byte 0): $: expected the rest of the record, found the end of the line at byte 26"])
        #expect(result.rows == ["#2@2:27 id=2 name=null"])
    }

    @Test func extraValueOnALine() throws {
        let result = try rejections("{\"id\":1} {\"id\":2}\n", options: ReaderOptions(shape: .ndjson, rejectionPolicy: .collect))
        #expect(result.rejections == ["record 1 (line 1, byte 0): $: expected one JSON value per line, found another value after it at byte 10"])
        #expect(result.rawTexts == ["{\"id\":1} {\"id\":2}"])
    }

    /// Text that is not well-formed UTF-8 (yajl lets overlong forms, encoded surrogates, code points above
    /// U+10FFFF and lead bytes F5–F7 through) is never written: its record is rejected, naming where it was read, in
    /// a string, a json value's keys, a list's elements and a transform's input.
    @Test func invalidUTF8() throws {
        let lines: [[UInt8]] = [
            Array(#"{"s":"caf\#u{E9} \#u{1D11E}"}"#.utf8),
            Array(#"{"s":""#.utf8) + [0xE0, 0x80, 0x80] + Array(#""}"#.utf8),
            Array(#"{"s":"a"#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8),
            Array(#"{"j":{""#.utf8) + [0xF0, 0x80, 0x80, 0x80] + Array(#"":1}}"#.utf8),
            Array(#"{"l":["a",""#.utf8) + [0xF5, 0x80, 0x80, 0x80] + Array(#""]}"#.utf8),
            Array(#"{"t":""#.utf8) + [0xF4, 0x90, 0x80, 0x80] + Array(#""}"#.utf8),
            Array(#"{"s":"\uDd1e"}"#.utf8),
        ]
        let bytes = Array(lines.joined(separator: [0x0A]))
        var upper = field("t", .string, optional: true)
        upper.transform = ValueTransform(name: "upper") { value in
            guard case .string(let text) = value else { return value }
            return .string(text.uppercased())
        }
        let fields = [field("s", .string, optional: true), field("j", .json, optional: true), field("l", .string, path: "l.*", optional: true), upper]
        let result = try transcript(of: .bytes(bytes, name: "utf8.ndjson"), fields: fields, options: ReaderOptions(rejectionPolicy: .collect))
        #expect(result.rows.count == 1)
        #expect(result.rejections == [
            "record 2 (line 2, byte 19): $.s: expected well-formed UTF-8, found text with ill-formed UTF-8 (E0 80 80) at byte 0 of it",
            "record 3 (line 3, byte 31): $.s: expected well-formed UTF-8, found text with ill-formed UTF-8 (ED A0 80) at byte 1 of it",
            "record 4 (line 4, byte 44): $.j: expected well-formed UTF-8, found text with ill-formed UTF-8 (F0 80 80 80) at byte 2 of it",
            "record 5 (line 5, byte 61): $.l.*: expected well-formed UTF-8, found text with ill-formed UTF-8 (F5 80 80 80) at byte 0 of it",
            "record 6 (line 6, byte 80): $.t: expected well-formed UTF-8, found text with ill-formed UTF-8 (F4 90 80 80) at byte 0 of it",
            "record 7 (line 7, byte 93): $.s: expected well-formed UTF-8, found text with ill-formed UTF-8 (ED B4 9E) at byte 0 of it",
        ])
    }

    @Test func nestingTooDeep() throws {
        var options = ReaderOptions(rejectionPolicy: .collect)
        options.maximumDepth = 3
        let result = try rejections("{\"id\":1,\"x\":[[1]]}\n{\"id\":2,\"x\":[[[1]]]}\n", options: options)
        #expect(result.rejections == ["record 2 (line 2, byte 19): $: expected at most 3 levels of nesting, found deeper nesting at byte 34"])
        #expect(result.rows == ["#1@1:0 id=1 name=null"])
    }

    @Test func oversizedLineIsRejectedAndReadingGoesOn() throws {
        var options = ReaderOptions(readBufferSize: 4, rejectionPolicy: .collect)
        options.maximumRecordSize = 16
        let result = try rejections("{\"id\":1}\n{\"id\":2,\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxx\"}\n{\"id\":3}\n", options: options)
        #expect(result.rows.map { $0.components(separatedBy: " ")[1] } == ["id=1", "id=3"])
        #expect(result.rejections.count == 1)
        #expect(result.rejections.first?.hasPrefix("record 2 (line 2, byte 9): $: expected at most 16 bytes, found a longer line") == true)
        #expect(result.rawTexts == [#"{"id":2,"pad":"x"#])
        #expect(result.statistics.recordsRead == 3)
        for readSize in [1, 7, 17, 1 << 20] {
            var other = options
            other.readBufferSize = readSize
            #expect(try rejections("{\"id\":1}\n{\"id\":2,\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxx\"}\n{\"id\":3}\n", options: other) == result, "read size \(readSize)")
        }
    }

    /// The framer shows only the offending byte, since what else is in view depends on where its chunks end; one
    /// worker reads the array through the same framer, so it says the same.
    @Test(arguments: [1, 2])
    func malformedInsideAnArrayEndsTheStreamAfterDeliveringWhatCameBefore(_ workers: Int) throws {
        let expected = #"record 3 (line 2, byte 21): $: expected well-formed JSON, found parse error: after array element, I expect ',' or ']' near "{" at byte 22"#
        let options = ReaderOptions(shape: .array, rejectionPolicy: .collect, workers: workers)
        let result = try rejections("[{\"id\":1},\n {\"id\":2} {\"id\":3}]", options: options)
        #expect(result.rows.count == 2)
        #expect(result.rejections == [expected])
        #expect(result.error == "<memory>: cannot read past rejected " + (result.rejections.first ?? ""))
    }

    /// One thread's state machine and the pipeline's framer say it in the same words, and point past the whole
    /// token even when it runs past a chunk.
    @Test(arguments: [("{\"id\":1}", 1), ("42 ", 2), ("\"\"", 2), ("\"a long string\" ", 15), ("true", 4)])
    func aTopLevelValueThatIsNotAnArrayInArrayShape(_ text: String, tokenEnd: Int) throws {
        let result = try expectSameForEveryPipeline { workers, chunk, capacity in
            var options = ReaderOptions(shape: .array, batchCapacity: capacity, rejectionPolicy: .collect, workers: workers)
            options.chunkSize = chunk
            return try rejections(text, options: options)
        }
        #expect(result.rejections == ["record 1 (line 1, byte 0): $: expected a top-level array of records, found a value that is not an array at byte \(tokenEnd)"])
        #expect(result.error != nil)
    }

    /// What a syntax error shows starts at the record's first byte, never the whitespace before it, which one
    /// reader holds and another, whose chunk began at the record, does not.
    @Test func aSyntaxErrorShowsNoWhitespaceBeforeTheRecord() throws {
        let text = "[\n  {\"id\":1,\"profi\u{12}e\":2},\n  {\"id\":2}]"
        let result = try expectSameForEveryPipeline { workers, chunk, capacity in
            var options = ReaderOptions(shape: .array, batchCapacity: capacity, rejectionPolicy: .collect, workers: workers)
            options.chunkSize = chunk
            return try rejections(text, options: options)
        }
        #expect(result.rejections == [#"record 1 (line 2, byte 4): $: expected well-formed JSON, found lexical error: invalid character inside string near "{\"id\":1,\"profi" at byte 18"#])
    }

    /// A backslash outside any string (malformed input, here inside a value no field reads, which simdjson passes
    /// over) escapes the next byte for the array framer whether it scans 64 bytes at a time or byte by byte, so
    /// every chunk size ends the element at the same place.
    @Test func aBackslashOutsideAStringFramesAlikeForEveryChunkSize() throws {
        let padding = String(repeating: "a", count: 80)
        let text = "[\n  {\"id\":1,\"p\":{\"t\":\"\(padding)\" q \\\"r\\\" \"}]}\"},\"s\":\"\(padding)\"},\n  {\"id\":2}\n]"
        // Small chunks leave the framer fewer than 64 bytes at a time in places: it goes byte by byte there.
        var options = ReaderOptions(shape: .array, rejectionPolicy: .collect)
        options.tokenizer = .simdjson
        let whole = try rejections(text, options: options)
        #expect(whole.rows.count == 2 && whole.error == nil)
        for chunk in 1...80 {
            (options.workers, options.chunkSize, options.batchCapacity) = (3, chunk, 3)
            #expect(try rejections(text, options: options) == whole, "chunks of \(chunk)")
        }
    }

    @Test func truncatedArray() throws {
        let result = try rejections("[{\"id\":1},{\"id\":", options: ReaderOptions(shape: .array, rejectionPolicy: .collect))
        #expect(result.rows.count == 1)
        #expect(result.rejections == ["record 2 (line 1, byte 10): $: expected the rest of the record, found the end of the input at byte 16"])
    }

    @Test func oversizedRecordInAStreamEndsIt() throws {
        var options = ReaderOptions(shape: .array, readBufferSize: 4, rejectionPolicy: .collect)
        options.maximumRecordSize = 16
        let result = try rejections("[{\"id\":1},{\"id\":2,\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxx\"}]", options: options)
        #expect(result.rows.count == 1)
        #expect(result.rejections == ["record 2 (line 1, byte 10): $: expected at most 16 bytes, found a longer record at byte 10"])
        #expect(result.rawTexts == [#"{"id":2,"pad":"x"#])
        #expect(result.error == "<memory>: cannot read past rejected " + (result.rejections.first ?? ""))
    }

    @Test func oversizedRecordGivesTheSameRejectionWhateverTheReadSize() throws {
        var outcomes: Set<String> = []
        for readSize in [1, 3, 16, 17, 64, 1 << 20] {
            var options = ReaderOptions(shape: .array, readBufferSize: readSize, rejectionPolicy: .collect)
            options.maximumRecordSize = 16
            let result = try rejections("[{\"id\":1} , {\"id\":2,\"user\":{\"name\":\"xxxxxxxxxx\"}},{\"id\":3}]", options: options)
            outcomes.insert(result.description + "|" + result.rawTexts.joined())
        }
        #expect(outcomes.count == 1, "\(outcomes)")
    }

    @Test func stopPolicyThrowsAtTheFirstRejectionAfterTheRecordsBeforeIt() throws {
        let result = try rejections("{\"id\":1}\n{\"id\":\"x\"}\n{\"id\":3}\n", options: ReaderOptions(rejectionPolicy: .stop))
        #expect(result.rows == ["#1@1:0 id=1 name=null"])
        #expect(result.error == #"rejected record 2 (line 2, byte 9): $.id: expected int64, found string "x""#)
        #expect(result.statistics.recordsRead == 2)
    }

    @Test func stopPolicyInAStream() throws {
        let result = try rejections("[{\"id\":1},{\"id\":true},{\"id\":3}]", options: ReaderOptions(rejectionPolicy: .stop))
        #expect(result.rows == ["#1@1:1 id=1 name=null"])
        #expect(result.error == "rejected record 2 (line 1, byte 10): $.id: expected int64, found true")
    }

    @Test func unreadableFile() throws {
        #expect(throws: SluiceError.self) {
            _ = try ColumnarReader(input: .file("/nonexistent/dump.ndjson"), schema: try MappingSchema(fields: fields))
        }
        do {
            _ = try ColumnarReader(input: .file("/"), schema: try MappingSchema(fields: fields))
        } catch {
            #expect(error.description == "/: read error at byte 0: cannot read: it is a directory")
        }
    }
}

