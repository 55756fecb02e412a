import Foundation
import Testing
@testable import Sluice

/// The rest of the conversion table: dates, URLs, bytes, enums and defaults, one rule per test.
@Suite struct ConversionTableTests {
    /// The value of field `v` read from `{"v": <json>}` with `spec`, or the rejection's failures.
    func convert(_ json: String, _ spec: FieldSpec) throws -> String {
        let result = try transcript(of: "{\"v\":\(json)}\n", fields: [spec])
        if let row = result.rows.first { return String(row.split(separator: "=", maxSplits: 1)[1]) }
        return result.rejections.first.map { String($0.split(separator: ": ", maxSplits: 1)[1]) } ?? "nothing"
    }

    func date(_ unit: EpochUnit = .seconds, _ formats: [DateFormat] = DateFormat.defaults) -> FieldSpec {
        FieldSpec(name: "v", type: .date, epochUnit: unit, dateFormats: formats)
    }

    @Test func datesFromEpochNumbersAndNumericStringsInSecondsByDefault() throws {
        #expect(try convert("1409444955", date()) == "2014-08-31T00:29:15Z")
        #expect(try convert(#""1409444955""#, date()) == "2014-08-31T00:29:15Z")
        #expect(try convert("1409444955.5", date()) == "2014-08-31T00:29:15.500Z")
        #expect(try convert("-1", date()) == "1969-12-31T23:59:59Z")
        #expect(try convert("0", date()) == "1970-01-01T00:00:00Z")
    }

    @Test func datesInEachEpochUnit() throws {
        #expect(try convert("1409444955123", date(.milliseconds)) == "2014-08-31T00:29:15.123Z")
        #expect(try convert("1409444955123456", date(.microseconds)) == "2014-08-31T00:29:15.123456Z")
        #expect(try convert("1409444955123456789", date(.nanoseconds)) == "2014-08-31T00:29:15.123456789Z")
    }

    @Test func epochDatesAreExactOrRejected() throws {
        #expect(try convert("1.0000000001", date()) == "$.v: expected date (whole nanoseconds), found number 1.0000000001")
        #expect(try convert("99999999999", date()) == "$.v: expected date (from 1677-09-21 to 2262-04-11), found number 99999999999")
    }

    @Test func iso8601WithAndWithoutTimeFractionAndOffset() throws {
        #expect(try convert(#""2014-08-31""#, date()) == "2014-08-31T00:00:00Z")
        #expect(try convert(#""2014-08-31T00:29:15Z""#, date()) == "2014-08-31T00:29:15Z")
        #expect(try convert(#""2014-08-31T00:29:15""#, date()) == "2014-08-31T00:29:15Z")
        #expect(try convert(#""2014-08-31 09:29:15.123456+09:00""#, date()) == "2014-08-31T00:29:15.123456Z")
        #expect(try convert(#""2014-08-30T19:29:15.5-0500""#, date()) == "2014-08-31T00:29:15.500Z")
        #expect(try convert(#""2014-08-31T00:29""#, date()) == "2014-08-31T00:29:00Z")
        #expect(try convert(#""2016-02-29T23:59:59.999999999z""#, date()) == "2016-02-29T23:59:59.999999999Z")
    }

    @Test func textDatesReachBothEndsOfTheRange() throws {
        #expect(try convert(#""2262-04-11T23:47:16.854775807Z""#, date()) == "2262-04-11T23:47:16.854775807Z")
        #expect(try convert(#""1677-09-21T00:12:43.145224192Z""#, date()) == "1677-09-21T00:12:43.145224192Z")
        #expect(try convert(#""2262-04-11T23:47:16.854775808Z""#, date()) == "$.v: expected date (from 1677-09-21 to 2262-04-11), found string \"2262-04-11T23:47:16.854775808Z\"")
        #expect(try convert(#""1677-09-21T00:12:43.145224191Z""#, date()) == "$.v: expected date (from 1677-09-21 to 2262-04-11), found string \"1677-09-21T00:12:43.145224191Z\"")
    }

    @Test func impossibleCalendarDatesAreRejected() throws {
        #expect(try convert(#""2014-02-29""#, date()) == "$.v: expected date (from 1677-09-21 to 2262-04-11), found string \"2014-02-29\"")
        #expect(try convert(#""2014-13-01""#, date()) == "$.v: expected date (from 1677-09-21 to 2262-04-11), found string \"2014-13-01\"")
        #expect(try convert(#""2014-08-31T24:00:00Z""#, date()) == "$.v: expected date (from 1677-09-21 to 2262-04-11), found string \"2014-08-31T24:00:00Z\"")
        #expect(try convert(#""31/08/2014""#, date()) == "$.v: expected date (epoch seconds, or ISO 8601), found string \"31/08/2014\"")
        #expect(try convert("true", date()) == "$.v: expected date, found true")
    }

    @Test func twitterPatternInThePOSIXLocale() throws {
        let twitter = date(.seconds, [.pattern("EEE MMM dd HH:mm:ss Z yyyy")])
        #expect(try convert(#""Sun Aug 31 00:29:15 +0000 2014""#, twitter) == "2014-08-31T00:29:15Z")
        #expect(try convert(#""Sun Aug 31 09:29:15 +0900 2014""#, twitter) == "2014-08-31T00:29:15Z")
        #expect(try convert(#""sun aug 31 00:29:15 -0130 2014""#, twitter) == "2014-08-31T01:59:15Z")
        #expect(try convert(#""Sun Foo 31 00:29:15 +0000 2014""#, twitter) == "$.v: expected date ('EEE MMM dd HH:mm:ss Z yyyy'), found string \"Sun Foo 31 00:29:15 +0000 2014\"")
    }

    /// Twitter's pattern has a fixed-position reader of its own; it must agree with the general pattern reader.
    @Test func theTwitterFastPathAgreesWithTheGeneralPatternReader() throws {
        let fast = date(.seconds, [.twitter])
        let general = date(.seconds, [.pattern("EEE MMM dd HH':'mm:ss Z yyyy")])  // quoted ':' takes the general path
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let seconds = Int64.random(in: -2_000_000_000...4_000_000_000, using: &generator)
            let offsetMinutes = Int.random(in: -720...840, using: &generator) / 15 * 15
            let sign = offsetMinutes < 0 ? "-" : "+"
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(secondsFromGMT: offsetMinutes * 60)
            formatter.dateFormat = "EEE MMM dd HH:mm:ss"
            let text = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
                + " \(sign)\(String(format: "%02d%02d", abs(offsetMinutes) / 60, abs(offsetMinutes) % 60)) "
                + String(format: "%04d", Calendar(identifier: .gregorian).dateComponents(in: formatter.timeZone, from: Date(timeIntervalSince1970: TimeInterval(seconds))).year ?? 0)
            let expected = DateText.rfc3339(seconds * 1_000_000_000)
            #expect(try convert("\"\(text)\"", fast) == expected, "\(text)")
            #expect(try convert("\"\(text)\"", general) == expected, "\(text)")
        }
        #expect(try convert(#""Sun Aug 31 00:29:15 +0000 14""#, fast).hasPrefix("$.v: expected date"))
        #expect(try convert(#""Xyz Aug 31 00:29:15 +0000 2014""#, fast).hasPrefix("$.v: expected date"))
    }

    @Test func patternsAreTriedInOrderAndAreUTCWithoutAnOffset() throws {
        let formats = date(.seconds, [.pattern("yyyy-MM-dd HH:mm:ss"), .pattern("dd/MM/yyyy"), .pattern("d MMMM yyyy h:mm a"), .iso8601])
        #expect(try convert(#""2014-08-31 00:29:15""#, formats) == "2014-08-31T00:29:15Z")
        #expect(try convert(#""31/08/2014""#, formats) == "2014-08-31T00:00:00Z")
        #expect(try convert(#""5 September 2014 3:07 PM""#, formats) == "2014-09-05T15:07:00Z")
        #expect(try convert(#""5 September 2014 12:07 am""#, formats) == "2014-09-05T00:07:00Z")
        #expect(try convert(#""2014-08-31T00:29:15.25Z""#, formats) == "2014-08-31T00:29:15.250Z")
        let fraction = date(.seconds, [.pattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX")])
        #expect(try convert(#""2014-08-31T00:29:15.120Z""#, fraction) == "2014-08-31T00:29:15.120Z")
        #expect(try convert(#""2014-08-31T02:29:15.120+02:00""#, fraction) == "2014-08-31T00:29:15.120Z")
        #expect(try convert(#""2014-08-31T00:29:15.12Z""#, fraction) != "2014-08-31T00:29:15.120Z")
    }

    @Test func aFieldThatListsOnlyTextFormatsRejectsEpochNumbers() throws {
        let textOnly = date(.seconds, [.iso8601])
        #expect(try convert(#""2014-08-31T00:29:15Z""#, textOnly) == "2014-08-31T00:29:15Z")
        #expect(try convert("1409444955", textOnly) == "$.v: expected date (ISO 8601), found number 1409444955")
        #expect(try convert(#""1409444955""#, textOnly) == "$.v: expected date (ISO 8601), found string \"1409444955\"")
        // Without epoch among its formats, a numeric string is text for the patterns.
        let compact = date(.seconds, [.pattern("yyyyMMdd")])
        #expect(try convert(#""20140831""#, compact) == "2014-08-31T00:00:00Z")
        // In order: where epoch comes first, the same string is a number of seconds.
        #expect(try convert(#""20140831""#, date(.seconds, [.epoch, .pattern("yyyyMMdd")])) == "1970-08-22T02:40:31Z")
        #expect(try convert(#""20140831""#, date(.seconds, [.pattern("yyyyMMdd"), .epoch])) == "2014-08-31T00:00:00Z")
        #expect(try convert("1409444955", date(.seconds, [.epoch])) == "2014-08-31T00:29:15Z")
        #expect(try convert(#""2014-08-31""#, date(.seconds, [.epoch])) == "$.v: expected date (epoch seconds), found string \"2014-08-31\"")
    }

    @Test func rfc2822DatesWithOrWithoutWeekdayAndSecondsAndWithZoneNames() throws {
        let rfc = date(.seconds, [.rfc2822])
        #expect(try convert(#""Sun, 31 Aug 2014 00:29:15 +0000""#, rfc) == "2014-08-31T00:29:15Z")
        #expect(try convert(#""31 Aug 2014 09:29:15 +0900""#, rfc) == "2014-08-31T00:29:15Z")
        #expect(try convert(#""Sun,  1 Aug 2014 00:29 GMT""#, rfc) == "2014-08-01T00:29:00Z")
        #expect(try convert(#""1 aug 2014 00:29:15 UT""#, rfc) == "2014-08-01T00:29:15Z")
        #expect(try convert(#""Sat, 30 Aug 2014 20:29:15 EDT""#, rfc) == "2014-08-31T00:29:15Z")
        #expect(try convert(#""Sat, 30 Aug 2014 16:29:15 PST""#, rfc) == "2014-08-31T00:29:15Z")
        #expect(try convert(#""Sat, 30 Aug 2014 16:29:15 -0800""#, rfc) == "2014-08-31T00:29:15Z")
        for wrong in ["Sun 31 Aug 2014 00:29:15 +0000", "31 Aug 14 00:29:15 +0000", "31 Aug 2014 00:29:15", "31 Aug 2014 00:29:15 XYZ", "32 Aug 2014 00:29:15 +0000", "31 Aug 2014 00:29:15 +05EST"] {
            #expect(try convert("\"\(wrong)\"", rfc).hasPrefix("$.v: expected date"), "\(wrong)")
        }
    }

    @Test func mappingFilesNameTheDateFormats() throws {
        let schema = try MappingSchema(mappingText: """
            fields:
              - {name: a, type: date, formats: [twitter]}
              - {name: b, type: date, formats: [rfc2822, iso8601]}
              - {name: c, type: date, formats: [epoch], unit: milliseconds}
              - {name: d, type: date}
            """)
        #expect(schema.fields.map(\.dateFormats) == [[.twitter], [.rfc2822, .iso8601], [.epoch], DateFormat.defaults])
        let result = try transcript(
            of: #"{"a":"Sun Aug 31 00:29:15 +0000 2014","b":"Sun, 31 Aug 2014 00:29:15 GMT","c":1409444955000,"d":1409444955}"# + "\n",
            fields: schema.fields)
        #expect(result.rows == [#"#1@1:0 a=2014-08-31T00:29:15Z b=2014-08-31T00:29:15Z c=2014-08-31T00:29:15Z d=2014-08-31T00:29:15Z"#])
    }

    @Test func aUnitNeedsEpochAmongTheFormats() throws {
        #expect(throws: SluiceError.self) {
            try MappingSchema(fields: [FieldSpec(name: "v", type: .date, epochUnit: .milliseconds, dateFormats: [.iso8601])])
        }
        do {
            _ = try MappingSchema(mappingText: "fields:\n  - {name: v, type: date, unit: milliseconds, formats: [iso8601]}\n")
            Issue.record("a unit without epoch was accepted")
        } catch {
            #expect("\(error)".contains("the unit milliseconds is for epoch numbers, which the formats leave out (add epoch)"), "\(error)")
        }
    }

    @Test func urlsMustBeValidReferences() throws {
        let url = FieldSpec(name: "v", type: .url)
        #expect(try convert(#""http://example.com/a?b=c#d""#, url) == "\"http://example.com/a?b=c#d\"")
        #expect(try convert(#""/relative/path?x=%20y""#, url) == "\"/relative/path?x=%20y\"")
        #expect(try convert(#""mailto:ann@example.com""#, url) == "\"mailto:ann@example.com\"")
        #expect(try convert(#""https://例え.jp/ä""#, url) == "\"https://例え.jp/ä\"")
        for invalid in [#""has space""#, #""""#, #""1http://x""#, #""http://x/%zz""#, #""a#b#c""#, #""http://x/<y>""#] {
            #expect(try convert(invalid, url) == "$.v: expected url, found string " + invalid.replacingOccurrences(of: "\"\"", with: "\"\""))
        }
        #expect(try convert("42", url) == "$.v: expected url, found number 42")
    }

    @Test func bytesFromBase64InEitherAlphabetWithOrWithoutPadding() throws {
        let bytes = FieldSpec(name: "v", type: .bytes)
        #expect(try convert(#""aGVsbG8=""#, bytes) == "base64:aGVsbG8=")
        #expect(try convert(#""aGVsbG8""#, bytes) == "base64:aGVsbG8=")
        #expect(try convert(#""-_8=""#, bytes) == "base64:+/8=")
        #expect(try convert(#""+/8""#, bytes) == "base64:+/8=")
        #expect(try convert(#""""#, bytes) == "base64:")
        for invalid in [#""a""#, #""ab=c""#, #""aGVsbG8==""#, #""aGV sbG8=""#, #""aGVsbG8*""#] {
            #expect(try convert(invalid, bytes).hasPrefix("$.v: expected bytes (base64), found string"), "\(invalid)")
        }
    }

    @Test func enumsMapValuesAndNameTheAllowedOnesWhenNothingMatches() throws {
        let gender = FieldSpec(name: "v", type: .enumeration, enumValues: [EnumValue(json: "male", value: "M"), EnumValue(json: "female", value: "F")])
        #expect(try convert(#""male""#, gender) == "\"M\"")
        #expect(try convert(#""female""#, gender) == "\"F\"")
        #expect(try convert(#""Male""#, gender) == "$.v: expected one of \"male\", \"female\", found string \"Male\"")
        #expect(try convert("null", gender) == "$.v: expected enum, found null")
    }

    @Test func anEnumDefaultCoversUnmatchedNullAndMissing() throws {
        let status = FieldSpec(name: "v", type: .enumeration, defaultValue: .string("unknown"), enumValues: [EnumValue("active"), EnumValue("closed")])
        #expect(try convert(#""closed""#, status) == "\"closed\"")
        #expect(try convert(#""archived""#, status) == "\"unknown\"")
        #expect(try convert("null", status) == "\"unknown\"")
        #expect(try transcript(of: "{}\n", fields: [status]).rows == ["#1@1:0 v=\"unknown\""])
    }

    @Test func enumLookupsMatchNumbersAndStringsByText() throws {
        let level = FieldSpec(name: "v", type: .enumeration, enumValues: [EnumValue(json: "1", value: "low"), EnumValue(json: "2", value: "high"), EnumValue(json: "true", value: "yes")])
        #expect(try convert("1", level) == "\"low\"")
        #expect(try convert(#""2""#, level) == "\"high\"")
        #expect(try convert("true", level) == "\"yes\"")
        #expect(try convert("1.0", level) == "$.v: expected one of \"1\", \"2\", \"true\", found number 1.0")
    }

    @Test func defaultsFillMissingValuesAndNullsOfRequiredFields() throws {
        let count = FieldSpec(name: "v", type: .int64, defaultValue: .int64(0))
        #expect(try transcript(of: "{}\n", fields: [count]).rows == ["#1@1:0 v=0"])
        #expect(try convert("null", count) == "0")
        #expect(try convert("7", count) == "7")
        let optional = FieldSpec(name: "v", type: .string, isOptional: true, defaultValue: .string("none"))
        #expect(try transcript(of: "{}\n", fields: [optional]).rows == ["#1@1:0 v=\"none\""])
        #expect(try convert("null", optional) == "null")
        let when = FieldSpec(name: "v", type: .date, defaultValue: .date(nanoseconds: 0))
        #expect(try transcript(of: "{}\n", fields: [when]).rows == ["#1@1:0 v=1970-01-01T00:00:00Z"])
    }

    @Test func aBooleanDefaultIsReadByTheRuleForInputBooleans() throws {
        for (text, value) in [("1", "true"), ("0", "false"), ("TRUE", "true"), ("False", "false")] {
            let schema = try MappingSchema(mappingText: "fields: [{name: v, type: bool, default: \"\(text)\"}]")
            #expect(try transcript(of: "{}\n", fields: schema.fields).rows == ["#1@1:0 v=\(value)"])
            #expect(try convert("\"\(text)\"", schema.fields[0]) == value)
        }
        for text in ["yes", "01", "2"] {
            #expect(throws: SluiceError.self) { try MappingSchema(mappingText: "fields: [{name: v, type: bool, default: \"\(text)\"}]") }
            #expect(try convert("\"\(text)\"", FieldSpec(name: "v", type: .bool)).hasPrefix("$.v: expected bool"))
        }
    }

    @Test func conversionOptionsAreCheckedAgainstTheTypeWhenThePlanCompiles() {
        let problems = mappingProblems {
            _ = try MappingSchema(fields: [
                FieldSpec(name: "a", type: .int64, defaultValue: .string("zero")),
                FieldSpec(name: "b", type: .enumeration),
                FieldSpec(name: "c", type: .date, dateFormats: [.pattern("yyyy-QQ")]),
                FieldSpec(name: "d", type: .string, truncatesFractions: true),
                FieldSpec(name: "e", type: .double, epochUnit: .milliseconds),
                FieldSpec(name: "f", type: .string, enumValues: [EnumValue("x")]),
                FieldSpec(name: "g", type: .enumeration, enumValues: [EnumValue("x"), EnumValue(json: "x", value: "y")]),
                FieldSpec(name: "h", type: .url, defaultValue: .string("not a url")),
                FieldSpec(name: "i", type: .date, dateFormats: [.pattern("hh:mm")]),
            ])
        }
        #expect(problems.map(\.description) == [
            "field 'a': the default \"zero\" is not a value of type int64",
            "field 'b': an enum field needs values",
            "field 'c': date pattern 'yyyy-QQ' uses 'QQ', which Sluice does not read (supported: yyyy MM M MMM MMMM dd d HH H hh h a mm ss S…S EEE EEEE Z XXX)",
            "field 'd': truncation applies to int64 and uint64 fields, not string",
            "field 'e': a unit and date formats apply to date fields, not double",
            "field 'f': values apply to enum fields, not string",
            "field 'g': the enum value \"x\" is listed more than once",
            "field 'h': the default \"not a url\" is not a URL reference",
            "field 'i': date pattern 'hh:mm' needs both a 12-hour field (h, hh) and a (AM/PM), or neither",
        ])
    }

    @Test func mappingFilesDeclareEveryConversionOption() throws {
        let schema = try MappingSchema(mappingText: """
            fields:
              - {name: created, path: created_at, type: date, formats: ["EEE MMM dd HH:mm:ss Z yyyy", iso8601]}
              - {name: seen, type: date, unit: milliseconds, optional: true}
              - {name: count, type: int64, truncate: true, default: 0}
              - {name: gender, type: enum, values: {male: M, female: F}, default: U}
              - {name: level, type: enum, values: [low, high]}
              - {name: avatar, type: bytes, optional: true}
              - {name: home, type: url, default: "https://example.com/"}
              - {name: big, type: uint64, default: 18446744073709551615}
            """)
        let result = try transcript(of: """
            {"created_at":"Sun Aug 31 00:29:15 +0000 2014","seen":1409444955123,"count":2.7,"gender":"female","level":"low","avatar":"aGk="}
            {"created_at":"2014-08-31T00:29:15Z","gender":"other","level":"high"}

            """, fields: schema.fields)
        #expect(result.rows == [
            "#1@1:0 created=2014-08-31T00:29:15Z seen=2014-08-31T00:29:15.123Z count=2 gender=\"F\" level=\"low\" avatar=base64:aGk= home=\"https://example.com/\" big=18446744073709551615",
            "#2@2:129 created=2014-08-31T00:29:15Z seen=null count=0 gender=\"U\" level=\"high\" avatar=null home=\"https://example.com/\" big=18446744073709551615",
        ])
        #expect(throws: SluiceError.self) { try MappingSchema(mappingText: "fields: [{name: n, type: int64, default: abc}]") }
        #expect(throws: SluiceError.self) { try MappingSchema(mappingText: "fields: [{name: n, type: date, unit: days}]") }
    }

    /// Dates written as text, digit by digit, read as Foundation's Gregorian calendar reads the same instant, over the
    /// whole range of nanoseconds an `Int64` holds, with fractions of every length.
    @Test func datesAsTextAgreeWithFoundationsCalendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        var generator = SplitMix(seed: 42)
        var instants: [Int64] = [0, -1, 1, Int64.min, Int64.max, 1_000_000_000, -1_000_000_000, 951_782_400 * 1_000_000_000]
        for _ in 0..<3_000 {
            let seconds = Int64(generator.below(18_000_000_000)) - 9_000_000_000
            let fraction = [0, Int64(generator.below(1_000)) * 1_000_000, Int64(generator.below(1_000_000)) * 1_000, Int64(generator.below(1_000_000_000))][generator.below(4)]
            let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            if !overflow { instants.append(product &+ fraction) }
        }
        for nanoseconds in instants {
            let seconds = nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : -((-(nanoseconds + 1)) / 1_000_000_000) - 1
            let fraction = nanoseconds &- seconds &* 1_000_000_000
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            var expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
            if fraction != 0 {
                expected += fraction % 1_000_000 == 0 ? String(format: ".%03d", fraction / 1_000_000)
                    : fraction % 1_000 == 0 ? String(format: ".%06d", fraction / 1_000) : String(format: ".%09d", fraction)
            }
            expected += "Z"
            var bytes: [UInt8] = [7]
            DateText.rfc3339(nanoseconds, appendingTo: &bytes)
            #expect(bytes == [7] + Array(expected.utf8), "\(nanoseconds)")
            #expect(DateText.rfc3339(nanoseconds) == expected)
        }
    }
}
