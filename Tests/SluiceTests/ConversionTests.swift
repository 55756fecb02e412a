import Testing
@testable import Sluice

/// One test per conversion rule: each maps one NDJSON line through one field and looks at the value or the
/// rejection it gives.
@Suite struct ConversionTests {
    /// The value of field `v` read from `{"v": <json>}`, or the rejection's failures.
    func convert(_ json: String, to type: FieldType, optional: Bool = false) throws -> String {
        let result = try transcript(of: "{\"v\":\(json)}\n", fields: [field("v", type, optional: optional)])
        if let row = result.rows.first { return String(row.split(separator: "=", maxSplits: 1)[1]) }
        return result.rejections.first.map { String($0.split(separator: ": ", maxSplits: 1)[1]) } ?? "nothing"
    }

    @Test func stringFromStringDecodesEscapesAndKeepsUnicode() throws {
        #expect(try convert(#""caf\u00e9 \"q\" \n 東京 😀""#, to: .string) == "\"café \"q\" \n 東京 😀\"")
        #expect(try convert(#""""#, to: .string) == "\"\"")
    }

    @Test func stringFromNumberIsTheLiteralText() throws {
        #expect(try convert("0.1", to: .string) == "\"0.1\"")
        #expect(try convert("1E400", to: .string) == "\"1E400\"")
        #expect(try convert("190957570511478800", to: .string) == "\"190957570511478800\"")
    }

    @Test func stringFromOtherKindsIsARejection() throws {
        #expect(try convert("true", to: .string) == "$.v: expected string, found true")
        #expect(try convert("{}", to: .string) == "$.v: expected string, found an object")
        #expect(try convert("[1]", to: .string) == "$.v: expected string, found an array")
    }

    @Test func int64FromIntegerLiteralsIsExact() throws {
        #expect(try convert("0", to: .int64) == "0")
        #expect(try convert("-17", to: .int64) == "-17")
        #expect(try convert("190957570511478800", to: .int64) == "190957570511478800")
        #expect(try convert("9223372036854775807", to: .int64) == "9223372036854775807")
        #expect(try convert("-9223372036854775808", to: .int64) == "-9223372036854775808")
    }

    @Test func int64AcceptsIntegralFractionsAndExponents() throws {
        #expect(try convert("3.0", to: .int64) == "3")
        #expect(try convert("1e3", to: .int64) == "1000")
        #expect(try convert("12.5e1", to: .int64) == "125")
        #expect(try convert("-0.0", to: .int64) == "0")
        #expect(try convert("1500e-2", to: .int64) == "15")
    }

    @Test func int64RejectsFractions() throws {
        #expect(try convert("3.5", to: .int64) == "$.v: expected int64 (an integer), found number 3.5")
        #expect(try convert("1e-1", to: .int64) == "$.v: expected int64 (an integer), found number 1e-1")
    }

    @Test func int64OverflowIsARejectionNeverAWrap() throws {
        #expect(try convert("9223372036854775808", to: .int64) == "$.v: expected int64 (within ±9223372036854775807), found number 9223372036854775808")
        #expect(try convert("-9223372036854775809", to: .int64) == "$.v: expected int64 (within ±9223372036854775807), found number -9223372036854775809")
        #expect(try convert("1e19", to: .int64) == "$.v: expected int64 (within ±9223372036854775807), found number 1e19")
        #expect(try convert("1e999999999999", to: .int64) == "$.v: expected int64 (within ±9223372036854775807), found number 1e999999999999")
    }

    @Test func int64FromNumericStringsIsExactAndNothingElse() throws {
        #expect(try convert(#""12""#, to: .int64) == "12")
        #expect(try convert(#""-7""#, to: .int64) == "-7")
        #expect(try convert(#""+5""#, to: .int64) == "5")
        #expect(try convert(#""007""#, to: .int64) == "7")
        #expect(try convert(#""190957570511478800""#, to: .int64) == "190957570511478800")
        #expect(try convert(#""9223372036854775808""#, to: .int64) == "$.v: expected int64 (within ±9223372036854775807), found string \"9223372036854775808\"")
        #expect(try convert(#""1.5""#, to: .int64) == "$.v: expected int64, found string \"1.5\"")
        #expect(try convert(#""3.0""#, to: .int64) == "$.v: expected int64, found string \"3.0\"")
        #expect(try convert(#"" 12""#, to: .int64) == "$.v: expected int64, found string \" 12\"")
        #expect(try convert(#""12abc""#, to: .int64) == "$.v: expected int64, found string \"12abc\"")
        #expect(try convert(#""""#, to: .int64) == "$.v: expected int64, found string \"\"")
        #expect(try convert("true", to: .int64) == "$.v: expected int64, found true")
    }

    @Test func int64TruncatesFractionsOnlyWhenTheFieldSaysSo() throws {
        let truncating = FieldSpec(name: "v", type: .int64, truncatesFractions: true)
        #expect(try transcript(of: "{\"v\":3.9}\n{\"v\":-3.9}\n{\"v\":1e-5}\n", fields: [truncating]).rows == ["#1@1:0 v=3", "#2@2:10 v=-3", "#3@3:21 v=0"])
        #expect(try convert("3.9", to: .int64) == "$.v: expected int64 (an integer), found number 3.9")
    }

    @Test func uint64CoversTheFullUnsignedRange() throws {
        #expect(try convert("18446744073709551615", to: .uint64) == "18446744073709551615")
        #expect(try convert(#""18446744073709551615""#, to: .uint64) == "18446744073709551615")
        #expect(try convert("-0", to: .uint64) == "0")
        #expect(try convert("-1", to: .uint64) == "$.v: expected uint64 (0 to 18446744073709551615), found number -1")
        #expect(try convert("18446744073709551616", to: .uint64) == "$.v: expected uint64 (0 to 18446744073709551615), found number 18446744073709551616")
        #expect(try convert("2.5", to: .uint64) == "$.v: expected uint64 (an integer), found number 2.5")
    }

    @Test func doubleFromNumbersRoundsCorrectly() throws {
        #expect(try convert("1.5", to: .double) == "1.5")
        #expect(try convert("0.1", to: .double) == "0.1")
        #expect(try convert("-2", to: .double) == "-2.0")
        #expect(try convert("3.141592653589793238462643383279", to: .double) == String(3.141592653589793))
        #expect(try convert("1.7976931348623157e308", to: .double) == String(Double.greatestFiniteMagnitude))
        #expect(try convert("5e-324", to: .double) == String(Double.leastNonzeroMagnitude))
        #expect(try convert("1e-999", to: .double) == "0.0")
    }

    @Test func doubleBeyondItsRangeIsARejection() throws {
        #expect(try convert("1e400", to: .double) == "$.v: expected double (finite), found number 1e400")
        #expect(try convert("-1e400", to: .double) == "$.v: expected double (finite), found number -1e400")
    }

    @Test func doubleFromNumericStringsAtFullPrecision() throws {
        #expect(try convert(#""1.5""#, to: .double) == "1.5")
        #expect(try convert(#""-2e3""#, to: .double) == "-2000.0")
        #expect(try convert(#""0.30000000000000004""#, to: .double) == "0.30000000000000004")
        #expect(try convert(#""1e400""#, to: .double) == "$.v: expected double (finite), found string \"1e400\"")
        #expect(try convert(#""NaN""#, to: .double) == "$.v: expected double, found string \"NaN\"")
        #expect(try convert(#""1.""#, to: .double) == "$.v: expected double, found string \"1.\"")
        #expect(try convert(#""abc""#, to: .double) == "$.v: expected double, found string \"abc\"")
        #expect(try convert("null", to: .double) == "$.v: expected double, found null")
    }

    @Test func boolFromLiteralsWordsAndZeroOrOne() throws {
        #expect(try convert("true", to: .bool) == "true")
        #expect(try convert("false", to: .bool) == "false")
        #expect(try convert(#""TRUE""#, to: .bool) == "true")
        #expect(try convert(#""False""#, to: .bool) == "false")
        #expect(try convert("1", to: .bool) == "true")
        #expect(try convert("0", to: .bool) == "false")
        #expect(try convert("1.0", to: .bool) == "true")
        #expect(try convert(#""1""#, to: .bool) == "true")
        #expect(try convert(#""0""#, to: .bool) == "false")
        #expect(try convert("2", to: .bool) == "$.v: expected bool, found number 2")
        #expect(try convert(#""yes""#, to: .bool) == "$.v: expected bool, found string \"yes\"")
        #expect(try convert(#""abc""#, to: .bool) == "$.v: expected bool, found string \"abc\"")
        #expect(try convert(#""01""#, to: .bool) == "$.v: expected bool, found string \"01\"")
        #expect(try convert("{}", to: .bool) == "$.v: expected bool, found an object")
    }

    @Test func jsonKeepsContainersAsWrittenAndReencodesScalars() throws {
        #expect(try convert(#"{ "a" : [1, 2.50, {"b":null}] }"#, to: .json) == #"{ "a" : [1, 2.50, {"b":null}] }"#)
        #expect(try convert("[]", to: .json) == "[]")
        #expect(try convert(#""line\nbreak \"q\" \u0001""#, to: .json) == #""line\nbreak \"q\" \u0001""#)
        #expect(try convert("-0.10", to: .json) == "-0.10")
        #expect(try convert("false", to: .json) == "false")
    }

    @Test func nullIsNullForOptionalFieldsAndARejectionOtherwise() throws {
        #expect(try convert("null", to: .string, optional: true) == "null")
        #expect(try convert("null", to: .json, optional: true) == "null")
        #expect(try convert("null", to: .int64) == "$.v: expected int64, found null")
    }

    @Test func missingIsNullForOptionalFieldsAndARejectionOtherwise() throws {
        let optional = try transcript(of: "{}\n", fields: [field("v", .int64, optional: true)])
        #expect(optional.rows == ["#1@1:0 v=null"])
        let required = try transcript(of: "{}\n", fields: [field("v", .int64)])
        #expect(required.rejections == ["record 1 (line 1, byte 0): $.v: expected int64, found no value"])
    }

    @Test func duplicateKeysKeepTheLastValue() throws {
        let result = try transcript(of: #"{"s":"first","s":"second","n":1,"n":2}"# + "\n", fields: [field("s", .string), field("n", .int64)])
        #expect(result.rows == ["#1@1:0 s=\"second\" n=2"])
    }

    /// The 16-to-19-digit path (long division) against the standard library's correctly rounded parser, on
    /// random literals and on the halfway cases where rounding to even decides.
    @Test func longDecimalsRoundCorrectly() throws {
        var generator = SystemRandomNumberGenerator()
        var literals = ["0.1000000000000000055511151231257827", "9007199254740993", "9007199254740995.0", "0.30000000000000004",
                        "123456789012345678.9", "1.7976931348623157", "4.9406564584124654", "2.2250738585072014", "18446744073709551615",
                        "0.0000000000000000001", "9999999999999999999", "1000000000000000000.0", "0.1234567890123456789"]
        for _ in 0..<20000 {
            let digits = Int.random(in: 16...19, using: &generator)
            var text = String(UInt64.random(in: 1...UInt64.max, using: &generator) % 9_999_999_999_999_999_999 + 1)
            text = String(text.prefix(digits))
            let point = Int.random(in: 0...text.count, using: &generator)
            text.insert(".", at: text.index(text.startIndex, offsetBy: point))
            if text.hasPrefix(".") { text = "0" + text }
            if text.hasSuffix(".") { text += "0" }
            literals.append(text)
        }
        for literal in literals {
            let bytes = Array(literal.utf8)
            let parsed = bytes.withUnsafeBufferPointer { NumberConversion.double($0.baseAddress!, $0.count) }
            #expect(parsed == Double(literal), "\(literal)")
        }
    }

    @Test func numberConversionsAgreeWithTheStandardLibraryOnManyLiterals() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let value = Int64.random(in: Int64.min...Int64.max, using: &generator)
            let text = Array(String(value).utf8)
            let converted = text.withUnsafeBufferPointer { NumberConversion.int64($0.baseAddress!, $0.count) }
            #expect(converted == .value(value))
            let double = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator))
            guard double.isFinite else { continue }
            let doubleText = Array("\(double)".utf8)
            let parsed = doubleText.withUnsafeBufferPointer { NumberConversion.double($0.baseAddress!, $0.count) }
            #expect(parsed == double, "\(double)")
        }
    }

    /// Decimal literals of every shape the fast paths split on (leading zeros after the point, runs of digits across
    /// eight, 15 and 19 significant digits) give the Double the standard library parses.
    @Test func decimalLiteralsAgreeWithTheStandardLibrary() throws {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789")
        func run(_ count: Int) -> String { String((0..<count).map { _ in digits.randomElement(using: &generator)! }) }
        for _ in 0..<5000 {
            let integer = Bool.random(using: &generator) ? "0" : String(Int.random(in: 1...9, using: &generator)) + run(Int.random(in: 0...21, using: &generator))
            let zeros = integer == "0" ? String(repeating: "0", count: Int.random(in: 0...10, using: &generator)) : ""
            let fraction = zeros + run(Int.random(in: 1...21, using: &generator))
            let literal = (Bool.random(using: &generator) ? "-" : "") + integer + (Bool.random(using: &generator) ? "" : "." + fraction)
            let text = Array(literal.utf8)
            let parsed = text.withUnsafeBufferPointer { NumberConversion.double($0.baseAddress!, $0.count) }
            #expect(parsed?.bitPattern == Double(literal)?.bitPattern, "\(literal)")
        }
        // Twenty digits whose value wraps a 64-bit word to nothing, or nearly: counted as twenty, not read as 0.
        for literal in ["18446744073709551616", "36893488147419103232", "1844674407370955161.6", "-18446744073709551616", "18446744073709551617"] {
            let parsed = Array(literal.utf8).withUnsafeBufferPointer { NumberConversion.double($0.baseAddress!, $0.count) }
            #expect(parsed == Double(literal), "\(literal)")
        }
    }

    /// Digits are read eight at a time where eight remain: every length, and a byte that is no digit at any place.
    @Test func integersOfEveryLengthAndAByteAmissAnywhere() throws {
        var generator = SystemRandomNumberGenerator()
        for digits in 1...19 {
            for _ in 0..<50 {
                let power = (1..<digits).reduce(Int64(1)) { product, _ in product * 10 }
                let low = digits == 1 ? 0 : power
                let high = digits == 19 ? Int64.max : power * 10 - 1
                let value = Int64.random(in: low...high, using: &generator) * (Bool.random(using: &generator) ? -1 : 1)
                let text = Array(String(value).utf8)
                #expect(text.withUnsafeBufferPointer { NumberConversion.int64($0.baseAddress!, $0.count) } == .value(value), "\(value)")
                var damaged = text
                let at = Int.random(in: (value < 0 ? 1 : 0)..<text.count, using: &generator)
                damaged[at] = Array(":/ x\u{7F}".utf8).randomElement(using: &generator)!
                // Not a number: the word at a time path must give it up, as the digit at a time path does.
                let (fast, slow) = damaged.withUnsafeBufferPointer { buffer in
                    (NumberConversion.exactInteger(buffer.baseAddress!, buffer.count),
                     NumberConversion.exactIntegerSlow(buffer.baseAddress!, buffer.count, scale: 0, truncates: false, negative: value < 0, mantissaStart: value < 0 ? 1 : 0))
                }
                #expect(fast == slow, "\(String(decoding: damaged, as: UTF8.self))")
            }
        }
    }
}
