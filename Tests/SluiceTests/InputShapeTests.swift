import Testing
@testable import Sluice

@Suite struct InputShapeTests {
    let fields = [field("id", .int64)]

    func detect(_ text: String) -> InputShape {
        Array(text.utf8).withUnsafeBufferPointer { ShapeDetector.detect($0) }
    }

    @Test(arguments: [
        ("{\"id\":1}\n{\"id\":2}\n", InputShape.ndjson),
        ("{\"id\":1}", .ndjson),
        ("", .ndjson),
        ("   \n", .ndjson),
        ("[{\"id\":1},{\"id\":2}]", .array),
        ("[\n  {\"id\": 1},\n  {\"id\": 2}\n]\n", .array),
        ("[{\"id\":1}", .array),
        ("[\"a\",1]\n[\"b\",2]\n", .ndjson),
        ("{\"id\":1}{\"id\":2}", .concatenated),
        ("{\"id\":1} {\"id\":2}\n", .concatenated),
        ("{\n  \"id\": 1\n}\n{\n  \"id\": 2\n}\n", .concatenated),
        ("{\"id\":1}\n{\n \"id\":2}\n", .ndjson),
        ("{\"id\":1}\n{\"id\":2\n{\"id\":3}\n", .ndjson),
        ("[1]\n[2] [3]", .ndjson),
        ("{\"s\":\"}\\\"{[\"}\n{\"id\":2}\n", .ndjson),
        ("\"just a string\"\n", .ndjson),
        // A first line that cannot go on as an array: NDJSON whose first line is cut off.
        ("[\"id\",\"name\"\n[1,\"a\"]\n", .ndjson),
        ("[{\"id\":1}\n{\"id\":2}]", .ndjson),
        // Arrays whose first line ends at a separator, or whose next line starts with one.
        ("[{\"id\":1},\n{\"id\":2}]", .array),
        ("[{\"id\":1}\n,{\"id\":2}\n]", .array),
        ("[{\"id\":1}\n]", .array),
        ("[ \n {\"id\":1}]", .array),
    ])
    func detectsTheShape(_ text: String, _ expected: InputShape) {
        #expect(detect(text) == expected, "\(text.debugDescription)")
    }

    @Test func ndjsonAllowsBlankLinesCRLFAndALastLineWithoutLineFeed() throws {
        let result = try transcript(of: "\n{\"id\":1}\r\n\r\n   \n\t{\"id\":2}  \r\n{\"id\":3}", fields: fields)
        #expect(result.rows == ["#1@2:1 id=1", "#2@5:18 id=2", "#3@6:30 id=3"])
        #expect(result.statistics.shape == .ndjson)
    }

    @Test func aByteOrderMarkIsSkippedButCountsInOffsets() throws {
        let result = try transcript(of: .bytes([0xEF, 0xBB, 0xBF] + Array("{\"id\":1}\n{\"id\":2}\n".utf8)), fields: fields)
        #expect(result.rows == ["#1@1:3 id=1", "#2@2:12 id=2"])
        let array = try transcript(of: .bytes([0xEF, 0xBB, 0xBF] + Array("[{\"id\":1}]".utf8)), fields: fields)
        #expect(array.rows == ["#1@1:4 id=1"])
    }

    @Test func aLastNumberWithoutLineFeedIsComplete() throws {
        let result = try transcript(of: "{\"id\":1}\n7", fields: [field("v", .int64, path: "$")], options: ReaderOptions(shape: .ndjson, rejectionPolicy: .collect))
        #expect(result.rejections == ["record 1 (line 1, byte 0): $: expected int64, found an object"])
        #expect(result.rows == ["#2@2:9 v=7"])
    }

    @Test func arrayElementsKnowTheirLinesAndOffsets() throws {
        let text = "[\n  {\"id\": 1},\n  {\n    \"id\": 2\n  }, {\"id\":3}\n]\n"
        let result = try transcript(of: text, fields: fields)
        #expect(result.statistics.shape == .array)
        #expect(result.rows == ["#1@2:4 id=1", "#2@3:17 id=2", "#3@5:36 id=3"])
    }

    @Test func anEmptyArrayHasNoRecords() throws {
        let result = try transcript(of: " [ ] ", fields: fields)
        #expect(result.rows.isEmpty && result.rejections.isEmpty && result.error == nil)
    }

    @Test func garbageAfterTheArrayIsAnError() throws {
        let result = try transcript(of: "[{\"id\":1}] x", fields: fields, options: ReaderOptions(shape: .array, rejectionPolicy: .collect))
        #expect(result.rows == ["#1@1:1 id=1"])
        #expect(result.rejections == [#"record 2 (line 1, byte 11): $: expected well-formed JSON, found parse error: trailing garbage near "x" at byte 12"#])
        #expect(result.error != nil)
    }

    /// yajl holds a string or literal cut off at the end of a stream of values and says nothing at its end.
    @Test(arguments: [#"{"id":1} "ab"#, "{\"id\":1}\ntru", "{\"id\":1} nul"])
    func aValueCutOffAtTheEndOfConcatenatedInputIsTruncated(_ text: String) throws {
        let result = try transcript(of: text, fields: [field("v", .json, path: "$")], options: ReaderOptions(shape: .concatenated, rejectionPolicy: .collect))
        #expect(result.rows.count == 1)
        #expect(result.rejections.count == 1 && result.rejections[0].contains("record 2"), "\(result)")
        #expect(result.error != nil)
    }

    /// An empty (or blank) input declared an array holds no records, however many workers read it: one reader
    /// once called it truncated, several found nothing.
    @Test(arguments: ["", "  \n ", "\n"], [1, 2, 3])
    func anEmptyArrayInputHoldsNoRecordsForEveryWorkerCount(_ text: String, workers: Int) throws {
        let result = try transcript(of: text, fields: fields, options: ReaderOptions(shape: .array, rejectionPolicy: .collect, workers: workers))
        #expect(result.rows.isEmpty && result.rejections.isEmpty && result.error == nil, "\(result)")
    }

    /// A bare value where an array was declared (`42`, `"ab`, `tru`, which yajl holds at the end without a word) is
    /// not an empty input: the run fails, with one worker as with several.
    @Test(arguments: ["42", "\"ab", "tru", " 42 "], [1, 2])
    func aBareValueDeclaredAnArrayIsNotEmpty(_ text: String, workers: Int) throws {
        let result = try transcript(of: text, fields: fields, options: ReaderOptions(shape: .array, rejectionPolicy: .collect, workers: workers))
        #expect(result.rows.isEmpty)
        #expect(result.error != nil || !result.rejections.isEmpty, "\(result)")
    }

    @Test func concatenatedValuesMayBePrettyPrintedAndShareLines() throws {
        let text = "{\n  \"id\": 1\n}\n{\"id\":2}{\"id\":3}\n\n  {\n\"id\":4}"
        let result = try transcript(of: text, fields: fields)
        #expect(result.statistics.shape == .concatenated)
        #expect(result.rows == ["#1@1:0 id=1", "#2@4:14 id=2", "#3@4:22 id=3", "#4@6:34 id=4"])
    }

    @Test func documentIsOneRecordAndTrailingContentRejectsIt() throws {
        let ok = try transcript(of: "\n {\"id\": 5}\n", fields: fields, options: ReaderOptions(shape: .document, rejectionPolicy: .collect))
        #expect(ok.rows == ["#1@2:2 id=5"])
        let trailing = try transcript(of: "{\"id\": 5} {}", fields: fields, options: ReaderOptions(shape: .document, rejectionPolicy: .collect))
        #expect(trailing.rows.isEmpty)
        #expect(trailing.rejections.count == 1)
        let empty = try transcript(of: "  ", fields: fields, options: ReaderOptions(shape: .document, rejectionPolicy: .collect))
        #expect(empty.rejections == ["record 1 (line 1, byte 2): $: expected a JSON value, found no value at byte 2"])
    }

    @Test func scalarRecordsMapThroughTheRootPath() throws {
        let result = try transcript(of: "1\n2\n\"x\"\n", fields: [field("v", .int64, path: "$")])
        #expect(result.rows == ["#1@1:0 v=1", "#2@2:2 v=2"])
        #expect(result.rejections == ["record 3 (line 3, byte 4): $: expected int64, found string \"x\""])
    }

    @Test func invalidOptionsAreReported() throws {
        #expect(throws: SluiceError.self) {
            _ = try ColumnarReader(input: .bytes([]), schema: try MappingSchema(fields: fields), options: ReaderOptions(batchCapacity: 0))
        }
    }
}
