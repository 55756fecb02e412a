import Foundation
import Testing
@testable import Sluice

@Suite struct MappingFileTests {
    @Test func readsYAML() throws {
        let schema = try MappingSchema(mappingText: """
            fields:
              - name: id
                type: int64
              - name: user_name
                path: user.name
                type: string
                optional: true
            """)
        #expect(schema.fields == [FieldSpec(name: "id", path: "id", type: .int64), FieldSpec(name: "user_name", path: "user.name", type: .string, isOptional: true)])
    }

    @Test func readsTheSameFormatAsJSON() throws {
        let schema = try MappingSchema(mappingText: """
            {"fields": [{"name": "id", "type": "int64"}, {"name": "user_name", "path": "user.name", "type": "string", "optional": true}]}
            """)
        #expect(schema.fields.map(\.name) == ["id", "user_name"])
        #expect(schema.fields[1].isOptional)
    }

    @Test func pathDefaultsToTheNameWithDotsEscaped() throws {
        let schema = try MappingSchema(mappingText: "fields: [{name: a.b, type: string}]")
        #expect(schema.fields[0].path == "a\\.b")
    }

    /// `ignore` takes key paths only: a nested list (as a YAML alias to a list makes one) is refused, not passed over.
    @Test func ignoreTakesKeyPathsOnly() throws {
        #expect(throws: SluiceError.self) {
            try MappingSchema(mappingText: "fields:\n  - {name: id, type: int64}\nignore: [a, &l [b, c], *l]\n", source: "m.yaml")
        }
        let schema = try MappingSchema(mappingText: "fields:\n  - {name: id, type: int64}\nignore: [a, b.c]\n", source: "m.yaml")
        #expect(schema.options.ignoredPaths == ["a", "b.c"])
    }

    /// Nine levels of nine YAML aliases: a few hundred bytes that stand for 387 million leaves, as a list or a map.
    static let aliasBombs: String = {
        var list = ["&l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        var map = ["&m0 {k0: lol, k1: lol, k2: lol, k3: lol, k4: lol, k5: lol, k6: lol, k7: lol, k8: lol}"]
        for level in 1...9 {
            list.append("&l\(level) [" + Array(repeating: "*l\(level - 1)", count: 9).joined(separator: ", ") + "]")
            map.append("&m\(level) {" + (0..<9).map { "k\($0): *m\(level - 1)" }.joined(separator: ", ") + "}")
        }
        return "anchors: [" + (list + map).joined(separator: ", ") + "]\n"
    }()

    /// Every key of a field and of the file, given an alias bomb, is refused with a few short problems: nothing
    /// walks the tree the aliases stand for (which would not end, or not fit in memory).
    @Test(arguments: MappingFile.fieldKeys.sorted().map { "field." + $0 } + MappingFile.topLevelKeys.sorted(), ["*l9", "*m9"])
    func anAliasBombAnywhereIsRefusedWithoutWalkingIt(_ key: String, _ bomb: String) {
        var text = Self.aliasBombs
        if key.hasPrefix("field.") {
            let fieldKey = String(key.dropFirst("field.".count))
            var entry = ["name": "f", "type": "json", "optional": "true"]
            entry[fieldKey] = bomb
            text += "fields:\n  - {" + entry.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}\n"
        } else {
            text += "\(key): \(bomb)\n"
            if key != "fields" { text += "fields:\n  - {name: f, type: json}\n" }
        }
        do {
            _ = try MappingSchema(mappingText: text, source: "m.yaml")
            Issue.record("accepted \(bomb) as \(key)")
        } catch {
            guard case .invalidMapping(let problems) = error else { Issue.record("unexpected \(error)"); return }
            // The unknown key `anchors`, and for the bomb at least one problem and at most one per entry of its
            // first level.
            #expect(problems.count >= 2 && problems.count <= 10, "\(problems)")
            #expect(problems.allSatisfy { $0.description.utf8.count < 300 }, "\(problems)")
        }
    }

    /// A mapping file that cannot be read, or is not text, says why in the system's words or the format's.
    @Test func anUnreadableMappingFileSaysWhy() throws {
        func message(_ path: String) -> String {
            do {
                _ = try MappingSchema(contentsOfFile: path)
                return "read"
            } catch {
                return error.description
            }
        }
        #expect(message(scratchDirectory.path) == "\(scratchDirectory.path): read error at byte 0: cannot read the mapping file: it is a directory")
        let missing = scratchPath("missing.yaml").path
        #expect(message(missing) == "\(missing): read error at byte 0: cannot read the mapping file: No such file or directory")
        let binary = try temporaryFile([0x66, 0x69, 0x65, 0x6C, 0x64, 0x73, 0x3A, 0xFF, 0xFE], name: "binary.yaml").path
        #expect(message(binary).hasSuffix("\(binary):1:1: not UTF-8 text (a mapping file is YAML or JSON in UTF-8)"))
    }

    @Test func reportsEveryProblemWithItsLineAndColumnInTheFilesOrder() {
        #expect(throws: SluiceError.self) { try MappingSchema(mappingText: "fields: []") }
        let problems = mappingProblems {
            _ = try MappingSchema(mappingText: """
                fields:
                  - name: id
                    type: integer
                  - name: x
                    typ: string
                  - path: y
                    type: bool
                    optional: maybe
                extra: 1
                """, source: "m.yaml")
        }
        #expect(problems.map(\.description) == [
            "m.yaml:3:11: field 'id': unknown type 'integer' (known: string, int64, double, bool, json, uint64, date, url, bytes, enum, decimal)",
            "m.yaml:4:5: field 'x': 'type' is missing",
            "m.yaml:5:5: field 'x': unknown key 'typ' (known: clean, default, formats, name, nulls, optional, path, precision, rounding, scale, table, transform, truncate, type, unique, unit, validate, values); did you mean 'type'?",
            "m.yaml:6:5: field #3: 'name' is missing",
            "m.yaml:8:15: field #3: 'optional' must be true or false",
            "m.yaml:9:1: unknown top-level key 'extra' (known: fields, header, ignore, key, naming, nulls, records, skip, unmapped)",
        ])
        #expect(problems.map(\.location?.line) == [3, 4, 5, 6, 8, 9])
    }

    @Test func aWrongOptionHidesNoOtherProblemAndCompilingsProblemsHaveTheirPlaceToo() {
        // A bad default used to stop the reading of the file before compiling found anything else.
        let problems = mappingProblems {
            _ = try MappingSchema(mappingText: """
                ignore: [ok, "a..b"]
                fields:
                  - {name: id, type: int64, default: abc}
                  - {name: id, type: string}
                  - {name: n, type: string, truncate: true}
                  - {name: when, type: date, unit: milliseconds, formats: [iso8601]}
                  - {name: tags, path: "tags.*", type: string, default: x}
                """, source: "m.yaml")
        }
        #expect(problems.map(\.description) == [
            "m.yaml:1:14: ignored path 'a..b': key path 'a..b' has an empty segment",
            "m.yaml:3:5: field 'id': the name is used by more than one field",
            "m.yaml:3:38: field 'id': the default \"abc\" is not an integer",
            "m.yaml:5:5: field 'n': truncation applies to int64 and uint64 fields, not string",
            "m.yaml:6:5: field 'when': the unit milliseconds is for epoch numbers, which the formats leave out (add epoch)",
            "m.yaml:7:5: field 'tags': a list takes no default",
        ])
    }

    @Test func rejectsTextThatIsNotYAML() {
        do {
            _ = try MappingSchema(mappingText: "fields: [", source: "bad.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.hasSuffix("bad.yaml:2:1: not valid YAML or JSON: while parsing a flow node, did not find expected node content"))
        }
    }

    @Test func bundledExampleCompiles() throws {
        let schema = try MappingSchema(contentsOfFile: fixturesDirectory.appendingPathComponent("examples/tweets.mapping.yaml").path)
        #expect(schema.fields.count == 14)
    }
}
