import Foundation
import Testing
@testable import Sluice

/// `sluice infer`'s rules, one test each, and starter mappings of the bundled data that map it without a rejection.
@Suite struct InferenceTests {
    func inferred(_ lines: [String], sample: Int = 10_000, enums: Bool = false) throws -> String {
        try InferredMapping(input: .bytes(Array((lines.joined(separator: "\n") + "\n").utf8)), sampleSize: sample, infersEnums: enums).mappingText
    }

    /// The field lines only, without the comments.
    func fields(_ lines: [String], enums: Bool = false) throws -> [String] {
        try inferred(lines, enums: enums).split(separator: "\n").filter { $0.hasPrefix("  - ") }.map { String($0.dropFirst(4)) }
    }

    /// With tables, an array of objects (nulls beside them too) becomes a child table of its objects' keys, nested
    /// ones beneath it, and the mapping maps its own sample into them; arrays of values stay lists.
    @Test func arraysOfObjectsBecomeChildTables() throws {
        let lines = [
            #"{"id": 1, "tags": ["a"], "items": [{"sku": "x", "qty": 2, "parts": [{"num": 1}]}, null]}"#,
            #"{"id": 2, "tags": [], "items": [{"sku": "y", "parts": []}]}"#,
            #"{"id": 3, "tags": ["b"], "items": [], "mixed": [{"a": 1}, 2]}"#,
        ]
        let text = try InferredMapping(input: .bytes(Array((lines.joined(separator: "\n") + "\n").utf8)), infersTables: true).mappingText
        #expect(text.contains("""
              - name: items
                path: items
                table:   # 2 objects sampled
                  fields:
                    - {name: sku, type: string}
                    - {name: qty, type: int64, optional: true}
                    - name: parts
                      path: parts
                      table:   # 1 object sampled
                        fields:
                          - {name: num, type: int64}
            """), "\(text)")
        #expect(text.contains(#"{name: tags, path: "tags.*", type: string"#) && text.contains("{name: mixed, type: json"), "\(text)")
        let schema = try MappingSchema(mappingText: text)
        let tables = try MappedTables(schema: schema)
        let reader = try ColumnarReader(input: .bytes(Array((lines.joined(separator: "\n") + "\n").utf8)), schema: schema, tables: tables,
                                        options: ReaderOptions(rejectionPolicy: .collect))
        var counts = tables.tables.map { _ in 0 }
        while let batch = try reader.next() {
            #expect(batch.rejections.isEmpty)
            for table in batch.tables.indices { counts[table] += batch.rows(ofTable: table, forRecords: 0..<batch.count).count }
        }
        #expect(counts == [3, 2, 1])
        #expect(try !InferredMapping(input: .bytes(Array(lines[0].utf8))).mappingText.contains("table:"))
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
        // Neither int64 nor uint64 holds both -1 and 2^64 - 1.
        #expect(try fields([#"{"a":-1}"#, #"{"a":18446744073709551615}"#]) == [
            "{name: a, type: string}   # integers beyond int64 and below zero, which no integer type holds both of, kept exactly as text",
        ])
    }

    /// A document holding its records in an array is one record to a reader without a records path: the
    /// inference names the arrays that may hold the records, in the file and to the caller.
    @Test func aWrapperDocumentGetsAHintNamingItsArraysOfObjects() throws {
        let items = (0..<40).map { #"{"id":\#($0)}"# }.joined(separator: ",")
        let document = #"{"meta":{"page":1,"links":[{"a":1}]},"response":{"items":[\#(items)]},"tags":[{"t":1},{"t":2},{"t":3}]}"#
        let inferred = try InferredMapping(input: .bytes(Array(document.utf8)))
        #expect(inferred.recordArrays == [InferredMapping.RecordArray(path: "response.items", objects: 40)])
        #expect(inferred.mappingText.contains("# The records may be the 40 objects at response.items: infer them with --records-at response.items."))
        // Records that each hold a few objects are records, not a wrapper.
        let records = (0..<50).map { #"{"id":\#($0),"tags":[{"t":1},{"t":2},{"t":3}]}"# }.joined(separator: "\n")
        #expect(try InferredMapping(input: .bytes(Array(records.utf8))).recordArrays.isEmpty)
        #expect(try InferredMapping(input: .bytes(Array(document.utf8)), recordsPath: "response.items").recordArrays.isEmpty)
    }

    /// Whatever a sample holds, the mapping inferred from it maps the sample itself without a rejection, with and
    /// without enums: random records over every kind of value the rules tell apart, mixed at each key, with nulls,
    /// absences, nesting and arrays.
    @Test func aStarterMappingNeverRejectsItsOwnSample() throws {
        let kinds: [(inout SplitMix) -> String] = [
            { "\(Int($0.below(11)) - 5)" },
            { ["9223372036854775807", "-9223372036854775808", "18446744073709551615", "9223372036854775808", "18446744073709551616", "-99999999999999999999", "-9223372036854775809"][$0.below(7)] },
            { ["1.5", "-0.0", "1e300", "2E-5", "0.1", "1.0"][$0.below(6)] },
            { $0.below(2) == 0 ? "true" : "false" },
            { "\"w\($0.below(3))\"" },
            { ["\"2014-08-31T00:29:15Z\"", "\"2014-09-01\"", "\"Sun, 31 Aug 2014 00:29:15 +0000\"", "\"Mon Sep 01 10:00:00 +0000 2014\""][$0.below(4)] },
            { "\"https://example.com/\($0.below(100))\"" },
            { ["\"aGVsbG8gd29ybGQgaGk=\"", "\"YWJjZGVmZ2hpamtsbW4+\"", "\"/img/a.png\""][$0.below(3)] },
            { ["\"42\"", "\"-7\"", "\"18446744073709551615\"", "\"99999999999999999999999\"", "\"1.5\"", "\" 3\"", "\"\"", "\"-9223372036854775808\"", "\"-9223372036854775809\""][$0.below(9)] },
            { "\(1_400_000_000 + $0.below(100_000_000))" },
            { "\(1_400_000_000_000 + $0.below(100_000_000))" },
            { _ in "null" },
            { "{\"x\":\($0.below(3)),\"y\":\"\($0.below(2))\"}" },
            { ["[]", "[1,2]", "[\"a\",null]", "[1,\"a\"]", "[{\"k\":1}]", "[[1]]", "[1.5,2]", "[false,1409444955]", "[null,1]", "[-1,18446744073709551615]"][$0.below(10)] },
            { _ in "\"caf\\u00e9 \\\"q\\\"\"" },
        ]
        let keys = ["id", "created_at", "ts", "updated", "name", "a.b", "x y", "value", "edited", "count"]
        for seed in 0..<300 {
            var random = SplitMix(seed: UInt64(seed))
            // Each key draws its values from one to three kinds.
            let mixes = keys.map { _ in (0...random.below(3)).map { _ in random.below(kinds.count) } }
            let count = 1 + random.below(seed % 3 == 0 ? 300 : 40)
            var lines: [String] = []
            for _ in 0..<count {
                var members: [String] = []
                for (key, mix) in zip(keys, mixes) where random.below(8) != 0 {
                    members.append("\"\(key)\":" + kinds[mix[random.below(mix.count)]](&random))
                }
                lines.append("{" + members.joined(separator: ",") + "}")
            }
            let text = lines.joined(separator: "\n") + "\n"
            for enums in [false, true] {
                let mapping = try InferredMapping(input: .bytes(Array(text.utf8)), infersEnums: enums).mappingText
                let schema = try MappingSchema(mappingText: mapping, source: "seed-\(seed).yaml")
                let result = try transcript(of: text, fields: schema.fields, schemaOptions: schema.options)
                #expect(result.rejections.isEmpty && result.rows.count == count, "seed \(seed): \(result.rejections.first.map { "\($0)" } ?? "") in\n\(mapping)")
            }
        }
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
            "{name: edited, type: date, formats: [epoch], nulls: [false], optional: true}   # false or epoch seconds",
        ])
    }

    @Test func urlsBase64AndEnumsNeedClearEvidence() throws {
        var lines = (0..<120).map { #"{"u":"https://example.com/\#($0)","b":"aGVsbG8gd29ybGQgaGk=","s":"\#(["open", "closed"][$0 % 2])","p":"/img/\#($0).png","w":"w\#($0 % 30)"}"# }
        #expect(try fields(lines, enums: true) == [
            "{name: u, type: url}", "{name: b, type: bytes}   # base64 text",
            "{name: s, type: enum, values: [closed, open]}   # 2 values in 120 records",
            "{name: p, type: string}", "{name: w, type: string}",
        ])
        // Only when asked: the next file may hold a value this one did not.
        #expect(try fields(lines)[2] == "{name: s, type: string}   # 2 values in 120 records (an enum with --enums)")
        // Twenty records do not show that a set of values is closed.
        lines = Array(lines.prefix(20))
        #expect(try fields(lines, enums: true)[2] == "{name: s, type: string}")
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
