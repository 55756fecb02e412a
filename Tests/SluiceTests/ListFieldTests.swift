import Foundation
import Testing
@testable import Sluice

/// List fields in the dynamic schema (rule 5 for mapping files): `*` reads every element of an array, each
/// converted by the field's type, into a JSON array column.
@Suite struct ListFieldTests {
    func run(_ mapping: String, _ text: String, workers: Int = 1) throws -> RunTranscript {
        let schema = try MappingSchema(mappingText: mapping)
        return try transcript(of: text, fields: schema.fields, options: ReaderOptions(rejectionPolicy: .collect, workers: workers, chunkSize: 64))
    }

    @Test func elementsAreConvertedByTheTypeAndNullsDropped() throws {
        let result = try run("""
            fields:
              - {name: ids, path: "ids.*", type: int64}
              - {name: days, path: "days.*", type: date, formats: ["yyyy-MM-dd"]}
              - {name: tags, path: "entities.hashtags.*.text", type: string, optional: true}
            """, """
            {"ids":["1",2,null,3.0],"days":["2024-02-29"],"entities":{"hashtags":[{"text":"a\\"b"},{"text":"c"},{"x":1}]}}
            {"ids":[],"days":[],"entities":{"hashtags":[]}}
            {"ids":[1],"days":[]}

            """)
        #expect(result.rows == [
            #"#1@1:0 ids=[1,2,3] days=["2024-02-29T00:00:00Z"] tags=["a\"b","c"]"#,
            #"#2@2:110 ids=[] days=[] tags=[]"#,
            #"#3@3:158 ids=[1] days=[] tags=null"#,
        ])
        #expect(result.rejections.isEmpty)
    }

    @Test func anElementThatDoesNotConvertRejectsTheRecord() throws {
        let result = try run("fields: [{name: ids, path: \"ids.*\", type: int64}]", "{\"ids\":[1,\"x\",3]}\n{\"ids\":[4]}\n")
        #expect(result.rows == ["#2@2:18 ids=[4]"])
        #expect(result.rejections == [#"record 1 (line 1, byte 0): $.ids.*: expected int64, found string "x""#])
    }

    @Test func missingAndMismatchedArraysFollowTheNullPolicy() throws {
        let result = try run("fields: [{name: ids, path: \"ids.*\", type: int64}]", "{}\n{\"ids\":null}\n{\"ids\":7}\n")
        #expect(result.rows.isEmpty)
        #expect(result.rejections == [
            #"record 1 (line 1, byte 0): $.ids.*: expected int64, found no value"#,
            #"record 2 (line 2, byte 3): $.ids.*: expected int64, found no value"#,
            #"record 3 (line 3, byte 16): $.ids: expected an object or array, found number 7; $.ids.*: expected int64, found no value"#,
        ])
    }

    @Test func anElementNamedByItsIndexIsAlsoInTheList() throws {
        let result = try run("""
            fields:
              - {name: first, path: "tags.0.text", type: string}
              - {name: all, path: "tags.*.text", type: string}
              - {name: second, path: "tags.1", type: json}
            """, #"{"tags":[{"text":"a"},{"text":"b"},{"text":"c"}]}"# + "\n")
        #expect(result.rows == [#"#1@1:0 first="a" all=["a","b","c"] second={"text":"b"}"#])
    }

    @Test func uniqueListsKeepTheFirstOfEqualElements() throws {
        let result = try run("fields: [{name: tags, path: \"tags.*\", type: string, unique: true}]", #"{"tags":["b","a","b","c","a"]}"# + "\n")
        #expect(result.rows == [#"#1@1:0 tags=["b","a","c"]"#])
    }

    @Test func integersBooleansAndBytesAreWrittenExactly() throws {
        let result = try run("""
            fields:
              - {name: signed, path: "s.*", type: int64, unique: true}
              - {name: unsigned, path: "u.*", type: uint64}
              - {name: flags, path: "f.*", type: bool}
              - {name: keys, path: "k.*", type: bytes}
              - {name: ratios, path: "r.*", type: double}
            """, #"{"s":[-9223372036854775808,0,"-0",7,7],"u":[18446744073709551615,"0"],"f":[true,"0"],"k":["aGk"],"r":[0.1,"1e3"]}"# + "\n")
        #expect(result.rows == [#"#1@1:0 signed=[-9223372036854775808,0,7] unsigned=[18446744073709551615,0] flags=[true,false] keys=["aGk="] ratios=[0.1,1000.0]"#])
    }

    @Test func jsonListsTakeWholeElementsAndParallelListsReadArraysOfObjects() throws {
        let result = try run("""
            fields:
              - {name: media, path: "media.*", type: json}
              - {name: urls, path: "media.*.url", type: url}
              - {name: sizes, path: "media.*.size", type: int64}
            """, #"{"media":[{"url":"https://a.example/1","size":10},{"url":"/2","size":"20"}]}"# + "\n")
        #expect(result.rows == [#"#1@1:0 media=[{"url":"https://a.example/1","size":10},{"url":"/2","size":"20"}] urls=["https://a.example/1","/2"] sizes=[10,20]"#])
    }

    @Test func theParallelPipelineGivesTheSameLists() throws {
        let mapping = "fields: [{name: ids, path: \"ids.*\", type: int64}, {name: n, type: int64}]"
        let lines = (0..<500).map { #"{"n":\#($0),"ids":[\#($0),null,"\#($0 * 2)"]}"# }.joined(separator: "\n") + "\n"
        let sequential = try run(mapping, lines)
        let parallel = try run(mapping, lines, workers: 3)
        #expect(parallel.rows == sequential.rows)
        #expect(sequential.rows.last?.hasSuffix("ids=[499,998] n=499") == true)
    }

    @Test func listsAreCheckedWhenTheMappingCompiles() {
        for (text, message) in [
            ("fields: [{name: a, path: \"a.*.b.*\", type: int64}]", "field 'a': a list reads one array: its path takes one '*'"),
            ("fields: [{name: a, path: \"a.*\", type: int64, default: 1}]", "field 'a': a list takes no default"),
            ("fields: [{name: a, path: \"a.*\", type: int64, validate: {min: 1}}]", "field 'a': a list takes no validators but required"),
            ("fields: [{name: a, type: int64, unique: true}]", "field 'a': unique applies to lists (paths through '*', or a split)"),
        ] {
            #expect(throws: SluiceError.self) { try MappingSchema(mappingText: text) }
            do {
                _ = try MappingSchema(mappingText: text)
            } catch {
                #expect("\(error)".contains(message), "\(error)")
            }
        }
    }

    @Test func aKeyNamedStarIsEscaped() throws {
        let result = try run(#"fields: [{name: star, path: "a.\\*", type: int64}]"#, #"{"a":{"*":5}}"# + "\n")
        #expect(result.rows == ["#1@1:0 star=5"])
    }
}
