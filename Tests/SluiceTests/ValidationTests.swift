import Testing
@testable import Sluice

/// Validators: one test per rule, both declarations (FieldSpec, mapping file, typed), every failure listed.
@Suite struct ValidationTests {
    func check(_ json: String, _ type: FieldType, _ validators: [Validator], optional: Bool = false) throws -> String {
        let result = try transcript(of: "{\"v\":\(json)}\n", fields: [FieldSpec(name: "v", type: type, isOptional: optional, validators: validators)])
        if let row = result.rows.first { return "ok " + String(row.split(separator: "=", maxSplits: 1)[1]) }
        return result.rejections.first.map { String($0.split(separator: ": ", maxSplits: 1)[1]) } ?? "nothing"
    }

    /// A pattern that backtracks exponentially on some values (`^(a+)+$` on twenty-one `a`s and a `!`) gives up after
    /// a bounded number of steps and rejects the record, saying why; other values are matched as usual.
    @Test func aPatternGivesUpOnAHostileValueInsteadOfStalling() throws {
        var s = field("s", .string)
        s.validators = [.pattern("^(a+)+$")]
        let hostile = String(repeating: "a", count: 21) + "!"
        let result = try transcript(of: "{\"s\":\"\(hostile)\"}\n{\"s\":\"aaaa\"}\n{\"s\":\"b\"}\n", fields: [s], options: ReaderOptions(rejectionPolicy: .collect))
        #expect(result.rows == ["#2@2:31 s=\"aaaa\""])
        #expect(result.rejections == [
            "record 1 (line 1, byte 0): $.s: pattern(^(a+)+$) failed, found string \"\(hostile)\" (the pattern gave up after 1000000 matching steps)",
            "record 3 (line 3, byte 44): $.s: pattern(^(a+)+$) failed, found string \"b\"",
        ])
    }

    @Test func requiredMakesAnOptionalFieldRequired() throws {
        let result = try transcript(of: "{}\n{\"v\":null}\n{\"v\":\"x\"}\n", fields: [FieldSpec(name: "v", type: .string, isOptional: true, validators: [.required])])
        #expect(result.rejections == ["record 1 (line 1, byte 0): $.v: expected string, found no value", "record 2 (line 2, byte 3): $.v: expected string, found null"])
        #expect(result.rows == ["#3@3:14 v=\"x\""])
    }

    @Test func equalToAndOneOf() throws {
        #expect(try check("200", .int64, [.equalTo(200)]) == "ok 200")
        #expect(try check("201", .int64, [.equalTo(200)]) == "$.v: equalTo(200) failed, found 201")
        #expect(try check(#""b""#, .string, [.oneOf(["a", "b"])]) == "ok \"b\"")
        #expect(try check(#""c""#, .string, [.oneOf(["a", "b"])]) == "$.v: oneOf(\"a\", \"b\") failed, found string \"c\"")
    }

    @Test func lengthsCountUnicodeScalars() throws {
        #expect(try check(#""Bob""#, .string, [.lengthRange(5...12)]) == "$.v: lengthRange(5...12) failed, found string \"Bob\"")
        #expect(try check(#""Robert""#, .string, [.lengthRange(5...12)]) == "ok \"Robert\"")
        #expect(try check(#""東京都""#, .string, [.length(3)]) == "ok \"東京都\"")
        #expect(try check(#""😀😀""#, .string, [.maxLength(2), .minLength(2)]) == "ok \"😀😀\"")
        #expect(try check(#""aGVsbG8=""#, .bytes, [.length(5)]) == "ok base64:aGVsbG8=")
    }

    @Test func patternIsSearchedNotAnchored() throws {
        #expect(try check(#""order-123""#, .string, [.pattern("[0-9]+")]) == "ok \"order-123\"")
        #expect(try check(#""order""#, .string, [.pattern("[0-9]+")]) == "$.v: pattern([0-9]+) failed, found string \"order\"")
        #expect(try check(#""x-1""#, .string, [.pattern("^[a-z]+$")]) == "$.v: pattern(^[a-z]+$) failed, found string \"x-1\"")
    }

    @Test func boundsCompareExactly() throws {
        #expect(try check("9007199254740993", .int64, [.maximum(9_007_199_254_740_992)]) == "$.v: max(9007199254740992) failed, found 9007199254740993")
        #expect(try check("9007199254740992", .int64, [.maximum(9_007_199_254_740_992)]) == "ok 9007199254740992")
        #expect(try check("0.5", .double, [.range(0, 1)]) == "ok 0.5")
        #expect(try check("-0.1", .double, [.minimum(0)]) == "$.v: min(0.0) failed, found -0.1")
        #expect(try check("18446744073709551615", .uint64, [.range(.uint64(1), .uint64(.max))]) == "ok 18446744073709551615")
        #expect(try check(#""2020-01-01""#, .date, [.minimum("2021-01-01")]) == "$.v: min(2021-01-01T00:00:00Z) failed, found 2020-01-01T00:00:00Z")
    }

    @Test func nullPassesEverythingButRequired() throws {
        #expect(try check("null", .int64, [.minimum(10)], optional: true) == "ok null")
    }

    @Test func everyFailedValidatorIsListed() throws {
        let result = try transcript(of: #"{"name":"Bob","age":200,"code":"x"}"# + "\n", fields: [
            FieldSpec(name: "name", type: .string, validators: [.lengthRange(5...12), .pattern("^[a-z]")]),
            FieldSpec(name: "age", type: .int64, validators: [.range(0, 150)]),
            FieldSpec(name: "code", type: .string, validators: [.custom(name: "isDigits") { if case .string(let text) = $0 { text.allSatisfy(\.isNumber) } else { false } }]),
        ])
        #expect(result.rejections == [
            #"record 1 (line 1, byte 0): $.name: lengthRange(5...12) failed, found string "Bob"; $.name: pattern(^[a-z]) failed, found string "Bob"; $.age: range(0...150) failed, found 200; $.code: isDigits failed, found string "x""#,
        ])
    }

    @Test func validatorsAreCheckedAgainstTheFieldWhenThePlanCompiles() {
        do {
            _ = try MappingSchema(fields: [
                FieldSpec(name: "a", type: .int64, validators: [.lengthRange(1...2)]),
                FieldSpec(name: "b", type: .string, validators: [.minimum(1)]),
                FieldSpec(name: "c", type: .int64, validators: [.range(10, 5)]),
                FieldSpec(name: "d", type: .string, validators: [.pattern("(unclosed")]),
                FieldSpec(name: "e", type: .int64, validators: [.equalTo("x")]),
                FieldSpec(name: "f", type: .string, validators: [.minLength(-1)]),
            ])
            Issue.record("expected problems")
        } catch {
            guard case .invalidMapping(let problems) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(problems.count == 6)
            #expect(problems.map(\.description).prefix(3) == [
                "field 'a': lengthRange(1...2): applies to text and bytes, not int64",
                "field 'b': min(1): applies to numbers and dates, not string",
                "field 'c': range(10...5): its bounds are reversed",
            ])
            #expect(problems[3].description.hasPrefix("field 'd': pattern((unclosed): not a regular expression"))
            #expect(problems[4].description == "field 'e': equalTo(\"x\"): \"x\" is not a value of type int64")
        }
    }

    @Test func mappingFilesDeclareValidatorsAndNamedOnes() throws {
        var registry = MappingRegistry()
        registry.registerValidator(named: "isEven") { if case .int64(let value) = $0 { value % 2 == 0 } else { false } }
        let schema = try MappingSchema(mappingText: """
            fields:
              - {name: name, type: string, validate: {lengthRange: [3, 12], pattern: "^[A-Z]"}}
              - {name: age, type: int64, validate: {range: [0, 150], custom: isEven}}
              - {name: status, type: string, optional: true, validate: {oneOf: [active, closed], required: true}}
              - {name: code, type: int64, optional: true, validate: {equalTo: 200}}
            """, registry: registry)
        let result = try transcript(of: """
            {"name":"Ann","age":42,"status":"active","code":200}
            {"name":"bo","age":43,"status":"gone","code":404}

            """, fields: schema.fields)
        #expect(result.rows == [#"#1@1:0 name="Ann" age=42 status="active" code=200"#])
        #expect(result.rejections == [
            #"record 2 (line 2, byte 53): $.name: lengthRange(3...12) failed, found string "bo"; $.name: pattern(^[A-Z]) failed, found string "bo"; $.age: isEven failed, found 43; $.status: oneOf("active", "closed") failed, found string "gone"; $.code: equalTo(200) failed, found 404"#,
        ])
        #expect(throws: SluiceError.self) { try MappingSchema(mappingText: "fields: [{name: a, type: int64, validate: {custom: nope}}]") }
        #expect(throws: SluiceError.self) { try MappingSchema(mappingText: "fields: [{name: a, type: string, validate: {lengthRange: [9, 2]}}]") }
        #expect(throws: SluiceError.self) { try MappingSchema(mappingText: "fields: [{name: a, type: string, validate: {between: 1}}]") }
    }

    @Test func typedFieldsTakeValidators() throws {
        struct User: Sendable { var name = ""; var age: Int64 = 0 }
        let mapping = try Mapping(User.init) {
            Field("name", \.name).validated(.lengthRange(2...10))
            Field("age", \.age).validated(named: "isAdult") { if case .int64(let age) = $0 { age >= 18 } else { false } }
        }
        let reader = try TypedReader(input: .bytes(Array("{\"name\":\"Al\",\"age\":30}\n{\"name\":\"B\",\"age\":12}\n".utf8)), mapping: mapping, options: ReaderOptions(rejectionPolicy: .collect))
        let batch = try #require(try reader.next())
        #expect(batch.models.map(\.name) == ["Al"])
        #expect(batch.rejections.map(\.description) == [#"record 2 (line 2, byte 23): $.name: lengthRange(2...10) failed, found string "B"; $.age: isAdult failed, found 12"#])
    }
}
