import Foundation
import Testing
@testable import Sluice

/// `sluice infer`'s rules, one test each, and starter mappings of the bundled data that map it without a rejection.
@Suite struct InferenceTests {
    func inferred(_ lines: [String], sample: Int = 10_000) throws -> String {
        try InferredMapping(input: .bytes(Array((lines.joined(separator: "\n") + "\n").utf8)), sampleSize: sample).mappingText
    }

    /// The field lines only, without the comments.
    func fields(_ lines: [String]) throws -> [String] {
        try inferred(lines).split(separator: "\n").filter { $0.hasPrefix("  - ") }.map { String($0.dropFirst(4)) }
    }

    @Test func integersDoublesAndNumericStringsStayApart() throws {
        #expect(try fields([#"{"a":1,"b":1.5,"c":"7","d":"2.5","e":18446744073709551615,"f":18446744073709551616,"g":1}"#, #"{"a":2,"b":2,"c":"8","d":"3","e":1,"f":1,"g":1.0}"#]) == [
            "{name: a, type: int64}", "{name: b, type: double}",
            "{name: c, type: string}   # integers as text (int64 reads them too)",
            "{name: d, type: string}   # numbers as text (double reads them too)",
            "{name: e, type: uint64}",
            "{name: f, type: string}   # integers beyond 64 bits, kept exactly as text",
            "{name: g, type: double}",
        ])
    }

    @Test func datesByTheirTextFormatOrByNameAndSizeForEpochNumbers() throws {
        #expect(try fields([
            #"{"iso":"2014-08-31T00:29:15Z","mail":"Sun, 31 Aug 2014 00:29:15 +0000","tw":"Sun Aug 31 00:29:15 +0000 2014","created_at":1409444955,"ms_time":1409444955000,"count":1409444955,"edited":false}"#,
            #"{"iso":"2014-09-01","mail":"1 Sep 2014 10:00 GMT","tw":"Mon Sep 01 10:00:00 +0000 2014","created_at":"1409444999","ms_time":1409444955123,"count":7,"edited":1409444999}"#,
        ]) == [
            "{name: iso, type: date, formats: [iso8601]}", "{name: mail, type: date, formats: [rfc2822]}", "{name: tw, type: date, formats: [twitter]}",
            "{name: created_at, type: date, formats: [epoch]}   # epoch seconds as numbers and text",
            "{name: ms_time, type: date, formats: [epoch], unit: milliseconds}   # epoch milliseconds, by its name and size",
            "{name: count, type: int64}",
            "{name: edited, type: date, formats: [epoch], nulls: [false]}   # false or epoch seconds",
        ])
    }

    @Test func urlsBase64AndEnumsNeedClearEvidence() throws {
        var lines = (0..<120).map { #"{"u":"https://example.com/\#($0)","b":"aGVsbG8gd29ybGQgaGk=","s":"\#(["open", "closed"][$0 % 2])","p":"/img/\#($0).png","w":"w\#($0 % 30)"}"# }
        #expect(try fields(lines) == [
            "{name: u, type: url}", "{name: b, type: bytes}   # base64 text",
            "{name: s, type: enum, values: [closed, open]}   # 2 values in 120 records",
            "{name: p, type: string}", "{name: w, type: string}",
        ])
        // Twenty records do not show that a set of values is closed.
        lines = Array(lines.prefix(20))
        #expect(try fields(lines)[2] == "{name: s, type: string}")
    }

    @Test func nestedObjectsBecomeKeyPathsAndArraysListsOrJSON() throws {
        #expect(try fields([
            #"{"user":{"name":"a","geo.tag":"x"},"tags":["a","b"],"ids":[1,2],"media":[{"u":1}],"empty":[],"mixed":[1,"a"]}"#,
            #"{"user":{"name":"b","geo.tag":"y"},"tags":[],"ids":[3],"media":[],"empty":[],"mixed":[]}"#,
        ]) == [
            "{name: user_name, path: user.name, type: string}",
            #"{name: user_geo_tag, path: "user.geo\\.tag", type: string}"#,
            #"{name: tags, path: "tags.*", type: string}"#,
            #"{name: ids, path: "ids.*", type: int64}"#,
            "{name: media, type: json}   # arrays of objects",
            "{name: empty, type: json}   # only empty arrays seen",
            #"{name: mixed, path: "mixed.*", type: string}   # strings and numbers (numbers as their literal text)"#,
        ])
    }

    @Test func optionalWhereANullOrAbsenceWasSeen() throws {
        #expect(try fields([#"{"a":1,"b":null,"c":{"d":1},"e":2}"#, #"{"a":2,"c":null}"#]) == [
            "{name: a, type: int64}", "{name: b, type: json, optional: true}   # only null seen",
            "{name: c_d, path: c.d, type: int64, optional: true}", "{name: e, type: int64, optional: true}",
        ])
    }

    @Test func objectsWithManyKeysAreMapsKeptWhole() throws {
        let map = (0..<150).map { #""\#(1000 + $0)":{"n":\#($0)}"# }.joined(separator: ",")
        #expect(try fields([#"{"id":1,"byId":{\#(map)}}"#]) == ["{name: id, type: int64}", "{name: byId, type: json}   # kept whole: more than 100 distinct keys (a map of ids?)"])
    }

    @Test func rowsUnderAHeaderAreReadByItsNames() throws {
        #expect(try inferred([#"["id","price name"]"#, #"[1,"a"]"#, #"[2]"#]).contains("header: true\nfields:\n  - {name: id, type: int64}\n  - {name: price_name, path: \"price name\", type: string, optional: true}\n"))
    }

    @Test func recordsThatAreNotJSONAreLeftOutAndCounted() throws {
        let text = try inferred([#"{"a":1}"#, #"{"a":"#, #"{"a":2}"#])
        #expect(text.contains("from the first 3 records of <memory>") && text.contains("# 1 record was not well-formed JSON and left out.\n"))
        #expect(text.contains("{name: a, type: int64}\n"))
    }

    @Test func theSampleStopsWhereAsked() throws {
        let text = try inferred([#"{"a":1}"#, #"{"a":"x"}"#], sample: 1)
        #expect(text.contains("from the first 1 record of <memory>") && text.contains("{name: a, type: int64}"))
    }

    static let bundled: [(name: String, input: URL, recordsPath: String?)] = [
        ("tweets", fixturesDirectory.appendingPathComponent("examples/tweets.ndjson"), nil),
        ("twitter", corporaDirectory.appendingPathComponent("realdata/twitter.json"), "statuses"),
        ("amazon", corporaDirectory.appendingPathComponent("realdata/amazon_cellphones.ndjson"), nil),
        ("citm-events", corporaDirectory.appendingPathComponent("realdata/citm_catalog.json"), "events"),
        ("citm-area-names", corporaDirectory.appendingPathComponent("realdata/citm_catalog.json"), "areaNames"),
        ("reddit", fixturesDirectory.appendingPathComponent("golden/reddit-comments.ndjson"), nil),
    ]

    @Test(arguments: bundled.map(\.name))
    func aStarterMappingOfTheBundledDataMapsItWithoutARejection(_ name: String) throws {
        let (_, input, recordsPath) = try #require(Self.bundled.first { $0.name == name })
        let inferred = try InferredMapping(input: .file(input.path), recordsPath: recordsPath)
        let schema = try MappingSchema(mappingText: inferred.mappingText, source: "\(name).inferred.yaml")
        let result = try transcript(of: .file(input.path), fields: schema.fields, schemaOptions: schema.options)
        #expect(result.rejections.isEmpty)
        #expect(result.rows.count == inferred.recordsSampled)
        if name == "tweets" || name == "amazon" { try assertGolden(inferred.mappingText.replacingOccurrences(of: fixturesDirectory.path, with: "Fixtures").replacingOccurrences(of: corporaDirectory.path, with: "Fixtures"), file: "golden/inferred-\(name).mapping.yaml") }
    }
}
