import Foundation
import Testing
@testable import Sluice

/// Models that catch errors, read containers by hand, and ask whether keys are there or null: the same models as
/// `JSONDecoder`, or a rejection where Sluice cannot know what it would have read; never a wrong model, a crash or
/// a hang.
@Suite struct DecodableHandWrittenTests {
    enum OneOrMany: Decodable, Equatable {
        case one(Int), many([Int])
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let many = try? container.decode([Int].self) { self = .many(many) } else { self = .one(try container.decode(Int.self)) }
        }
    }
    struct Either: Decodable, Equatable { let value: OneOrMany }

    enum Color: String, Decodable, CaseIterable { case red, blue }
    /// Colours it knows, and the text of the others: the element is read again after its first reading failed.
    struct Palette: Decodable, Equatable {
        let names: [String]
        private enum CodingKeys: CodingKey { case colors }
        init(from decoder: any Decoder) throws {
            var colors = try decoder.container(keyedBy: CodingKeys.self).nestedUnkeyedContainer(forKey: .colors)
            var names: [String] = []
            while !colors.isAtEnd {
                if let color = try? colors.decode(Color.self) { names.append(color.rawValue) } else { names.append("other:" + (try colors.decode(String.self))) }
            }
            self.names = names
        }
    }

    /// Elements that do not decode are left out, as lossy-array wrappers do.
    struct Lossy: Decodable, Equatable {
        let numbers: [Int]
        private enum CodingKeys: CodingKey { case numbers }
        private struct Skip: Decodable {}
        init(from decoder: any Decoder) throws {
            var elements = try decoder.container(keyedBy: CodingKeys.self).nestedUnkeyedContainer(forKey: .numbers)
            var numbers: [Int] = []
            while !elements.isAtEnd {
                if let number = try? elements.decode(Int.self) { numbers.append(number) } else { _ = try? elements.decode(Skip.self) }
            }
            self.numbers = numbers
        }
    }

    /// A patch: a key that is there (null included) changes the value, a missing one leaves it.
    struct Patch: Decodable, Equatable {
        enum Change: Equatable { case unchanged, set(String?) }
        let name: Change
        let cleared: Bool
        private enum CodingKeys: CodingKey { case name, flag }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = container.contains(.name) ? .set(try container.decodeIfPresent(String.self, forKey: .name)) : .unchanged
            cleared = container.contains(.flag) ? try container.decodeNil(forKey: .flag) : false
        }
    }

    /// Keys read only on some paths, and a settings object whose required key depends on another.
    struct Settings: Decodable, Equatable {
        let enabled: Bool
        let limit: Int?
        private enum CodingKeys: CodingKey { case enabled, limit }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? false
            limit = enabled ? try container.decode(Int.self, forKey: .limit) : nil
        }
    }
    struct Configured: Decodable, Equatable { let settings: Settings; let maybe: Int?? }

    /// A point read by position, and polygons of them through nested containers.
    struct Shape: Decodable, Equatable {
        let rings: [[Double]]
        private enum CodingKeys: CodingKey { case coordinates }
        init(from decoder: any Decoder) throws {
            var outer = try decoder.container(keyedBy: CodingKeys.self).nestedUnkeyedContainer(forKey: .coordinates)
            var rings: [[Double]] = []
            while !outer.isAtEnd {
                var inner = try outer.nestedUnkeyedContainer()
                var ring: [Double] = []
                while !inner.isAtEnd { ring.append(try inner.decode(Double.self)) }
                rings.append(ring)
            }
            self.rings = rings
        }
    }

    /// Reads until an error says the array ended.
    struct UntilError: Decodable, Equatable {
        let values: [Int]
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            var values: [Int] = []
            while let value = try? container.decode(Int.self) { values.append(value) }
            self.values = values
        }
    }

    struct Empty: Decodable, Equatable {
        private enum CodingKeys: CodingKey {}
        init(from decoder: any Decoder) throws { _ = try decoder.container(keyedBy: CodingKeys.self) }
    }
    struct HoldsEmpty: Decodable, Equatable { let x: Empty }

    let same = DecodableStrategyTests()

    @Test func valuesReadOneWayOrAnother() throws {
        try same.expectSameAsJSONDecoder(Either.self, [#"{"value":[1,2]}"#, #"{"value":3}"#, #"{"value":"x"}"#, #"{"value":[1,"a"]}"#, #"{"value":{}}"#])
        try same.expectSameAsJSONDecoder(Palette.self, [#"{"colors":["red","green","blue"]}"#, #"{"colors":[]}"#, #"{"colors":[1]}"#])
    }

    @Test func keysThereNullOrMissing() throws {
        try same.expectSameAsJSONDecoder(Patch.self, [#"{"name":"a"}"#, #"{"name":null}"#, "{}", #"{"flag":null}"#, #"{"flag":1,"name":null}"#])
        try same.expectSameAsJSONDecoder(Configured.self, [
            #"{"settings":{"enabled":true,"limit":3}}"#, #"{"settings":{}}"#, #"{"settings":null}"#, "{}", #"{"settings":{"enabled":true}}"#,
            #"{"settings":{},"maybe":null}"#, #"{"settings":{},"maybe":2}"#, #"{"settings":5}"#,
        ])
        try same.expectSameAsJSONDecoder(HoldsEmpty.self, [#"{"x":{}}"#, #"{"x":{"a":1}}"#, #"{"x":5}"#, #"{"x":[1]}"#, #"{"x":null}"#, "{}"])
    }

    @Test func containersByHand() throws {
        try same.expectSameAsJSONDecoder(Shape.self, [#"{"coordinates":[[1,2],[3.5]]}"#, #"{"coordinates":[]}"#, #"{"coordinates":[[1,"x"]]}"#, #"{"coordinates":[null]}"#])
        try same.expectSameAsJSONDecoder([UntilError].self, ["[[1,2,3]]", "[[]]"])
    }

    /// Where `JSONDecoder` would go on past an element the engine refused, or read a key discovery never saw read,
    /// the record is rejected: never a model without what `JSONDecoder` would have read.
    @Test func whatCannotBeKnownRejectsTheRecord() throws {
        let lines = [#"{"numbers":[1,"x",3]}"#, #"{"numbers":[1,2]}"#]
        let (models, rejections, _) = try DecodableMappingTests.decoded(lines, Lossy.self, tokenizer: .simdjson, workers: 1)
        #expect(models[0] == nil && rejections[0]?.contains("$.numbers[1]") == true)
        #expect(models[1]?.numbers == [1, 2])

        struct Versioned: Decodable, Equatable {
            let extra: String
            private enum CodingKeys: CodingKey { case version, extra }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                let version = try container.decode(Int.self, forKey: .version)
                extra = version >= 2 && container.contains(.extra) ? try container.decode(String.self, forKey: .extra) : "default"
            }
        }
        let versioned = try DecodableMappingTests.decoded([#"{"version":1,"extra":"hi"}"#, #"{"version":2,"extra":"hi"}"#], Versioned.self, tokenizer: .yajl, workers: 1)
        #expect(versioned.models[0] == (try JSONDecoder().decode(Versioned.self, from: Data(#"{"version":1,"extra":"hi"}"#.utf8))))
        #expect(versioned.models[1] == nil && versioned.rejections[1]?.contains("did not read when its keys were discovered") == true)
    }
}

extension DecodableHandWrittenTests {
    /// A wrapper that reads `null` itself, at a key and as an element.
    struct Flag: Decodable, Equatable {
        let on: Bool
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            on = container.decodeNil() ? false : try container.decode(Bool.self)
        }
    }
    struct Flags: Decodable, Equatable { let main: Flag; let all: [Flag]; let name: String? }

    @Test func wrappersThatReadNullThemselves() throws {
        try same.expectSameAsJSONDecoder(Flags.self, [
            #"{"main":true,"all":[true,null,false]}"#, #"{"main":null,"all":[]}"#, #"{"all":[]}"#, #"{"main":"x","all":[]}"#,
            #"{"main":false,"all":[],"name":null}"#,
        ])
    }
}

/// Cases from a second reading: null elements of lossy arrays and wrappers, positions read through nested
/// containers, keys caught with `try?` standing in for their object, types asked for where discovery saw another,
/// and snake-case spellings of values asked about.
@Suite struct DecodableSecondReadingTests {
    let same = DecodableStrategyTests()

    struct Maybe<Wrapped: Decodable & Equatable>: Decodable, Equatable {
        let value: Wrapped?
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            value = container.decodeNil() ? nil : try container.decode(Wrapped.self)
        }
    }
    struct Named: Decodable, Equatable { let name: String }
    struct Users: Decodable, Equatable { let users: [Maybe<Named>] }

    @Test func nullElementsGoToTheTypesThatReadThem() throws {
        try same.expectSameAsJSONDecoder(DecodableHandWrittenTests.Lossy.self, [#"{"numbers":[1,null,2]}"#, #"{"numbers":[null]}"#])
        try same.expectSameAsJSONDecoder(Users.self, [#"{"users":[null,{"name":"a"}]}"#, #"{"users":[{"name":1}]}"#, #"{"users":[null]}"#])
    }

    struct Point: Decodable {
        let longitude: Double
        private enum CodingKeys: CodingKey { case coordinates }
        init(from decoder: any Decoder) throws {
            var position = try decoder.container(keyedBy: CodingKeys.self).nestedUnkeyedContainer(forKey: .coordinates)
            longitude = try position.decode(Double.self)
            _ = try position.decode(Double.self)
        }
    }

    @Test func positionsReadThroughANestedContainerAreRefused() {
        #expect(throws: SluiceError.self) { try Mapping(decoding: Point.self) }
    }

    struct Inner: Decodable, Equatable {
        let value: Int
        private enum CodingKeys: CodingKey { case value }
        init(from decoder: any Decoder) throws { value = (try? decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .value)) ?? 0 }
    }
    struct Outer: Decodable, Equatable { let inner: Inner }

    struct Timed: Decodable, Equatable {
        let at: Date?
        let duration: Double?
        private enum CodingKeys: CodingKey { case kind, t }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if try container.decode(String.self, forKey: .kind) == "point" {
                (at, duration) = (try container.decode(Date.self, forKey: .t), nil)
            } else {
                (at, duration) = (nil, try container.decode(Double.self, forKey: .t))
            }
        }
    }

    /// Where Sluice cannot know what JSONDecoder would give, the record is rejected; never another model.
    @Test func neverAnotherModel() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        for (type, lines) in [(0, [#"{"inner":null}"#, "{}", #"{"inner":{"value":2}}"#, #"{"inner":{}}"#]), (1, [#"{"kind":"span","t":5}"#, #"{"kind":"point","t":1700000000}"#])] {
            let expectedAndDecoded: [(Bool, Bool, Bool)] = try {
                if type == 0 {
                    let expected = DecodableMappingTests.expected(lines, Outer.self)
                    let decoded = try DecodableMappingTests.decoded(lines, Outer.self, tokenizer: .simdjson, workers: 1).models
                    return zip(expected, decoded).map { ($0 == nil, $1 == nil, $1 == nil || $0 == $1) }
                }
                let expected = DecodableMappingTests.expected(lines, Timed.self, decoder: decoder)
                let decoded = try DecodableMappingTests.decoded(lines, Timed.self, decoder: decoder, tokenizer: .yajl, workers: 1).models
                return zip(expected, decoded).map { ($0 == nil, $1 == nil, $1 == nil || $0 == $1) }
            }()
            for (index, (expectedNil, decodedNil, sameOrRejected)) in expectedAndDecoded.enumerated() {
                #expect(sameOrRejected, "\(lines[index])")
                if expectedNil { #expect(decodedNil, "\(lines[index])") }
            }
        }
    }

    struct Nick: Decodable, Equatable {
        let nickName: String
        let imageUrl2x: String?
        private enum CodingKeys: String, CodingKey { case nickName, imageUrl2x = "image2X" }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            nickName = container.contains(.nickName) ? try container.decode(String.self, forKey: .nickName) : "anon"
            imageUrl2x = try container.decodeIfPresent(String.self, forKey: .imageUrl2x)
        }
    }

    @Test func spellingsOfValuesAskedAbout() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        try same.expectSameAsJSONDecoder(Nick.self, [#"{"nickName":"x"}"#, #"{"nick_name":"y","image_2x":"i"}"#, "{}", #"{"image2x":"j"}"#], decoder: decoder)
        #expect(SnakeCaseKeys.convertFromSnakeCase("is_3d") == "is3D")
    }
}

extension DecodableSecondReadingTests {
    /// `decodeIfPresent` reads the value's own column; only asking whether a key is there (`contains`) adds one.
    @Test func optionalValuesTakeOneColumnAndQuestionsOneMore() throws {
        struct Plain: Decodable { let a: String?; let b: Int? }
        #expect(try Mapping(decoding: Plain.self).plan.fields.map(\.name) == ["$.a", "$.b"])
        #expect(try Mapping(decoding: DecodableHandWrittenTests.Patch.self).plan.fields.map(\.name) == ["$.name", "$.name (present)", "$.flag (present)"])
    }
}
