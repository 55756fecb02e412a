import Foundation
import Testing
@testable import Sluice
@testable import SluiceWriters

/// The NDJSON sink: what `sluice map` writes, value by value.
@Suite struct NDJSONWriterTests {
    /// Maps `input` with `fields` and returns what the writer puts in a file.
    func written(_ input: String, fields: [FieldSpec]) throws -> String {
        let url = scratchPath("writer.ndjson")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let output = try FileOutput(path: url.path)
            let writer = NDJSONWriter(fields: fields, output: output)
            let reader = try ColumnarReader(input: .bytes(Array(input.utf8)), schema: MappingSchema(fields: fields),
                                            options: ReaderOptions(batchCapacity: 2))
            while let batch = try reader.next() { try writer.write(batch) }
            try output.flush()
        }
        return try String(contentsOf: url, encoding: .utf8)
    }

    @Test func integersAtTheirLimitsAndNulls() throws {
        let input = """
            {"a": -9223372036854775808, "b": 18446744073709551615}
            {"a": 0, "b": 0}
            {"a": 9223372036854775807, "b": 7}
            {"a": -1, "b": null}
            {"a": 10, "b": 100}
            """
        let text = try written(input, fields: [field("a", .int64), field("b", .uint64, optional: true)])
        #expect(text == """
            {"a":-9223372036854775808,"b":18446744073709551615}
            {"a":0,"b":0}
            {"a":9223372036854775807,"b":7}
            {"a":-1,"b":null}
            {"a":10,"b":100}

            """)
    }

    @Test func stringsAreEscapedAndJSONIsCompacted() throws {
        let input = #"{"s": "tab\there \"quoted\" \\ é \u0001", "j": {"x": [1, 2],  "y": "a b"}, "t": true}"#
        let text = try written(input, fields: [field("s", .string), field("j", .json), field("t", .bool)])
        #expect(text == #"{"s":"tab\there \"quoted\" \\ é \u0001","j":{"x":[1,2],"y":"a b"},"t":true}"# + "\n")
    }
}
