import Foundation
import Testing
import SluiceFixtures
@testable import Sluice

/// Reverse mapping (rule 18): records written back through their mapping map to the same values again.
@Suite struct EncodingTests {
    func rows(_ text: String, _ schema: MappingSchema) throws -> (rows: [String], encoded: [String]) {
        let reader = try ColumnarReader(input: .bytes(Array(text.utf8)), schema: schema, options: ReaderOptions(shape: .ndjson, rejectionPolicy: .collect))
        var rows: [String] = []
        var encoded: [String] = []
        while let batch = try reader.next() {
            for row in 0..<batch.count {
                rows.append(String(render(batch, row: row).drop { $0 != " " }))
                encoded.append(schema.jsonText(ofRow: row, in: batch))
            }
        }
        return (rows, encoded)
    }

    @Test func keyPathsBecomeNestedObjectsAndArraysAgain() throws {
        let schema = try MappingSchema(fields: [
            FieldSpec(name: "id", type: .int64),
            FieldSpec(name: "name", path: "user.name", type: .string, isOptional: true),
            FieldSpec(name: "url", path: "media.0.url", type: .url, isOptional: true),
            FieldSpec(name: "second", path: "tags.1", type: .string, isOptional: true),
            FieldSpec(name: "dotted", path: "a\\.b", type: .bool, isOptional: true),
        ])
        let result = try rows(#"{"id":1,"user":{"name":"A\"n"},"media":[{"url":"/x.png"}],"tags":["a","b"],"a.b":true}"# + "\n" + #"{"id":2}"# + "\n", schema)
        #expect(result.encoded == [
            #"{"id":1,"user":{"name":"A\"n"},"media":[{"url":"/x.png"}],"tags":[null,"b"],"a.b":true}"#,
            #"{"id":2}"#,
        ])
    }

    @Test func datesEnumsAndBytesGoBackToTheirDeclaredForms() throws {
        let schema = try MappingSchema(fields: [
            FieldSpec(name: "created", path: "created_at", type: .date, dateFormats: [.twitter]),
            FieldSpec(name: "seen", type: .date, isOptional: true),
            FieldSpec(name: "gender", type: .enumeration, enumValues: [EnumValue(json: "male", value: "M"), EnumValue(json: "female", value: "F")]),
            FieldSpec(name: "level", type: .enumeration, isOptional: true, enumValues: [EnumValue(json: "1", value: "low")]),
            FieldSpec(name: "key", type: .bytes, isOptional: true),
            FieldSpec(name: "extra", type: .json, isOptional: true),
        ])
        let text = #"{"created_at":"Sun Aug 31 00:29:15 +0000 2014","seen":1409444955.5,"gender":"female","level":1,"key":"aGk","extra":{"x": [1, 2]}}"#
        let result = try rows(text + "\n", schema)
        #expect(result.encoded == [
            #"{"created_at":"Sun Aug 31 00:29:15 +0000 2014","seen":1409444955.5,"gender":"female","level":1,"key":"aGk=","extra":{"x": [1, 2]}}"#,
        ])
    }

    /// A date is written in its field's first format, a number in the field's unit where that is epoch, so that
    /// the record maps again to the same value.
    @Test func datesAreWrittenInTheFieldsFirstFormat() throws {
        let schema = try MappingSchema(mappingText: """
            fields:
              - {name: ms, type: date, formats: [epoch], unit: milliseconds}
              - {name: s, type: date}
              - {name: mail, type: date, formats: [rfc2822]}
              - {name: day, type: date, formats: [yyyyMMdd, epoch]}
              - {name: text, type: date, formats: [iso8601, epoch]}
            """)
        let text = #"{"ms":-1500,"s":"2014-08-31T00:29:15.25Z","mail":"31 Aug 2014 09:29 +0900","day":1409443200,"text":0}"#
        let first = try rows(text + "\n", schema)
        #expect(first.encoded == [
            #"{"ms":-1500,"s":1409444955.25,"mail":"Sun, 31 Aug 2014 00:29:00 +0000","day":"20140831","text":"1970-01-01T00:00:00Z"}"#,
        ])
        let second = try rows(first.encoded.joined(separator: "\n") + "\n", schema)
        #expect(second.rows == first.rows && first.rows.count == 1)
    }

    @Test func listsBecomeArraysAgainInTheirFieldsForms() throws {
        let schema = try MappingSchema(mappingText: """
            fields:
              - {name: ids, path: "ids.*", type: int64, optional: true}
              - {name: days, path: "days.*", type: date, formats: ["EEE MMM dd HH:mm:ss Z yyyy"], optional: true}
              - {name: levels, path: "levels.*", type: enum, values: {"1": low, "2": high}, optional: true}
              - {name: urls, path: "media.*.url", type: url, optional: true}
              - {name: sizes, path: "media.*.size", type: int64, optional: true}
              - {name: raw, path: "raw.*", type: json, optional: true}
            """)
        let text = #"{"ids":[1,"2",null],"days":["Sun Aug 31 00:29:15 +0000 2014"],"levels":[2,1],"media":[{"url":"/a","size":1},{"url":"/b","size":"2"}],"raw":[{"x":[1, 2]},"s"]}"#
            + "\n" + #"{"ids":[],"media":[{"url":"/c"}]}"# + "\n"
        let first = try rows(text, schema)
        #expect(first.encoded == [
            #"{"ids":[1,2],"days":["Sun Aug 31 00:29:15 +0000 2014"],"levels":[2,1],"media":[{"url":"/a","size":1},{"url":"/b","size":2}],"raw":[{"x":[1, 2]},"s"]}"#,
            #"{"ids":[],"media":[{"url":"/c"}]}"#,
        ])
        let second = try rows(first.encoded.joined(separator: "\n") + "\n", schema)
        #expect(second.rows == first.rows)
    }

    @Test func encodedRecordsMapToTheSameValues() throws {
        for (name, fields) in [("reference", ReferenceMapping.fields), ("rich", ReferenceMapping.richFields)] {
            let schema = try MappingSchema(fields: fields)
            var generator = TweetGenerator(seed: 3)
            let text = (1...200).map { generator.nextRecord(ordinal: $0) }.joined(separator: "\n") + "\n"
            let first = try rows(text, schema)
            let second = try rows(first.encoded.joined(separator: "\n") + "\n", schema)
            #expect(first.rows.count == 200, "\(name)")
            #expect(second.rows == first.rows, "\(name)")
            #expect(second.encoded == first.encoded, "\(name)")
        }
    }

    @Test func typedModelsRoundTrip() throws {
        enum Gender: String, CaseIterable, Sendable { case male, female }
        struct Person: Sendable, Equatable {
            var id: Int64 = 0; var name = ""; var email: String?; var born = Date(timeIntervalSince1970: 0)
            var gender = Gender.male; var avatar: Data?; var home: URL?
        }
        let mapping = try Mapping(Person.init) {
            Field("id", \.id)
            Field("profile.name", \.name)
            Field("profile.email", \.email)
            Field("born", \.born, formats: [.pattern("yyyy-MM-dd")])
            Field("gender", \.gender)
            Field("avatar", \.avatar)
            Field("home", \.home)
        }
        let person = Person(id: 7, name: "Ann \"A\"", email: nil, born: Date(timeIntervalSince1970: 86_400 * 365), gender: .female, avatar: Data([0, 255]), home: URL(string: "https://example.com/x"))
        let text = mapping.jsonText(of: person)
        #expect(text == #"{"id":7,"profile":{"name":"Ann \"A\""},"born":"1971-01-01","gender":"female","avatar":"AP8=","home":"https://example.com/x"}"#)
        let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: mapping)
        #expect(try reader.nextModel() == person)
    }
}
