import Foundation
import Testing
@testable import Sluice

/// Transforms registered by name and used from mapping files (rule 15, the dynamic schema's side).
@Suite struct NamedTransformTests {
    static let registry: MappingRegistry = {
        var registry = MappingRegistry()
        registry.registerTransform(named: "centsFromPrice") { value in
            guard case .string(let text) = value, text.hasPrefix("$"), let dollars = Decimal(string: String(text.dropFirst())) else {
                throw MappingFailure("expected a price like \"$1.50\", found \(value)")
            }
            return .number("\(NSDecimalNumber(decimal: dollars * 100).int64Value)")
        }
        registry.registerTransform(named: "blankIsNil") { value in
            if case .string(let text) = value, text.trimmingCharacters(in: .whitespaces).isEmpty { return nil }
            return value
        }
        registry.registerTransform(named: "tagCount") { value in
            guard case .array(let json) = value, let tags = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any] else {
                throw MappingFailure("expected a list of tags")
            }
            return .number(String(tags.count))
        }
        registry.registerTransform(named: "wrapInObject") { value in
            guard case .number(let text) = value else { return value }
            return .object(json: #"{"n":\#(text)}"#)
        }
        registry.registerTransform(named: "notANumber") { _ in .number("12abc") }
        return registry
    }()

    func run(_ mapping: String, _ text: String) throws -> RunTranscript {
        let schema = try MappingSchema(mappingText: mapping, registry: Self.registry)
        return try transcript(of: text, fields: schema.fields)
    }

    @Test func theTransformsResultIsConvertedByTheFieldsType() throws {
        let result = try run("fields: [{name: cents, path: price, type: int64, transform: centsFromPrice}]", """
            {"price":"$1.50"}
            {"price":"$0.07"}

            """)
        #expect(result.rows == ["#1@1:0 cents=150", "#2@2:18 cents=7"])
    }

    @Test func aThrowingTransformRejectsTheRecordWithItsMessageAndKeyPath() throws {
        let result = try run("fields: [{name: cents, path: item.price, type: int64, transform: centsFromPrice}]", """
            {"item":{"price":"1.50"}}

            """)
        #expect(result.rows.isEmpty)
        #expect(result.rejections == [
            #"record 1 (line 1, byte 0): $.item.price: transform centsFromPrice failed: expected a price like "$1.50", found string("1.50")"#,
        ])
    }

    @Test func nilCountsAsNullForOptionalAndRequiredFields() throws {
        let result = try run("""
            fields:
              - {name: note, type: string, optional: true, transform: blankIsNil}
              - {name: label, type: string, default: none, transform: blankIsNil}
              - {name: title, type: string, transform: blankIsNil}
            """, """
            {"note":"  ","label":"","title":"x"}
            {"note":"hi","label":"L","title":" "}

            """)
        #expect(result.rows == [#"#1@1:0 note=null label="none" title="x""#])
        #expect(result.rejections == [#"record 2 (line 2, byte 37): $.title: expected string, found null"#])
    }

    @Test func aMissingKeyDoesNotCallTheTransform() throws {
        let result = try run("fields: [{name: cents, path: price, type: int64, optional: true, transform: centsFromPrice}]", "{}\n")
        #expect(result.rows == ["#1@1:0 cents=null"])
    }

    @Test func objectsAndArraysReachTheTransformAsJSONText() throws {
        let result = try run("""
            fields:
              - {name: tagCount, path: tags, type: int64, transform: tagCount}
              - {name: firstTag, path: tags.0, type: string}
            """, """
            {"tags":["a","b","c"]}
            {"tags":{"a":1}}

            """)
        #expect(result.rows == [#"#1@1:0 tagCount=3 firstTag="a""#])
        #expect(result.rejections.count == 1)
        #expect(result.rejections.first?.contains("$.tags: transform tagCount failed: expected a list of tags") == true)
    }

    @Test func anObjectResultFillsJSONFieldsAndRejectsOthers() throws {
        let result = try run("""
            fields:
              - {name: wrapped, path: n, type: json, transform: wrapInObject}
              - {name: count, path: m, type: int64, optional: true, transform: wrapInObject}
            """, """
            {"n":5}
            {"n":6,"m":7}

            """)
        #expect(result.rows == [#"#1@1:0 wrapped={"n":5} count=null"#])
        #expect(result.rejections == [#"record 2 (line 2, byte 8): $.m: expected int64, found an object"#])
    }

    @Test func aResultThatIsNotANumberLiteralIsRejected() throws {
        let result = try run("fields: [{name: n, type: double, transform: notANumber}]", "{\"n\":1}\n")
        #expect(result.rejections == [#"record 1 (line 1, byte 0): $.n: transform notANumber failed: it returned .number("12abc"), which is not a JSON number"#])
    }

    @Test func unknownTransformNamesAreMappingProblems() throws {
        #expect {
            try MappingSchema(mappingText: "fields: [{name: a, type: int64, transform: nope}]", registry: Self.registry)
        } throws: { error in
            "\(error)".contains("'transform' must name a registered transform (registered: blankIsNil, centsFromPrice, notANumber, tagCount, wrapInObject)")
        }
    }

    @Test func encodingLeavesTransformedFieldsOut() throws {
        let schema = try MappingSchema(mappingText: """
            fields:
              - {name: id, type: int64}
              - {name: cents, path: price, type: int64, transform: centsFromPrice}
            """, registry: Self.registry)
        let reader = try ColumnarReader(input: .bytes(Array(#"{"id":1,"price":"$2.00"}"#.utf8) + [0x0A]), schema: schema)
        var encoded: [String] = []
        while let batch = try reader.next() {
            for row in 0..<batch.count { encoded.append(schema.jsonText(ofRow: row, in: batch)) }
        }
        #expect(encoded == [#"{"id":1}"#])
    }

    @Test func transformsWorkInTheParallelPipeline() throws {
        let lines = (0..<3000).map { #"{"price":"$\#($0).25"}"# }.joined(separator: "\n") + "\n"
        let sequential = try run("fields: [{name: cents, path: price, type: int64, transform: centsFromPrice}]", lines)
        let schema = try MappingSchema(mappingText: "fields: [{name: cents, path: price, type: int64, transform: centsFromPrice}]", registry: Self.registry)
        let parallel = try transcript(of: lines, fields: schema.fields, options: ReaderOptions(rejectionPolicy: .collect, workers: 2, chunkSize: 4096))
        #expect(parallel.rows == sequential.rows)
        #expect(sequential.rows.last == "#3000@3000:\(lines.utf8.count - 21) cents=299925")
    }
}
