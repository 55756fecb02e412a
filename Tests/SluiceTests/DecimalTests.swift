import Foundation
import Testing
@testable import Sluice

/// The `decimal` type: exact from the number's text, in its declared precision and scale, rounded only as declared;
/// its mapping-file settings; and a differential against Python's `decimal` module, which implements the same
/// rounding rules independently.
@Suite struct DecimalTests {
    func decimal(_ name: String = "v", path: String? = nil, precision: Int, scale: Int, rounding: DecimalRounding? = nil, optional: Bool = false) -> FieldSpec {
        var field = FieldSpec(name: name, path: path, type: .decimal, isOptional: optional)
        field.decimalFormat = DecimalFormat(precision: precision, scale: scale, rounding: rounding)
        return field
    }

    /// The value of `v` read from `{"v": <json>}` as the row shows it, or the rejection's failures.
    func convert(_ json: String, precision: Int = 10, scale: Int = 2, rounding: DecimalRounding? = nil) throws -> String {
        let result = try transcript(of: "{\"v\":\(json)}\n", fields: [decimal(precision: precision, scale: scale, rounding: rounding)])
        if let row = result.rows.first { return String(row.split(separator: "=", maxSplits: 1)[1]) }
        return result.rejections.first.map { String($0.split(separator: ": ", maxSplits: 1)[1]) } ?? "nothing"
    }

    func run(_ mapping: String, _ text: String) throws -> RunTranscript {
        let schema = try MappingSchema(mappingText: mapping)
        return try transcript(of: text, fields: schema.fields, schemaOptions: schema.options)
    }

    func problems(_ mapping: String) -> [String] {
        // Without the file's name and position, which the mapping-file tests check.
        mappingProblems { _ = try MappingSchema(mappingText: mapping) }.map { String($0.description.split(separator: ": ", maxSplits: 1).last ?? "") }
    }

    @Test func numbersAndNumericStringsAreExactInTheCanonicalText() throws {
        #expect(try convert("0.1") == "0.10")
        #expect(try convert("-12345678.99") == "-12345678.99")
        #expect(try convert("12") == "12.00")
        #expect(try convert("\"12.5\"") == "12.50")
        #expect(try convert("\"+7\"") == "7.00")
        #expect(try convert("1.5e3") == "1500.00")
        #expect(try convert("125e-2") == "1.25")
        #expect(try convert("0.000") == "0.00")
        #expect(try convert("-0") == "0.00")
        #expect(try convert("-0.0e5") == "0.00")
        #expect(try convert("0.05") == "0.05")
        #expect(try convert("7.10000000000000000000000000000000000000000") == "7.10")
        #expect(try convert("42", precision: 2, scale: 0) == "42")
        #expect(try convert("0.5", precision: 1, scale: 1) == "0.5")
        #expect(try convert("1234567890123456789012345678.0123456789", precision: 38, scale: 10) == "1234567890123456789012345678.0123456789")
        #expect(try convert("-99999999999999999999999999999999999999", precision: 38, scale: 0) == "-99999999999999999999999999999999999999")
    }

    @Test func morePlacesThanTheScaleIsARejectionUnlessARoundingIsDeclared() throws {
        #expect(try convert("1.005") == "$.v: expected decimal(10,2) (at most 2 decimal places; declare a rounding to round), found number 1.005")
        #expect(try convert("\"0.001\"") == "$.v: expected decimal(10,2) (at most 2 decimal places; declare a rounding to round), found string \"0.001\"")
        #expect(try convert("1e-1000000") == "$.v: expected decimal(10,2) (at most 2 decimal places; declare a rounding to round), found number 1e-1000000")
        #expect(try convert("1.005", rounding: .halfUp) == "1.01")
        #expect(try convert("1.005", rounding: .halfEven) == "1.00")
        #expect(try convert("1e-1000000", rounding: .up) == "0.01")
        #expect(try convert("-1e-1000000", rounding: .halfEven) == "0.00")
        // An exponent past the limit that the literal's own zeros bring back: its value, not a clamped one.
        let zeros = String(repeating: "0", count: 1_000_005)
        #expect(try convert("1" + zeros + "e-1000010").hasPrefix("$.v: expected decimal(10,2) (at most 2 decimal places"))
        #expect(try convert("1" + zeros + "e-1000010", rounding: .up) == "0.01")
        #expect(try convert("0." + zeros + "1e1000010") == "10000.00")
    }

    @Test func moreDigitsBeforeThePointThanThePrecisionLeavesIsARejection() throws {
        #expect(try convert("123456789") == "$.v: expected decimal(10,2) (at most 8 digits before the point), found number 123456789")
        #expect(try convert("1e8") == "$.v: expected decimal(10,2) (at most 8 digits before the point), found number 1e8")
        #expect(try convert("1e1000000") == "$.v: expected decimal(10,2) (at most 8 digits before the point), found number 1e1000000")
        #expect(try convert("99999999.99") == "99999999.99")
        // Rounding can carry into a digit the precision has no room for.
        #expect(try convert("99999999.995", rounding: .halfUp) == "$.v: expected decimal(10,2) (at most 8 digits before the point), found number 99999999.995")
        #expect(try convert("9.995", precision: 3, scale: 2, rounding: .halfUp) == "$.v: expected decimal(3,2) (at most 1 digit before the point), found number 9.995")
        #expect(try convert("9.995", precision: 3, scale: 2, rounding: .down) == "9.99")
        #expect(try convert("9.995", precision: 4, scale: 2, rounding: .halfUp) == "10.00")
        #expect(try convert("1", precision: 2, scale: 2) == "$.v: expected decimal(2,2) (less than 1 in magnitude), found number 1")
        #expect(try convert("0.5", precision: 3, scale: 0) == "$.v: expected decimal(3,0) (a whole number; declare a rounding to round), found number 0.5")
        #expect(try convert("0.05", precision: 3, scale: 1) == "$.v: expected decimal(3,1) (at most 1 decimal place; declare a rounding to round), found number 0.05")
        #expect(try convert("0.995", precision: 3, scale: 2, rounding: .up) == "1.00")
    }

    @Test(arguments: [
        // value, then half-even, half-up, half-down, up, down, ceiling, floor, at scale 0
        ("2.5", ["2", "3", "2", "3", "2", "3", "2"]),
        ("3.5", ["4", "4", "3", "4", "3", "4", "3"]),
        ("-2.5", ["-2", "-3", "-2", "-3", "-2", "-2", "-3"]),
        ("2.51", ["3", "3", "3", "3", "2", "3", "2"]),
        ("2.4999", ["2", "2", "2", "3", "2", "3", "2"]),
        ("-0.4", ["0", "0", "0", "-1", "0", "0", "-1"]),
        ("9.5", ["10", "10", "9", "10", "9", "10", "9"]),
        ("7", ["7", "7", "7", "7", "7", "7", "7"]),
    ])
    func everyRoundingModeRoundsAsNamed(value: String, expected: [String]) throws {
        let modes: [DecimalRounding] = [.halfEven, .halfUp, .halfDown, .up, .down, .ceiling, .floor]
        for (mode, result) in zip(modes, expected) {
            #expect(try convert(value, precision: 5, scale: 0, rounding: mode) == result, "\(value) \(mode)")
        }
    }

    @Test func otherKindsAreRejections() throws {
        #expect(try convert("true") == "$.v: expected decimal(10,2), found true")
        #expect(try convert("\"1,5\"") == "$.v: expected decimal(10,2), found string \"1,5\"")
        #expect(try convert("\"\"") == "$.v: expected decimal(10,2), found string \"\"")
        #expect(try convert("\" 1\"") == "$.v: expected decimal(10,2), found string \" 1\"")
        #expect(try convert("{}") == "$.v: expected decimal(10,2), found an object")
        #expect(try convert("[1]") == "$.v: expected decimal(10,2), found an array")
        #expect(try convert("null") == "$.v: expected decimal(10,2), found null")
    }

    @Test func theNumberCleanupFeedsIt() throws {
        let result = try run("fields: [{name: v, type: decimal, precision: 12, scale: 2, clean: [number]}]", """
            {"v":"$1,299.99"}
            {"v":"-€ 5"}
            {"v":"$.99"}
            {"v":"1,29"}

            """)
        #expect(result.rows.map { $0.split(separator: " ")[1] } == ["v=1299.99", "v=-5.00", "v=0.99"])
        #expect(result.rejections.count == 1)
    }

    @Test func listsHoldEachElementInTheCanonicalText() throws {
        let result = try transcript(of: "{\"l\":[1, 2.5, \"-0.001\", 1e2]}\n{\"l\":[1.0001]}\n", fields: [decimal("l", path: "l.*", precision: 6, scale: 3)])
        #expect(result.rows.map { String($0.split(separator: " ")[1]) } == ["l=[1.000,2.500,-0.001,100.000]"])
        #expect(result.rejections == ["record 2 (line 2, byte 30): $.l.*: expected decimal(6,3) (at most 3 decimal places; declare a rounding to round), found number 1.0001"])
    }

    @Test func defaultsAndOrderedValidatorsTakeTheFieldsShape() throws {
        let result = try run("""
            fields:
              - {name: v, type: decimal, precision: 6, scale: 2, default: 0, validate: {range: [-1.5, "100"]}}
            """, "{}\n{\"v\":-1.5}\n{\"v\":100}\n{\"v\":100.01}\n{\"v\":-1.51}\n{\"v\":99.99}\n{\"v\":-0.5}\n")
        #expect(result.rows.map { String($0.split(separator: " ")[1]) } == ["v=0.00", "v=-1.50", "v=100.00", "v=99.99", "v=-0.50"])
        #expect(result.rejections.count == 2)
        #expect(result.rejections == ["record 4 (line 4, byte 24): $.v: range(-1.50...100.00) failed, found number 100.01",
                                      "record 5 (line 5, byte 37): $.v: range(-1.50...100.00) failed, found number -1.51"])
        let minimum = try run("fields: [{name: v, type: decimal, precision: 30, scale: 0, validate: {min: 99999999999999999999}}]",
                              "{\"v\":99999999999999999998}\n{\"v\":99999999999999999999}\n{\"v\":100000000000000000000}\n")
        #expect(minimum.rows.count == 2 && minimum.rejections.count == 1, "\(minimum)")
        // A bound is exact: the field's rounding is for its values, and does not move the bound.
        #expect(problems("fields: [{name: v, type: decimal, precision: 6, scale: 2, rounding: half-up, validate: {max: 9.995}}]").count == 1)
        let rounded = try run("fields: [{name: v, type: decimal, precision: 6, scale: 2, rounding: half-up, validate: {max: 9.99}}]", "{\"v\":9.994}\n{\"v\":9.995}\n")
        #expect(rounded.rows.map { String($0.split(separator: " ")[1]) } == ["v=9.99"] && rounded.rejections.count == 1, "\(rounded)")
    }

    @Test func mappingFilesSayWhatIsWrongWithADecimalField() {
        #expect(problems("fields: [{name: v, type: decimal}]") == ["field 'v': a decimal field needs a precision (1 to 38), and a scale unless it holds whole numbers: precision: 10, scale: 2"])
        #expect(problems("fields: [{name: v, type: decimal, precision: 39}]") == ["field 'v': precision 39 is outside 1 to 38"])
        #expect(problems("fields: [{name: v, type: decimal, precision: 0}]") == ["field 'v': precision 0 is outside 1 to 38"])
        #expect(problems("fields: [{name: v, type: decimal, precision: 5, scale: 6}]") == ["field 'v': scale 6 is outside 0 to the precision, 5"])
        #expect(problems("fields: [{name: v, type: decimal, precision: 5, scale: -1}]") == ["field 'v': scale -1 is outside 0 to the precision, 5"])
        #expect(problems("fields: [{name: v, type: decimal, precision: ten}]").contains("field 'v': 'precision' must be a whole number"), "\(problems("fields: [{name: v, type: decimal, precision: ten}]"))")
        #expect(problems("fields: [{name: v, type: decimal, scale: 2}]").first?.contains("'scale' and 'rounding' need a 'precision'") == true)
        #expect(problems("fields: [{name: v, type: decimal, precision: 5, rounding: half_even}]").first?.contains("'rounding' must be one of half-even, half-up, half-down, up, down, ceiling, floor; did you mean 'half-even'?") == true)
        #expect(problems("fields: [{name: v, type: double, precision: 5}]") == ["field 'v': precision, scale and rounding apply to decimal fields, not double"])
        #expect(problems("fields: [{name: v, type: decimal, precision: 4, scale: 2, default: 123}]") == ["field 'v': the default 123 is not a decimal(4,2) (at most 2 digits before the point)"])
        #expect(problems("fields: [{name: v, type: decimal, precision: 4, scale: 2, default: abc}]") == ["field 'v': the default \"abc\" is not a number"])
        #expect(problems("fields: [{name: v, type: decimal, precision: 4, scale: 2, validate: {min: 0.001}}]") == ["field 'v': min(\"0.001\"): \"0.001\" is not a value of type decimal"])
    }

    /// Random literals (long and short, with exponents, near every rounding tie) through every rounding mode and
    /// several shapes, against Python's `decimal.quantize` with the same rounding and a check of the precision.
    @Test func everyRoundingAgreesWithPythonsDecimalModule() throws {
        let python = try #require(ProcessInfo.processInfo.environment["SLUICE_TEST_PYTHON"], "run the tests through scripts/test (it sets SLUICE_TEST_PYTHON)")
        var random = ParquetCase.Generator(state: 0xDEC1)
        func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(random.next() % 10)) }) }
        var literals: [String] = []
        for _ in 0..<600 {
            var text = random.next() % 3 == 0 ? "-" : ""
            text += random.next() % 4 == 0 ? "0" : String(1 + random.next() % 9) + digits(Int(random.next() % 20))
            if random.next() % 3 != 0 {
                // Fractions that end in 5 sit on a tie at some scale.
                text += "." + digits(Int(random.next() % 12)) + (random.next() % 2 == 0 ? "5" : String(random.next() % 10))
            }
            if random.next() % 4 == 0 { text += "e" + String(Int(random.next() % 30) - 15) }
            literals.append(text)
        }
        let shapes = [(38, 0), (10, 2), (20, 7), (5, 5), (18, 3)]
        var fields: [FieldSpec] = []
        for (precision, scale) in shapes {
            for mode in DecimalRounding.allCases {
                fields.append(decimal("p\(precision)s\(scale)\(mode.rawValue)", path: "v", precision: precision, scale: scale, rounding: mode, optional: true))
            }
        }
        // One record a literal and a field, so that one rejection names one outcome.
        var ours: [String] = []
        let input = literals.map { "{\"v\":\($0)}\n" }.joined()
        for field in fields {
            let result = try transcript(of: input, fields: [field], options: ReaderOptions(rejectionPolicy: .collect))
            var byOrdinal: [Int: String] = [:]
            for row in result.rows {
                let ordinal = Int(row.dropFirst().prefix { $0 != "@" }) ?? 0
                byOrdinal[ordinal] = String(row.split(separator: "=", maxSplits: 1)[1])
            }
            for index in literals.indices { ours.append(byOrdinal[index + 1] ?? "out of range") }
        }
        let script = """
            import decimal, sys
            literals = sys.stdin.read().split()
            modes = {"half-even": decimal.ROUND_HALF_EVEN, "half-up": decimal.ROUND_HALF_UP, "half-down": decimal.ROUND_HALF_DOWN,
                     "up": decimal.ROUND_UP, "down": decimal.ROUND_DOWN, "ceiling": decimal.ROUND_CEILING, "floor": decimal.ROUND_FLOOR}
            context = decimal.Context(prec=200)
            for precision, scale in [\(shapes.map { "(\($0.0), \($0.1))" }.joined(separator: ", "))]:
                for mode in [\(DecimalRounding.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))]:
                    for text in literals:
                        value = context.create_decimal(text).quantize(decimal.Decimal(1).scaleb(-scale), rounding=modes[mode], context=context)
                        # The unscaled integer's digits: what the precision bounds.
                        if len(str(abs(value).scaleb(scale, context=context)).lstrip("0")) > precision:
                            print("out of range")
                        else:
                            text = format(value, "f")
                            print(text[1:] if text.startswith("-") and decimal.Decimal(text) == 0 else text)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script]
        let standardInput = Pipe(), output = Pipe()
        process.standardInput = standardInput
        process.standardOutput = output
        try process.run()
        standardInput.fileHandleForWriting.write(Data(literals.joined(separator: "\n").utf8))
        try standardInput.fileHandleForWriting.close()
        let expected = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(String.init)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(expected.count == ours.count)
        var mismatches: [String] = []
        for index in 0..<min(expected.count, ours.count) where expected[index] != ours[index] {
            let field = fields[index / literals.count]
            mismatches.append("\(literals[index % literals.count]) as \(field.name): Sluice \(ours[index]), Python \(expected[index])")
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }
}
