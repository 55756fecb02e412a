import Foundation
import Testing
@testable import Sluice

/// The property types beyond the conversion table's own: narrower integers, Float, Decimal, UUID, JSONValue, and
/// arrays and sets of any of them. One test per rule, each with the rejection it gives.
@Suite struct MappableValueTests {
    /// Maps one field of a one-property model over NDJSON, giving the values and the rejection messages.
    struct Box<Value: Sendable>: Sendable { var value: Value }

    static func read<Value: MappableValue>(_ type: Value.Type, _ lines: [String], initial: Value) throws -> (values: [Value], rejections: [String]) {
        let mapping = try Mapping({ Box(value: initial) }) { Field("v", \.value) }
        let text = lines.joined(separator: "\n") + "\n"
        let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: mapping, options: ReaderOptions(rejectionPolicy: .collect))
        var values: [Value] = []
        var rejections: [String] = []
        while let batch = try reader.next() {
            values += batch.models.map(\.value)
            rejections += batch.rejections.map { $0.failures.map(\.description).joined(separator: "; ") }
        }
        return (values, rejections)
    }

    @Test func narrowerIntegersRejectValuesOutsideTheirRange() throws {
        let int32 = try Self.read(Int32.self, [#"{"v":2147483647}"#, #"{"v":"-2147483648"}"#, #"{"v":3000000000}"#], initial: 0)
        #expect(int32.values == [Int32.max, Int32.min])
        #expect(int32.rejections == ["$.v: expected int32 (-2147483648 to 2147483647), found number 3000000000"])
        let uint8 = try Self.read(UInt8.self, [#"{"v":255}"#, #"{"v":256}"#, #"{"v":-1}"#], initial: 0)
        #expect(uint8.values == [255])
        #expect(uint8.rejections == [
            "$.v: expected uint8 (0 to 255), found number 256",
            "$.v: expected uint8 (0 to 255), found number -1",
        ])
        let int16 = try Self.read(Int16?.self, [#"{"v":-7}"#, #"{"v":null}"#, "{}", #"{"v":40000}"#], initial: 1)
        #expect(int16.values == [-7, nil, nil])
        #expect(int16.rejections == ["$.v: expected int16 (-32768 to 32767), found number 40000"])
    }

    /// A missing value, null, a value of another kind or a fraction is named by the property's type, not by the
    /// wider column it is read through.
    @Test func rejectionsNameThePropertysOwnType() throws {
        let int32 = try Self.read(Int32.self, ["{}", #"{"v":null}"#, #"{"v":"x"}"#, #"{"v":1.5}"#, #"{"v":1e30}"#], initial: 0)
        #expect(int32.rejections == [
            "$.v: expected int32, found no value", "$.v: expected int32, found null", #"$.v: expected int32, found string "x""#,
            "$.v: expected int32 (an integer), found number 1.5", "$.v: expected int32 (-2147483648 to 2147483647), found number 1e30",
        ])
        let float = try Self.read(Float.self, [#"{"v":true}"#, #"{"v":1e400}"#], initial: 0)
        #expect(float.rejections == ["$.v: expected float, found true", "$.v: expected float (finite), found number 1e400"])
        let decimal = try Self.read(Decimal.self, [#"{"v":false}"#], initial: 0)
        #expect(decimal.rejections == ["$.v: expected decimal, found false"])
        let uuid = try Self.read(UUID.self, ["{}"], initial: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        #expect(uuid.rejections == ["$.v: expected uuid, found no value"])
        let list = try Self.read([UInt8].self, [#"{"v":[1,-1]}"#], initial: [])
        #expect(list.rejections == ["$.v[1]: expected uint8 (0 to 255), found number -1"])
    }

    @Test func floatsAreRoundedFromTheCorrectlyRoundedDoubleAndRefusedBeyondFloatsRange() throws {
        let result = try Self.read(Float.self, [#"{"v":1.5}"#, #"{"v":"0.1"}"#, #"{"v":3.4028235e38}"#, #"{"v":1e39}"#], initial: 0)
        #expect(result.values == [1.5, 0.1, Float.greatestFiniteMagnitude])
        #expect(result.rejections == ["$.v: expected float (finite), found number 1e+39"])
    }

    @Test func decimalsAreExactFromTheLiteralsDigits() throws {
        let result = try Self.read(Decimal.self, [
            #"{"v":0.1}"#, #"{"v":190957570511478800.25}"#, #"{"v":"12.50"}"#, #"{"v":-1.5e3}"#, #"{"v":0}"#,
            #"{"v":12345678901234567890123456789012345678}"#, #"{"v":1e-128}"#, #"{"v":25e126}"#, #"{"v":0e10000000}"#, #"{"v":-0.0}"#,
        ], initial: 0)
        #expect(result.values.prefix(6).map(\.description) == ["0.1", "190957570511478800.25", "12.5", "-1500", "0", "12345678901234567890123456789012345678"])
        #expect(result.values[0] == Decimal(sign: .plus, exponent: -1, significand: 1))
        #expect(result.values[6] == Decimal(sign: .plus, exponent: -128, significand: 1))
        #expect(result.values[7] == Decimal(sign: .plus, exponent: 126, significand: 25))
        #expect(result.values[8] == 0)
        #expect(result.values[9] == 0)
        #expect(result.rejections.isEmpty)
    }

    @Test func decimalsRefuseTextMoreDigitsThanTheyHoldAndExponentsBeyondTheirRange() throws {
        let result = try Self.read(Decimal.self, [
            #"{"v":"12abc"}"#, #"{"v":123456789012345678901234567890123456789}"#, #"{"v":1e200}"#, #"{"v":"1,5"}"#, #"{"v":1e-130}"#,
        ], initial: 0)
        #expect(result.values.isEmpty)
        #expect(result.rejections == [
            #"$.v: expected decimal (at most 38 significant digits), found string "12abc""#,
            #"$.v: expected decimal (at most 38 significant digits), found string "123456789012345678901234567890123456789""#,
            #"$.v: expected decimal (at most 38 significant digits), found string "1e200""#,
            #"$.v: expected decimal (at most 38 significant digits), found string "1,5""#,
            #"$.v: expected decimal (at most 38 significant digits), found string "1e-130""#,
        ])
    }

    @Test func uuidsReadTheirTextInEitherCase() throws {
        let result = try Self.read(UUID?.self, [
            #"{"v":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}"#, #"{"v":"e621e1f8-c36c-495a-93fc-0c247a3e6e5f"}"#, #"{"v":null}"#, #"{"v":"e621e1f8c36c495a93fc0c247a3e6e5f"}"#,
        ], initial: nil)
        let expected = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(result.values == [expected, expected, nil])
        #expect(result.rejections == [#"$.v: expected uuid (8-4-4-4-12 hexadecimal digits), found string "e621e1f8c36c495a93fc0c247a3e6e5f""#])
    }

    @Test func jsonValuesHoldAnyValueAsItIs() throws {
        let result = try Self.read(JSONValue?.self, [#"{"v":{"a": [1, 2]}}"#, #"{"v":"x\n"}"#, #"{"v":1.50}"#, #"{"v":null}"#, #"{"v":[true]}"#], initial: .bool(false))
        #expect(result.values == [.object(json: #"{"a": [1, 2]}"#), .string("x\n"), .number("1.50"), nil, .array(json: "[true]")])
        #expect(result.rejections.isEmpty)
    }

    @Test func arraysConvertEachElementAndNameTheOneThatDoesNot() throws {
        let ints = try Self.read([Int].self, [#"{"v":[1,"2",null,3]}"#, "{}", #"{"v":[1,2.5]}"#, #"{"v":7}"#], initial: [-1])
        #expect(ints.values == [[1, 2, 3], [-1]])
        #expect(ints.rejections == ["$.v[1]: expected int64 (an integer), found number 2.5", "$.v: expected an array, found number 7"])
        let dates = try Self.read([Date].self, [#"{"v":[0,"1970-01-02T00:00:00Z"]}"#], initial: [])
        #expect(dates.values == [[Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 86400)]])
        let urls = try Self.read([URL]?.self, [#"{"v":["https://example.com/a","/b"]}"#, #"{"v":null}"#, "{}", #"{"v":["http://[::1"]}"#], initial: [])
        #expect(urls.values == [[URL(string: "https://example.com/a"), URL(string: "/b")].compactMap { $0 }, nil, nil])
        #expect(urls.rejections.count == 1)
        #expect(urls.rejections.first?.hasPrefix("$.v[0]: expected url") == true)
        let narrow = try Self.read(Set<Int32>.self, [#"{"v":[1,1,2]}"#, #"{"v":[1,3000000000]}"#], initial: [])
        #expect(narrow.values == [[1, 2]])
        #expect(narrow.rejections == ["$.v[1]: expected int32 (-2147483648 to 2147483647), found number 3000000000"])
        let json = try Self.read([JSONValue].self, [#"{"v":[{"a":1},"b",2]}"#], initial: [])
        #expect(json.values == [[.object(json: #"{"a":1}"#), .string("b"), .number("2")]])
        let nested = try Self.read([[Int]].self, [#"{"v":[[1],[2,3],[]]}"#, #"{"v":[[1],["x"]]}"#], initial: [])
        #expect(nested.values == [[[1], [2, 3], []]])
        #expect(nested.rejections == [#"$.v[1][0]: expected int64, found string "x""#])
    }

    @Test func theNewTypesGoBackToJSONAndMapToTheSameValues() throws {
        struct Sample: Sendable, Equatable {
            var small: Int32 = 0
            var ratio: Float = 0
            var price: Decimal = 0
            var id = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            var extra: JSONValue?
        }
        let mapping = try Mapping(Sample.init) {
            Field("small", \.small)
            Field("ratio", \.ratio)
            Field("price", \.price)
            Field("id", \.id)
            Field("extra", \.extra)
        }
        let sample = Sample(small: -5, ratio: 0.25, price: Decimal(sign: .minus, exponent: -2, significand: 1999), id: UUID(), extra: .object(json: #"{"k":[1]}"#))
        let text = mapping.jsonText(of: sample)
        let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: mapping)
        #expect(try reader.nextModel() == sample)
    }
}
