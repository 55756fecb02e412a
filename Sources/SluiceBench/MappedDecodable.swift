import Foundation

/// A `Decodable` model of a user's mapped fields for `JSONDecoder`, as a Swift user writes one: keyed containers
/// for objects, unkeyed ones for arrays, each decoded once per record, dates through `Date.ISO8601FormatStyle` or,
/// for a pattern, a `DateFormatter`. It computes the same checksum as ``MappedFields/recordSum(_:row:)``.
struct MappedRecord: Decodable {
    /// The fields as a tree of containers, one node per object, array and value the record is read through.
    /// `presence` lists the json fields that read a container whole while others read into it: they count it as
    /// there or not.
    indirect enum Node: Sendable {
        case object([(key: String, node: Node)], presence: [Int])
        /// Elements by index, and the field that counts them all (a list), if any.
        case array(elements: [(index: Int, node: Node)], countedBy: Int?, presence: [Int])
        case value(field: Int, kind: MappedFields.Field.Kind, dates: MappedFields.Field.Dates?)
    }

    static let planKey = CodingUserInfoKey(rawValue: "sluice.mapped-plan")!

    /// What a decoder is given in its `userInfo`: the tree, and a formatter per date pattern.
    final class Plan: Sendable {
        let root: Node
        let formatters: [String: DateFormatter]

        /// The tree of `fields`, or nil when two fields read one value in different ways.
        init?(_ fields: MappedFields) {
            var root = Node.object([], presence: [])
            for (index, field) in fields.fields.enumerated() {
                guard let inserted = Self.insert(field, index: index, steps: field.steps[...], into: root) else { return nil }
                root = inserted
            }
            self.root = root
            var formatters: [String: DateFormatter] = [:]
            for field in fields.fields {
                guard case .pattern(let pattern, _)? = field.dates else { continue }
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(secondsFromGMT: 0)
                formatter.dateFormat = pattern
                formatters[pattern] = formatter
            }
            self.formatters = formatters
        }

        private static func insert(_ field: MappedFields.Field, index: Int, steps: ArraySlice<MappedFields.Field.Step>, into node: Node) -> Node? {
            guard let step = steps.first else { return nil }
            let rest = steps.dropFirst()
            switch (step, node) {
            case (.key(let key), .object(var children, let presence)):
                let position = children.firstIndex { $0.key == key }
                guard let inserted = place(field, index: index, rest: rest, at: position.map { children[$0].node }) else { return nil }
                if let position { children[position].node = inserted } else { children.append((key, inserted)) }
                return .object(children, presence: presence)
            case (.every, .array(let elements, nil, let presence)) where rest.isEmpty:
                return .array(elements: elements, countedBy: index, presence: presence)
            case (.index(let element), .array(var elements, let counter, let presence)):
                let position = elements.firstIndex { $0.index == element }
                guard let inserted = place(field, index: index, rest: rest, at: position.map { elements[$0].node }) else { return nil }
                if let position { elements[position].node = inserted } else { elements.append((element, inserted)) }
                return .array(elements: elements.sorted { $0.index < $1.index }, countedBy: counter, presence: presence)
            default:
                return nil
            }
        }

        /// The node at one step: the field's value where its steps end, or what lies further on; a json field and
        /// the fields reading into its value share the container.
        private static func place(_ field: MappedFields.Field, index: Int, rest: ArraySlice<MappedFields.Field.Step>, at existing: Node?) -> Node? {
            if rest.isEmpty {
                switch existing {
                case nil: return .value(field: index, kind: field.kind, dates: field.dates)
                case .object(let children, let presence)? where field.kind == .json: return .object(children, presence: presence + [index])
                case .array(let elements, let counter, let presence)? where field.kind == .json: return .array(elements: elements, countedBy: counter, presence: presence + [index])
                default: return nil
                }
            }
            if case .value(let whole, .json, _)? = existing {
                return insert(field, index: index, steps: rest, into: emptyNode(before: rest, presence: [whole]))
            }
            return insert(field, index: index, steps: rest, into: existing ?? emptyNode(before: rest, presence: []))
        }

        /// The container the next step reads from: an object for a key, an array for an index or every element.
        private static func emptyNode(before steps: ArraySlice<MappedFields.Field.Step>, presence: [Int]) -> Node {
            if case .key? = steps.first { return .object([], presence: presence) }
            return .array(elements: [], countedBy: nil, presence: presence)
        }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Any JSON value, decoded and dropped: a json field's work.
    struct AnyValue: Decodable {
        init(from decoder: any Decoder) throws {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() { return }
            if (try? single.decode(Bool.self)) != nil || (try? single.decode(Double.self)) != nil || (try? single.decode(String.self)) != nil { return }
            if var array = try? decoder.unkeyedContainer() {
                while !array.isAtEnd { _ = try array.decode(AnyValue.self) }
                return
            }
            let object = try decoder.container(keyedBy: Key.self)
            for key in object.allKeys { _ = try object.decode(AnyValue.self, forKey: key) }
        }
    }

    /// An element passed over.
    struct Skipped: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    var sum: Int64 = 0

    init(from decoder: any Decoder) throws {
        guard let plan = decoder.userInfo[Self.planKey] as? Plan, case .object(let children, _) = plan.root else {
            throw BenchError("the decoder was not given the mapping's fields")
        }
        try decodeObject(children, from: decoder.container(keyedBy: Key.self), plan: plan)
    }

    private mutating func decodeObject(_ children: [(key: String, node: Node)], from container: KeyedDecodingContainer<Key>, plan: Plan) throws {
        for (name, node) in children {
            let key = Key(stringValue: name)
            guard container.contains(key), try !container.decodeNil(forKey: key) else { continue }
            switch node {
            case .object(let grandchildren, let presence):
                count(presence)
                try decodeObject(grandchildren, from: container.nestedContainer(keyedBy: Key.self, forKey: key), plan: plan)
            case .array(let elements, let counter, let presence):
                count(presence)
                var array = try container.nestedUnkeyedContainer(forKey: key)
                try decodeArray(elements, countedBy: counter, from: &array, plan: plan)
            case .value(let field, let kind, let dates):
                let value: Int64 = switch kind {
                case .integer: try container.decode(Int64.self, forKey: key)
                case .unsigned: Int64(bitPattern: try container.decode(UInt64.self, forKey: key))
                case .double: try Self.present(container.decode(Double.self, forKey: key))
                case .bool: try container.decode(Bool.self, forKey: key) ? 2 : 1
                case .text: Int64(try container.decode(String.self, forKey: key).utf8.count) + 1
                case .bytes: Int64(try container.decode(Data.self, forKey: key).count) + 1
                case .json: try Self.present(container.decode(AnyValue.self, forKey: key))
                case .date: try Self.seconds(dates, plan: plan, number: { try container.decode(Double.self, forKey: key) },
                                             integer: { try? container.decode(Int64.self, forKey: key) }, text: { try? container.decode(String.self, forKey: key) })
                }
                sum = sum &+ value &* Int64(2 * field + 1)
            }
        }
    }

    private mutating func decodeArray(_ elements: [(index: Int, node: Node)], countedBy counter: Int?, from array: inout any UnkeyedDecodingContainer, plan: Plan) throws {
        if let counter { sum = sum &+ Int64((array.count ?? 0) + 1) &* Int64(2 * counter + 1) }
        for (index, node) in elements {
            while array.currentIndex < index && !array.isAtEnd { _ = try array.decode(Skipped.self) }
            guard !array.isAtEnd, try !array.decodeNil() else { continue }
            switch node {
            case .object(let children, let presence):
                count(presence)
                try decodeObject(children, from: array.nestedContainer(keyedBy: Key.self), plan: plan)
            case .array(let inner, let innerCounter, let presence):
                count(presence)
                var nested = try array.nestedUnkeyedContainer()
                try decodeArray(inner, countedBy: innerCounter, from: &nested, plan: plan)
            case .value(let field, let kind, let dates):
                let value: Int64 = switch kind {
                case .integer: try array.decode(Int64.self)
                case .unsigned: Int64(bitPattern: try array.decode(UInt64.self))
                case .double: try Self.present(array.decode(Double.self))
                case .bool: try array.decode(Bool.self) ? 2 : 1
                case .text: Int64(try array.decode(String.self).utf8.count) + 1
                case .bytes: Int64(try array.decode(Data.self).count) + 1
                case .json: try Self.present(array.decode(AnyValue.self))
                case .date:
                    // An unkeyed container cannot look at a value twice: its kind is tried through a single value.
                    try Self.seconds(dates, plan: plan, element: array.decode(DateValue.self))
                }
                sum = sum &+ value &* Int64(2 * field + 1)
            }
        }
    }

    /// Counts a container the json fields `presence` read whole: it is there.
    private mutating func count(_ presence: [Int]) {
        for field in presence { sum = sum &+ Int64(2 * field + 1) }
    }

    /// 1, for a value that is there: the checksum counts doubles and json values, not their text.
    private static func present<Value>(_ value: Value) -> Int64 { 1 }

    /// A date element, as a number or as text.
    enum DateValue: Decodable {
        case integer(Int64), number(Double), text(String)

        init(from decoder: any Decoder) throws {
            let single = try decoder.singleValueContainer()
            if let integer = try? single.decode(Int64.self) { self = .integer(integer) } else if let number = try? single.decode(Double.self) { self = .number(number) } else { self = .text(try single.decode(String.self)) }
        }
    }

    private static func seconds(_ dates: MappedFields.Field.Dates?, plan: Plan, element: DateValue) throws -> Int64 {
        switch element {
        case .integer(let integer): try seconds(dates, plan: plan, number: { Double(integer) }, integer: { integer }, text: { nil })
        case .number(let number): try seconds(dates, plan: plan, number: { number }, integer: { nil }, text: { nil })
        case .text(let text): try seconds(dates, plan: plan, number: { throw BenchError("a date of text") }, integer: { nil }, text: { text })
        }
    }

    private static let isoStyles: [Date.ISO8601FormatStyle] = [
        .iso8601, Date.ISO8601FormatStyle(includingFractionalSeconds: true), Date.ISO8601FormatStyle().year().month().day(),
    ]

    /// Whole seconds since 1970 (floored) of a date value, read as the field's format says.
    private static func seconds(_ dates: MappedFields.Field.Dates?, plan: Plan, number: () throws -> Double, integer: () -> Int64?, text: () -> String?) throws -> Int64 {
        func epoch(_ unit: Int64) throws -> Int64 {
            if let integer = integer() {
                let perSecond = 1_000_000_000 / unit
                return integer >= 0 ? integer / perSecond : (integer + 1) / perSecond - 1
            }
            return Int64((try number() * Double(unit) / 1e9).rounded(.down))
        }
        func iso(_ text: String) throws -> Int64 {
            // The ISO 8601 forms a careful user tries in turn: with seconds, with their fraction, a date alone.
            for style in isoStyles {
                if let date = try? Date(text, strategy: style) { return Int64(date.timeIntervalSince1970.rounded(.down)) }
            }
            throw BenchError("not an ISO 8601 date: \(text)")
        }
        switch dates {
        case .epoch(let unit)?: return try epoch(unit)
        case .iso8601?:
            guard let text = text() else { throw BenchError("an ISO 8601 date that is not text") }
            return try iso(text)
        case .epochOrISO8601?:
            if let text = text() { return try iso(text) }
            return try epoch(1_000_000_000)
        case .pattern(let pattern, _)?:
            guard let text = text(), let date = plan.formatters[pattern]?.date(from: text) else { throw BenchError("a date that is not \(pattern)") }
            return Int64(date.timeIntervalSince1970.rounded(.down))
        case nil: throw BenchError("a date field without its formats")
        }
    }
}

extension SwiftContenders {
    /// `JSONDecoder` line by line into ``MappedRecord``, the `Decodable` model of your mapping's fields; nil when two
    /// of its fields read one value in different ways, which one model cannot.
    public static func decoder(fields: MappedFields) -> Contender? {
        guard let plan = MappedRecord.Plan(fields) else { return nil }
        return Contender(name: "JSONDecoder, Decodable of the mapped fields", key: "jsondecoder-mapped", family: .foundation, threads: 1) { input in
            let decoder = JSONDecoder()
            decoder.userInfo[MappedRecord.planKey] = plan
            var checksum = Checksum()
            try LineReader.forEachLine(of: input.path) { line in
                checksum.add(recordSum: try decoder.decode(MappedRecord.self, from: line).sum)
            }
            return RunOutcome(checksum: checksum)
        }
    }
}
