import Foundation
import Testing
@testable import Sluice

/// Null spellings and the built-in cleanups: one test per rule, from mapping files and from Swift.
@Suite struct CleanupTests {
    func run(_ mapping: String, _ text: String) throws -> RunTranscript {
        let schema = try MappingSchema(mappingText: mapping)
        return try transcript(of: text, fields: schema.fields, schemaOptions: schema.options)
    }

    func problems(_ mapping: String) -> [String] {
        mappingProblems { _ = try MappingSchema(mappingText: mapping) }.map(\.description)
    }

    // MARK: Null spellings

    @Test func nullSpellingsAreTypedJSONValues() throws {
        let result = try run(#"fields: [{name: v, type: string, optional: true, nulls: ["", N/A, false, 0, "0"]}]"#, """
            {"v":""}
            {"v":"N/A"}
            {"v":false}
            {"v":0}
            {"v":"0"}
            {"v":"false"}
            {"v":1}

            """)
        // 0 matches the number 0, "0" the string; "false" is text, not the Boolean.
        #expect(result.rows.map { $0.components(separatedBy: " ")[1] } == ["v=null", "v=null", "v=null", "v=null", "v=null", #"v="false""#, #"v="1""#])
    }

    @Test func yamlsNullIsOneRuleForNullSpellingsAndSeparators() throws {
        // Unquoted null, ~ and an empty entry are the JSON null; NULL and a quoted "null" are text.
        let result = try run("fields:\n  - name: v\n    type: string\n    optional: true\n    nulls:\n      - ~\n      -\n      - NULL\n      - \"null\"\n", """
            {"v":null}
            {"v":"NULL"}
            {"v":"null"}
            {"v":"~"}
            {"v":""}

            """)
        #expect(result.rows.map { $0.components(separatedBy: " ")[1] } == ["v=null", "v=null", "v=null", #"v="~""#, #"v="""#])
        // A separator of ~ or none at all is no separator, as null is.
        for separator in ["~", ""] {
            try check("[{number: {thousands: \(separator), currency: []}}]", [#""1234.5""#, #""1,234""#], type: "double", expecting: [
                "1234.5", #"rejected: expected a number (no currency sign, no thousands separator, decimal "."), found string "1,234""#,
            ])
        }
    }

    @Test func numbersAreNullSpellingsByValue() throws {
        let result = try run("fields: [{name: v, type: double, optional: true, nulls: [0, -1.5]}]", """
            {"v":0.0}
            {"v":-0}
            {"v":0e5}
            {"v":-1.50}
            {"v":-15e-1}
            {"v":0.5}

            """)
        #expect(result.rows.map { $0.components(separatedBy: " ")[1] } == ["v=null", "v=null", "v=null", "v=null", "v=null", "v=0.5"])
    }

    @Test func aSpelledNullFollowsTheRulesOfNull() throws {
        let result = try run(#"""
            nulls: ["", "-"]
            fields:
              - {name: optional, type: int64, optional: true}
              - {name: defaulted, type: int64, default: 7}
              - {name: required, type: int64}
              - {name: graded, type: enum, values: [a, b], default: z}
            """#, """
            {"optional":"-","defaulted":"","required":1,"graded":""}
            {"optional":1,"defaulted":2,"required":"-","graded":"a"}

            """)
        #expect(result.rows == [#"#1@1:0 optional=null defaulted=7 required=1 graded="z""#])
        #expect(result.rejections == [#"record 2 (line 2, byte 57): $.required: expected int64, found string "-" (read as null)"#])
    }

    @Test func aFieldsOwnSpellingsReplaceTheMappings() throws {
        let result = try run(#"""
            nulls: [""]
            fields:
              - {name: a, type: string, optional: true}
              - {name: b, type: string, optional: true, nulls: []}
              - {name: c, type: string, optional: true, nulls: [none]}
            """#, """
            {"a":"","b":"","c":""}
            {"a":"none","b":"none","c":"none"}

            """)
        #expect(result.rows == [#"#1@1:0 a=null b="" c="""#, #"#2@2:23 a="none" b="none" c=null"#])
    }

    @Test func spellingsApplyToListElementsAndTransformsSeeNull() throws {
        var registry = MappingRegistry()
        registry.registerTransform(named: "nullMarker") { value in value == .null ? .string("was null") : value }
        let schema = try MappingSchema(mappingText: """
            nulls: [n/a]
            fields:
              - {name: tags, path: "tags.*", type: string}
              - {name: marked, path: m, type: string, transform: nullMarker}
            """, registry: registry)
        let result = try transcript(of: #"{"tags":["a","n/a","b"],"m":"n/a"}"# + "\n", fields: schema.fields, schemaOptions: schema.options)
        #expect(result.rows == [#"#1@1:0 tags=["a","b"] marked="was null""#])
    }

    @Test func epochOrFalseNeedsNoCode() throws {
        // Reddit's `edited`: false, or when the comment was edited.
        let result = try run("fields: [{name: edited, type: date, formats: [epoch], optional: true, nulls: [false]}]", """
            {"edited":false}
            {"edited":1420070400}
            {"edited":true}

            """)
        #expect(result.rows == ["#1@1:0 edited=null", "#2@2:17 edited=2015-01-01T00:00:00Z"])
        #expect(result.rejections == ["record 3 (line 3, byte 39): $.edited: expected date, found true"])
    }

    @Test func spellingsThatAreNoScalarsAreProblems() {
        #expect(problems("fields: [{name: v, type: string, nulls: [[1]]}]") == ["<mapping>:1:41: field 'v': 'nulls' must be a list of values (strings, numbers, true or false)"])
        #expect(throws: SluiceError.self) { try MappingSchema(fields: [FieldSpec(name: "v", type: .string)], options: MappingOptions(nullSpellings: [.object(json: "{}")])) }
    }

    // MARK: Cleanups, one rule each

    func cleaned(_ cleanups: String, _ values: [String], type: String = "string") throws -> [String] {
        let lines = values.map { #"{"v":\#($0)}"# }.joined(separator: "\n") + "\n"
        let result = try run("fields: [{name: v, type: \(type), optional: true, clean: \(cleanups)}]", lines)
        var byLine: [Int: String] = [:]
        for row in result.rows {
            let line = Int(row.dropFirst().split(separator: "@")[1].split(separator: ":")[0]) ?? 0
            byLine[line] = String(row.split(separator: " ", maxSplits: 1)[1].dropFirst(2))
        }
        for rejection in result.rejections {
            let line = Int(rejection.split(separator: "(line ")[1].split(separator: ",")[0]) ?? 0
            byLine[line] = "rejected: " + (rejection.components(separatedBy: "$.v: ").last ?? "")
        }
        return values.indices.map { byLine[$0 + 1] ?? "missing" }
    }

    func check(_ cleanups: String, _ values: [String], type: String = "string", expecting expected: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let actual = try cleaned(cleanups, values, type: type)
        #expect(actual == expected, sourceLocation: sourceLocation)
    }

    @Test func trimRemovesUnicodeWhiteSpaceAtBothEnds() throws {
        try check("[trim]", [#"" a b ""#, #""\t\n x\r""#, #""\u00a0\u3000y\u2003\u202f""#, #""   ""#, #""\u200bz""#], expecting: [
            #""a b""#, #""x""#, #""y""#, #""""#, "\"\u{200B}z\"",  // U+200B is no White_Space character
        ])
    }

    @Test func caseMappingIsUnicodesDefaultAndLocaleFree() throws {
        try check("[lowercase]", [#""ABC-def""#, #""ÉCOLE İ""#], expecting: [#""abc-def""#, "\"école i\u{307}\""])
        try check("[uppercase]", [#""abc-DEF""#, #""straße""#], expecting: [#""ABC-DEF""#, #""STRASSE""#])
    }

    @Test func stripRemovesTheTextOnlyWhereItStands() throws {
        try check(#"[{stripPrefix: "$"}]"#, [#""$5""#, #""5$""#, #""$$5""#], expecting: [#""5""#, #""5$""#, #""$5""#])
        try check(#"[{stripSuffix: " USD"}]"#, [#""5 USD""#, #""USD 5""#], expecting: [#""5""#, #""USD 5""#])
    }

    @Test func emptyAsNullAfterTrimCatchesBlankText() throws {
        try check("[trim, emptyAsNull]", [#""  ""#, #""""#, #"" x ""#], expecting: ["null", "null", #""x""#])
        try check("[emptyAsNull, trim]", [#""  ""#], expecting: [#""""#])
    }

    @Test func numberReadsTextWrittenForPeople() throws {
        let values = [#""$1,299.99""#, #""-$5""#, #""$-5""#, #""5 €""#, #""+£0.50""#, #""$.99""#, #""007""#, #""12,345,678""#, #"" 42 ""#, "3"]
        try check("[number]", values, type: "double", expecting: ["1299.99", "-5.0", "-5.0", "5.0", "0.5", "0.99", "7.0", "12345678.0", "42.0", "3.0"])
    }

    @Test func numberRejectsWhatItsRuleDoesNotAllow() throws {
        let values = [#""1,29""#, #""1234,567""#, #""$5$""#, #""5 USD""#, #""1e3""#, #""""#, #""$""#, #""1.""#, #""--1""#, #""1 2""#]
        let expectation = #"rejected: expected a number (currency $ € £ ¥, thousands ",", decimal "."), found string "#
        let results = try cleaned("[number]", values, type: "double")
        for (value, result) in zip(values, results) {
            #expect(result == expectation + value, "\(value)")
        }
    }

    @Test func numberTakesOtherSeparatorsAndSigns() throws {
        let format = #"[{number: {currency: [" kr", CHF], thousands: ".", decimal: ","}}]"#
        try check(format, [#""1.299,50 kr""#, #""CHF 3,5""#, #""1,299.50""#], type: "double", expecting: [
            "1299.5", "3.5", #"rejected: expected a number (currency  kr CHF, thousands ".", decimal ","), found string "1,299.50""#,
        ])
        try check("[{number: {thousands: null, currency: []}}]", [#""1234.5""#, #""1,234""#], type: "double", expecting: [
            "1234.5", #"rejected: expected a number (no currency sign, no thousands separator, decimal "."), found string "1,234""#,
        ])
    }

    @Test func captureKeepsTheFirstGroupAndAnUnsetGroupIsNull() throws {
        try check(#"[{capture: '^(\d+) items'}]"#, [#""42 items""#, #""many items""#], expecting: [
            #""42""#, #"rejected: expected a match for capture "^(\\d+) items", found string "many items""#,
        ])
        try check(#"[{capture: '[a-z]+'}]"#, [#""42abc7""#], expecting: [#""abc""#])
        try check(#"[{capture: '^\d+(?:,(\d+))?$'}]"#, [#""1,2""#, #""1""#], expecting: [#""2""#, "null"])
    }

    @Test func splitMakesAListAndTheCleanupsAfterItApplyToEachPiece() throws {
        try check(#"[{split: ","}, trim, emptyAsNull]"#, [#""a, b,,c ""#, #""""#, #""x""#, "null", "7"], expecting: [
            #"["a","b","c"]"#, "[]", #"["x"]"#, "null", #"["7"]"#,
        ])
        try check(#"[{split: ","}]"#, [#"",a,""#], expecting: [#"["","a",""]"#])
        try check(#"[{split: " · "}]"#, [#""é · ü ·ö""#], expecting: [#"["é","ü ·ö"]"#])
    }

    @Test func splitPiecesConvertByTheFieldsType() throws {
        try check(#"[{split: ";"}]"#, [#""1;2""#, #""3;x""#], type: "int64", expecting: [
            "[1,2]", #"rejected: expected int64, found string "x""#,
        ])
        try check(#"[{split: "|"}]"#, [#""2021-01-01|0""#], type: "date", expecting: [#"["2021-01-01T00:00:00Z","1970-01-01T00:00:00Z"]"#])
    }

    @Test func cleanupsAroundASplitDoNotOverwriteThePiecesStillToCome() throws {
        try check(#"[lowercase, {split: ","}, uppercase, lowercase, trim]"#, [#""ÉCOLE, Straße,AB""#], expecting: [#"["école","strasse","ab"]"#])
    }

    @Test func aSplitListIsUniqueOnRequest() throws {
        let result = try run(#"fields: [{name: v, type: int64, unique: true, clean: [{split: ","}]}]"#, #"{"v":"3,1,3,01"}"# + "\n")
        #expect(result.rows == ["#1@1:0 v=[3,1]"])
    }

    @Test func captureGivesUpOnCatastrophicBacktrackingInsteadOfStalling() throws {
        let results = try cleaned(#"[{capture: '^(a+)+$'}]"#, ["\"" + String(repeating: "a", count: 30) + "!\""])
        #expect(results[0].hasPrefix("rejected: expected a match for capture"))
        #expect(results[0].contains("gave up after 1000000 backtracking steps"))
    }

    @Test func cleanupsRunInOrderAndLeaveNumbersAndBooleansAlone() throws {
        let steps = ##"[trim, {stripPrefix: "#"}, uppercase]"##
        try check(steps, [##"" #ab ""##, "12", "true"], expecting: [#""AB""#, #""12""#, "rejected: expected string, found true"])
        try check(##"[{stripPrefix: "#"}, trim]"##, [##"" #ab ""##], expecting: [##""#ab""##])
    }

    @Test func cleanedTextConvertsByTheFieldsType() throws {
        try check("[trim, lowercase]", [#"" TRUE ""#, #"" 0 ""#], type: "bool", expecting: ["true", "false"])
        try check("[trim]", [#"" 2021-01-01 ""#], type: "date", expecting: ["2021-01-01T00:00:00Z"])
        try check("[trim]", [#"" x ""#], type: "json", expecting: [#""x""#])
    }

    @Test func cleanupsThatAreMisspelledAreProblemsWithTheirLines() {
        #expect(problems(#"""
            fields:
              - {name: a, type: string, clean: [shout]}
              - {name: b, type: string, clean: [stripPrefix]}
              - {name: f, type: string, clean: [{number: {grouping: 3}}]}
              - {name: g, type: string, clean: [{trim: yes}]}
              - {name: h, type: string, clean: trim}
            """#) == [
            "<mapping>:2:36: field 'a': unknown cleanup 'shout' (known: trim, lowercase, uppercase, stripPrefix, stripSuffix, emptyAsNull, number, capture, split)",
            "<mapping>:3:36: field 'b': cleanup 'stripPrefix' takes an argument: {stripPrefix: …}",
            "<mapping>:4:36: field 'f': unknown option 'grouping' of cleanup 'number' (known: currency, thousands, decimal)",
            "<mapping>:5:36: field 'g': cleanup 'trim' takes no argument",
            "<mapping>:6:36: field 'h': 'clean' must be a list of cleanups (trim, lowercase, uppercase, stripPrefix, stripSuffix, emptyAsNull, number, capture, split)",
        ])
    }

    @Test func cleanupsThatCannotRunAreProblems() {
        #expect(problems(#"""
            fields:
              - {name: c, type: string, clean: [{stripPrefix: ""}]}
              - {name: d, type: string, clean: [{capture: "("}]}
              - {name: e, type: string, clean: [{number: {thousands: ".", decimal: "."}}]}
              - {name: f, type: string, clean: [{number: {currency: ["1"]}}]}
              - {name: g, type: string, clean: [{capture: '\C'}]}
            """#) == [
            "<mapping>:2:5: field 'c': stripPrefix needs the text to strip",
            "<mapping>:3:5: field 'd': capture \"(\" is not a valid regular expression: missing closing parenthesis at offset 1",
            #"<mapping>:4:5: field 'e': number: the thousands and decimal separators are both ".""#,
            #"<mapping>:5:5: field 'f': number: the currency sign "1" holds a digit, a sign or a separator"#,
            #"<mapping>:6:5: field 'g': capture "\\C" is not a valid regular expression: using \C is disabled by the application at offset 2"#,
        ])
    }

    @Test func splitsThatCannotRunAreProblems() {
        #expect(problems(#"""
            fields:
              - {name: a, type: string, clean: [{split: ""}]}
              - {name: b, type: string, clean: [{split: ","}, {split: ";"}]}
              - {name: c, type: json, clean: [{split: ","}]}
              - {name: d, type: string, default: x, clean: [{split: ","}]}
              - {name: e, type: string, clean: [split]}
            """#) == [
            "<mapping>:2:5: field 'a': split needs a separator",
            "<mapping>:3:5: field 'b': a field splits once",
            "<mapping>:4:5: field 'c': split gives pieces of text: a json field cannot take them",
            "<mapping>:5:5: field 'd': a list takes no default",
            "<mapping>:6:36: field 'e': cleanup 'split' takes an argument: {split: …}",
        ])
    }

    // MARK: The typed door

    struct Product: Sendable, Equatable {
        var name = ""
        var price: Double?
        var edited: Date?
    }

    @Test func typedFieldsTakeNullSpellingsAndCleanups() throws {
        let mapping = try Mapping(Product.init) {
            Field("name", \.name).cleaned(.trim, .uppercase)
            Field("price", \.price).readingAsNull("").cleaned(.number(NumberText()))
            Field("edited", \.edited, formats: [.epoch]).readingAsNull(false)
        }
        let reader = try TypedReader(input: .bytes(Array(#"""
            {"name":" ok ","price":"$1,000.50","edited":false}
            {"name":"b","price":"","edited":0}

            """#.utf8)), mapping: mapping)
        var models: [Product] = []
        while let batch = try reader.next() { models += batch.models }
        #expect(models == [Product(name: "OK", price: 1000.5, edited: nil), Product(name: "B", price: nil, edited: Date(timeIntervalSince1970: 0))])
    }

    struct Labelled: Sendable, Equatable {
        var tags: [String] = []
        var sizes: Set<Int32>?
        var note = ""
    }

    @Test func typedArraysTakeASplit() throws {
        let mapping = try Mapping(Labelled.init) {
            Field("tags", \.tags).cleaned(.split(","), .trim, .emptyAsNull)
            Field("sizes", \.sizes).cleaned(.split("/"))
        }
        let reader = try TypedReader(input: .bytes(Array(#"""
            {"tags":"a, b,","sizes":"3/4/3"}
            {"tags":"","sizes":null}

            """#.utf8)), mapping: mapping)
        var models: [Labelled] = []
        while let batch = try reader.next() { models += batch.models }
        #expect(models == [Labelled(tags: ["a", "b"], sizes: [3, 4]), Labelled(tags: [], sizes: nil)])
        #expect(mappingProblems { _ = try Mapping(Labelled.init) { Field("note", \.note).cleaned(.split(",")) } }.map(\.description)
            == [#"field '\Labelled.note': split makes a list: map it to an array property"#])
    }
}
