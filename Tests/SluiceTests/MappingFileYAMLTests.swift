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
        let text = "ignore: &list [x]\nnaming: snake_case\nfields: &fs\n  - {name: a, type: string}\n"
        #expect(try MappingSchema(mappingText: text).fields.map(\.name) == ["a"])
        // An alias stands for the list anchored before: its entries are read (and their problems placed) there.
        #expect(problems("x: &fs [{name: a, type: integer}]\nfields: *fs\n") == [
            "m.yaml:1:1: unknown top-level key 'x' (known: fields, header, ignore, naming, nulls, records, skip, unmapped)",
            "m.yaml:1:25: field 'a': unknown type 'integer' (known: string, int64, double, bool, json, uint64, date, url, bytes, enum)",
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

    /// A file of many fields reads as a file of few: the same fields, problems at their own lines.
    @Test func aLongFieldListIsReadWholeWithEveryProblemInPlace() throws {
        var text = "fields:\n"
        for index in 0..<5_000 { text += "  - {name: f\(index), path: k\(index), type: \(index == 4_321 ? "integer" : "string"), optional: true}\n" }
        #expect(problems(text) == ["m.yaml:4323:38: field 'f4321': unknown type 'integer' (known: string, int64, double, bool, json, uint64, date, url, bytes, enum)"])
        let schema = try MappingSchema(mappingText: text.replacingOccurrences(of: "integer", with: "int64"))
        #expect(schema.fields.count == 5_000)
        #expect(schema.fields[4_321] == FieldSpec(name: "f4321", path: "k4321", type: .int64, isOptional: true))
    }
}
