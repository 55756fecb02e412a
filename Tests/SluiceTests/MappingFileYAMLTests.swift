import Testing
@testable import Sluice

/// How a mapping file's YAML is read: what libyaml refuses, what composing refuses, and the scalars' rules.
@Suite struct MappingFileYAMLTests {
    func problems(_ text: String) -> [String] {
        mappingProblems { _ = try MappingSchema(mappingText: text, source: "m.yaml") }.map(\.description)
    }

    @Test func aKeyTwiceInOneMapIsRefusedAtItsSecondPlace() {
        #expect(problems("fields:\n  - {name: a, type: string, name: b}\n") == [
            "m.yaml:2:29: not valid YAML or JSON: found the key 'name' twice in one map",
        ])
        #expect(problems("fields: []\nfields: []\n") == ["m.yaml:2:1: not valid YAML or JSON: found the key 'fields' twice in one map"])
    }

    @Test func anAliasToNoAnchorIsRefusedWhereItStands() {
        #expect(problems("fields:\n  - {name: a, type: *t}\n") == ["m.yaml:2:21: not valid YAML or JSON: found undefined alias 't'"])
    }

    @Test func nestingDeeperThanTheLimitIsRefusedWithoutRecursingThatDeep() {
        let deep = "fields: " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "\n"
        #expect(problems(deep) == ["m.yaml:1:\(9 + YAMLComposer.maximumDepth - 1): not valid YAML or JSON: lists and maps nest deeper than 256 levels"])
    }

    /// Aliases nest their anchors' levels where they stand: a chain of them cannot build a tree deeper than the limit.
    @Test func aliasesCountTheLevelsTheyStandFor() {
        let text = "x: &a0 " + String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
            + "\ny: &a1 " + String(repeating: "[", count: 100) + "*a0" + String(repeating: "]", count: 100) + "\nfields: []\n"
        #expect(problems(text) == ["m.yaml:2:108: not valid YAML or JSON: lists and maps nest deeper than 256 levels"])
    }

    /// A field repeated by aliases is read again each time: repeats that stand for far more than the file holds
    /// are refused at the first entry past the limit, and nothing after it is read.
    @Test func fieldsThatAliasesMultiplyPastTheLimitAreRefused() {
        let values = (0..<1_000).map { "v\($0)" }.joined(separator: ", ")
        var text = "fields:\n  - &f {name: a, type: enum, values: [\(values)]}\n"
        for _ in 0..<1_100 { text += "  - *f\n" }
        let found = problems(text)
        let limit = MappingFile.aliasExpansionLimit(forBytes: text.utf8.count)
        #expect(limit == 1 << 20)
        // 1,007 nodes an entry (the map, its six keys and values, the list and its values): entry 1,042 passes
        // 2^20. The 1,041 entries before it are read (and each one after the first repeats the name).
        #expect(found.contains("m.yaml:1043:5: field #1042: with their aliases expanded, the fields stand for more than 1048576 values; this one and those after it are not read"))
        #expect(found.filter { $0.hasSuffix("the name is used by more than one field") }.count == 1_040)
        #expect(found.count == 1_041)
    }

    @Test func theFieldsListItselfTakesNoAnchor() {
        #expect(problems("fields: &all\n  - {name: a, type: string}\nignore: *all\n") == [
            "m.yaml:1:9: not valid YAML or JSON: the 'fields' list cannot have an anchor (anchor its entries instead)",
        ])
    }

    @Test func aSecondDocumentIsRefused() {
        #expect(problems("fields:\n  - {name: a, type: string}\n---\nfields: []\n") == [
            "m.yaml:3:1: not valid YAML or JSON: expected a single document, but found another",
        ])
    }

    @Test func anEmptyTextOrAScalarIsNotAMapping() {
        #expect(problems("") == ["m.yaml:1:1: expected a mapping with a 'fields' list at the top"])
        #expect(problems("fields") == ["m.yaml:1:1: expected a mapping with a 'fields' list at the top"])
    }

    @Test func aControlCharacterIsRefusedAtItsLineAndColumn() {
        #expect(problems("fields:\n  - {name: a\u{1}, type: string}\n") == [
            "m.yaml:2:13: not valid YAML or JSON: control characters are not allowed",
        ])
    }

    /// Field entries are read one at a time as they are composed; an anchored entry used again by an alias, and a
    /// `fields` list that is itself an alias, are read like any other.
    @Test func fieldsByAliasAreReadLikeAnyOther() throws {
        #expect(problems("fields:\n  - &f {name: a, type: string}\n  - *f\n") == [
            "m.yaml:2:5: field 'a': the name is used by more than one field",
        ])
        let text = "ignore: &list [x]\nnaming: snake_case\nfields:\n  - {name: a, type: string}\n"
        #expect(try MappingSchema(mappingText: text).fields.map(\.name) == ["a"])
        // An alias stands for the list anchored before: its entries are read (and their problems placed) there.
        #expect(problems("x: &fs [{name: a, type: integer}]\nfields: *fs\n") == [
            "m.yaml:1:1: unknown top-level key 'x' (known: fields, header, ignore, key, naming, nulls, records, skip, unmapped)",
            "m.yaml:1:25: field 'a': unknown type 'integer' (known: string, int64, double, bool, json, uint64, date, url, bytes, enum, decimal)",
        ])
    }

    /// Booleans are YAML's own spellings, unquoted; a quoted or `!!str` one is text.
    @Test(arguments: [("true", true), ("yes", true), ("On", true), ("FALSE", false), ("no", false), ("off", false)])
    func plainBooleansInAnyCase(_ spelling: String, _ value: Bool) throws {
        let schema = try MappingSchema(mappingText: "fields: [{name: a, type: string, optional: \(spelling)}]")
        #expect(schema.fields[0].isOptional == value)
    }

    @Test(arguments: ["\"true\"", "'yes'", "!!str true", "1", "maybe"])
    func quotedOrTaggedBooleansAreText(_ spelling: String) {
        #expect(problems("fields: [{name: a, type: string, optional: \(spelling)}]") == [
            "m.yaml:1:44: field 'a': 'optional' must be true or false",
        ])
    }

    @Test func skipIsAPlainWholeNumber() throws {
        #expect(try MappingSchema(mappingText: "skip: 3\nfields: [{name: a, type: string}]").options.skippedRecords == 3)
        #expect(problems("skip: \"3\"\nfields: [{name: a, type: string}]") == ["m.yaml:1:7: 'skip' must be a number of records, 0 or more"])
        #expect(problems("skip: 1.5\nfields: [{name: a, type: string}]") == ["m.yaml:1:7: 'skip' must be a number of records, 0 or more"])
    }

    @Test func lengthsAreCountedAsSkipIs() throws {
        let schema = try MappingSchema(mappingText: "fields: [{name: a, type: string, validate: {minLength: 2, lengthRange: [1, 3]}}]")
        #expect(schema.fields.first?.validators == [.minLength(2), .lengthRange(1...3)])
        #expect(problems(#"fields: [{name: a, type: string, validate: {minLength: "2"}}]"#).map { $0.hasSuffix("validator 'minLength' takes a whole number") } == [true])
        #expect(problems(#"fields: [{name: a, type: string, validate: {lengthRange: [1, "3"]}}]"#).map { $0.hasSuffix("validator 'lengthRange' takes [minimum, maximum]") } == [true])
    }

    /// A file of many fields reads as a file of few: the same fields, problems at their own lines.
    @Test func aLongFieldListIsReadWholeWithEveryProblemInPlace() throws {
        var text = "fields:\n"
        for index in 0..<5_000 { text += "  - {name: f\(index), path: k\(index), type: \(index == 4_321 ? "integer" : "string"), optional: true}\n" }
        #expect(problems(text) == ["m.yaml:4323:38: field 'f4321': unknown type 'integer' (known: string, int64, double, bool, json, uint64, date, url, bytes, enum, decimal)"])
        let schema = try MappingSchema(mappingText: text.replacingOccurrences(of: "integer", with: "int64"))
        #expect(schema.fields.count == 5_000)
        #expect(schema.fields[4_321] == FieldSpec(name: "f4321", path: "k4321", type: .int64, isOptional: true))
    }
}
