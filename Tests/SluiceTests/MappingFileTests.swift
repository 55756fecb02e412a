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

    @Test func reportsEveryProblemWithItsLine() {
        #expect(throws: SluiceError.self) { try MappingSchema(mappingText: "fields: []") }
        do {
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
            Issue.record("expected an error")
        } catch {
            guard case .invalidMapping(let problems) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(problems.map(\.description) == [
                "m.yaml:9: unknown top-level key 'extra' (known: fields, header, ignore, naming, records, skip, unmapped)",
                "m.yaml:2: field 'id': unknown type 'integer' (known: string, int64, double, bool, json, uint64, date, url, bytes, enum)",
                "m.yaml:4: field 'x': unknown key 'typ' (known: default, formats, name, optional, path, transform, truncate, type, unique, unit, validate, values)",
                "m.yaml:4: field 'x': 'type' is missing",
                "m.yaml:6: field #3: 'name' is missing",
                "m.yaml:6: field #3: 'optional' must be true or false",
            ])
        }
    }

    @Test func rejectsTextThatIsNotYAML() {
        do {
            _ = try MappingSchema(mappingText: "fields: [", source: "bad.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("bad.yaml: not valid YAML or JSON"))
        }
    }

    @Test func bundledExampleCompiles() throws {
        let schema = try MappingSchema(contentsOfFile: fixturesDirectory.appendingPathComponent("examples/tweets.mapping.yaml").path)
        #expect(schema.fields.count == 14)
    }
}
