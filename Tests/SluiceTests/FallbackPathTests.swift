import Foundation
import Testing
@testable import Sluice

/// Fallback paths (coalesce): a field takes the first of its key paths that holds a value other than null.
@Suite struct FallbackPathTests {
    func run(_ mapping: String, _ text: String, workers: Int = 1) throws -> RunTranscript {
        let schema = try MappingSchema(mappingText: mapping)
        return try transcript(of: text, fields: schema.fields, options: ReaderOptions(rejectionPolicy: .collect, workers: workers), schemaOptions: schema.options)
    }

    func problems(_ mapping: String) -> [String] {
        mappingProblems { _ = try MappingSchema(mappingText: mapping) }.map(\.description)
    }

    @Test func theFirstPathWithAValueWinsWhateverTheKeyOrder() throws {
        let result = try run("fields: [{name: handle, path: [user.screen_name, user.name, login], type: string}]", """
            {"login":"l","user":{"name":"n","screen_name":"s"}}
            {"user":{"name":"n"},"login":"l"}
            {"login":"l"}
            {"login":"l","user":{"screen_name":"s"}}

            """)
        #expect(result.rows.map { $0.components(separatedBy: " ")[1] } == [#"handle="s""#, #"handle="n""#, #"handle="l""#, #"handle="s""#])
    }

    /// An index beside a `*` copies the list's node under the index (element 0 feeds both); the copy's column
    /// must take its rank too, or every node made after it reads the rank of the target before (this mapping
    /// crashed on reading an index past the ranks).
    @Test func pathsAfterAnIndexBesideAStarKeepTheirOrder() throws {
        let result = try run("""
            fields:
              - {name: t, path: "tags.*", type: string, optional: true}
              - {name: first, path: tags.0, type: string, optional: true}
              - {name: name, path: [z.a, z.b], type: string, optional: true}
            """, """
            {"tags":["x"],"z":{"b":"B","a":"A"}}
            {"tags":["x"],"z":{"a":"A","b":"B"}}
            {"tags":["x"],"z":{"b":"B"}}

            """)
        #expect(result.rows.map { $0.components(separatedBy: " ").last ?? "" } == [#"name="A""#, #"name="A""#, #"name="B""#])
    }

    @Test func nullsSpelledNullsAndCleanedNullsFallThrough() throws {
        let result = try run(#"""
            nulls: [N/A]
            fields: [{name: v, path: [a, b, c, d], type: string, clean: [trim, emptyAsNull]}]
            """#, """
            {"a":null,"b":"N/A","c":"  ","d":"x"}

            """)
        #expect(result.rows == [#"#1@1:0 v="x""#])
    }

    @Test func aLaterPathsFailureIsWithdrawnWhenAnEarlierPathGivesAValue() throws {
        let result = try run("fields: [{name: n, path: [a, b], type: int64}]", """
            {"b":"x","a":3}
            {"a":"x","b":3}
            {"b":4,"a":null}

            """)
        #expect(result.rows == ["#1@1:0 n=3", "#3@3:32 n=4"])
        // The first path with a value decides, so its failure stands although a later path converts.
        #expect(result.rejections == [#"record 2 (line 2, byte 16): $.a: expected int64, found string "x""#])
    }

    @Test func whenNoPathHasAValueTheFieldIsMissing() throws {
        let result = try run(#"""
            fields:
              - {name: optional, path: [a, b], type: int64, optional: true}
              - {name: defaulted, path: [c, d], type: int64, default: 7}
              - {name: required, path: [e, f], type: int64}
            """#, """
            {"a":null,"d":null,"e":1}
            {"b":null}

            """)
        #expect(result.rows == ["#1@1:0 optional=null defaulted=7 required=1"])
        #expect(result.rejections == ["record 2 (line 2, byte 26): $.e: expected int64, found no value, nor at $.f"])
    }

    @Test func aRepeatedKeyOfOnePathIsTheLastAsWithoutFallbacks() throws {
        let result = try run("fields: [{name: n, path: [a, b], type: int64}]", """
            {"a":1,"b":2,"a":3}

            """)
        #expect(result.rows == ["#1@1:0 n=3"])
    }

    @Test func aContainerAtAFallbackPathIsATypeMismatchAndLeavesNothingForTheNextRecord() throws {
        let result = try run(#"fields: [{name: x, type: int64}, {name: n, path: [a, b], type: int64}]"#, """
            {"x":"bad","a":"bad"}
            {"x":1,"b":{},"a":5}
            {"x":2,"b":7}

            """)
        #expect(result.rows == ["#3@3:43 x=2 n=7"])
        #expect(result.rejections == [
            #"record 1 (line 1, byte 0): $.x: expected int64, found string "bad"; $.a: expected int64, found string "bad""#,
            "record 2 (line 2, byte 22): $.b: expected int64, found an object",
        ])
    }

    @Test func everyWorkerCountGivesTheSameRecords() throws {
        let mapping = "fields: [{name: n, path: [a, b], type: int64}]"
        let text = (0..<2_000).map { index in
            index % 3 == 0 ? #"{"b":"x","a":\#(index)}"# : index % 3 == 1 ? #"{"a":null,"b":\#(index)}"# : #"{"a":"y","b":1}"#
        }.joined(separator: "\n") + "\n"
        let one = try run(mapping, text)
        let four = try run(mapping, text, workers: 4)
        #expect(one.rows.count == 1_334 && one.rejections.count == 666)
        #expect(one == four)
    }

    @Test func fallbackPathsThatCannotBeReadAreProblems() {
        #expect(problems(#"""
            fields:
              - {name: a, path: [a, "a2.*"], type: int64}
              - {name: b, path: [b, b], type: int64}
              - {name: c, path: [c, c2], type: json}
              - {name: d, path: ["d.*", d2], type: int64}
              - {name: e, path: [e, "e2..z"], type: int64}
              - {name: f, path: [f, {y: 1}], type: int64}
              - {name: g, path: ["g..z", "g2.*"], type: int64}
            """#) == [
            "<mapping>:2:5: field 'a': fallback path 'a2.*': a fallback reads one value at a key path ('*' and $key are not taken)",
            "<mapping>:3:5: field 'b': the key path 'b' is given more than once",
            "<mapping>:4:5: field 'c': only a field that reads one scalar takes fallback paths: not a list, a json field or a transformed one",
            "<mapping>:5:5: field 'd': only a field that reads one scalar takes fallback paths: not a list, a json field or a transformed one",
            "<mapping>:6:5: field 'e': key path 'e2..z' has an empty segment",
            "<mapping>:7:21: field 'f': 'path' must be a key path, or a list of key paths tried in order",
            // A path that cannot be read does not hide its fallbacks' problems.
            "<mapping>:8:5: field 'g': key path 'g..z' has an empty segment",
            "<mapping>:8:5: field 'g': fallback path 'g2.*': a fallback reads one value at a key path ('*' and $key are not taken)",
        ])
    }

    struct Account: Sendable, Equatable {
        var handle = ""
        var karma: Int?
    }

    @Test func typedFieldsFallBack() throws {
        let mapping = try Mapping(Account.init) {
            Field("screen_name", \.handle).fallingBack(to: "user.name")
            Field(\.karma).fallingBack(to: "stats.karma")
        }
        let reader = try TypedReader(input: .bytes(Array(#"""
            {"user":{"name":"n"},"stats":{"karma":5}}
            {"screen_name":"s","karma":1,"stats":{"karma":5}}

            """#.utf8)), mapping: mapping)
        var models: [Account] = []
        while let batch = try reader.next() { models += batch.models }
        #expect(models == [Account(handle: "n", karma: 5), Account(handle: "s", karma: 1)])
    }
}
