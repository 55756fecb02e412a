import Foundation
import Sluice

/// A user's mapping as the foreign contenders of `sluice bench --input` read it: each field's key path, type and
/// date format, which msgspec, DuckDB and a `Decodable` model of the same fields each reproduce in their own way.
///
/// Only what they can reproduce without Sluice's own rules: a mapping with cleanups, transforms, validators,
/// defaults, null spellings, enums that store other values, fallback paths, a records path, header rows or a record's
/// member key runs Sluice alone, and the report says why.
public struct MappedFields: Sendable {
    /// One field: where its value lies, and how it is read.
    public struct Field: Sendable {
        /// One step of the key path.
        public enum Step: Sendable, Equatable {
            case key(String)
            case index(Int)
            /// Every element: the field is a list, and its count is what the checksum takes.
            case every
        }

        /// The type the value is read as (text for strings, URLs and enums).
        public enum Kind: String, Sendable {
            case integer, unsigned, double, bool, text, json, bytes, date
        }

        /// How a date field reads its values.
        public enum Dates: Sendable, Equatable {
            /// Numbers since 1970 in this many nanoseconds per unit.
            case epoch(nanosecondsPerUnit: Int64)
            /// ISO 8601 text.
            case iso8601
            /// Numbers in seconds or ISO 8601 text, by the value's kind (Sluice's default).
            case epochOrISO8601
            /// A fixed pattern, with its `strptime` form.
            case pattern(unicode: String, strptime: String)
        }

        /// From the record's root to the value.
        public var steps: [Step]
        public var kind: Kind
        /// For a date field, its format.
        public var dates: Dates?
    }

    /// The mapping's fields, in its order (the order of the checksum's multipliers).
    public var fields: [Field]

    /// The fields of `schema`, or why the foreign contenders cannot read them as Sluice does.
    public static func of(_ schema: MappingSchema) -> Result<MappedFields, BenchError> {
        let options = schema.options
        if options.recordsPath != nil || options.columnsFromHeader || options.skippedRecords > 0 || !options.nullSpellings.isEmpty {
            return .failure(BenchError("the mapping reads records inside a wrapper, under a header, after skipped lines or with null spellings"))
        }
        var fields: [Field] = []
        for spec in schema.fields {
            let unsupported = [
                (spec.defaultValue != nil, "a default"), (!spec.cleanups.isEmpty, "cleanups"), (spec.transform != nil, "a transform"),
                (!spec.validators.isEmpty, "validators"), (spec.nullSpellings != nil, "null spellings"), (!spec.fallbackPaths.isEmpty, "fallback paths"),
                (spec.truncatesFractions, "truncate"), (spec.enumValues.contains { $0.json != $0.value }, "enum values stored as others"),
                (spec.type.holdsExactDecimals, "a decimal type (no foreign contender rounds to a scale as it does)"),
            ].filter(\.0).map(\.1)
            if let first = unsupported.first { return .failure(BenchError("field '\(spec.name)' has \(first)")) }
            guard let text = spec.path, !text.hasPrefix("$key"), let path = try? FieldPath(parsing: text), !path.segments.isEmpty else {
                return .failure(BenchError("field '\(spec.name)' reads the record's member key or the whole record"))
            }
            let steps: [Field.Step] = path.segments.map { segment in
                if segment.isEveryElement { return .every }
                if let index = segment.index { return .index(index) }
                return .key(String(decoding: segment.key, as: UTF8.self))
            }
            if steps.dropLast().contains(.every) { return .failure(BenchError("field '\(spec.name)' maps into the elements of a list")) }
            guard case .key = steps[0] else { return .failure(BenchError("field '\(spec.name)' reads records that are arrays")) }
            let kind: Field.Kind = switch spec.type {
            case .int64: .integer
            case .uint64: .unsigned
            case .double: .double
            case .bool: .bool
            case .string, .url, .enumeration, .decimal: .text
            case .json: .json
            case .bytes: .bytes
            case .date: .date
            }
            var dates: Field.Dates?
            if spec.type.holdsPointsInTime {
                guard let read = Self.dates(spec) else {
                    return .failure(BenchError("field '\(spec.name)' reads dates in formats \(spec.dateFormats.map(\.description).joined(separator: ", ")), which the foreign contenders are not given"))
                }
                dates = read
            }
            fields.append(Field(steps: steps, kind: kind, dates: dates))
        }
        // A value read whole and by its keys or elements: only as json (the container counts as there or not).
        for (index, field) in fields.enumerated() {
            for (otherIndex, other) in fields.enumerated() where otherIndex != index && other.steps.starts(with: field.steps) {
                guard field.kind == .json && other.steps.count > field.steps.count else {
                    return .failure(BenchError("fields '\(schema.fields[index].name)' and '\(schema.fields[otherIndex].name)' read one value in different ways"))
                }
            }
        }
        return .success(MappedFields(fields: fields))
    }

    private static func dates(_ spec: FieldSpec) -> Field.Dates? {
        let unit: Int64 = switch spec.epochUnit {
        case .seconds: 1_000_000_000
        case .milliseconds: 1_000_000
        case .microseconds: 1000
        case .nanoseconds: 1
        }
        switch spec.dateFormats {
        case [.epoch]: return .epoch(nanosecondsPerUnit: unit)
        case [.iso8601]: return .iso8601
        case [.epoch, .iso8601] where unit == 1_000_000_000: return .epochOrISO8601
        case let formats where formats.count == 1:
            guard case .pattern(let pattern) = formats[0], let strptime = strptime(pattern) else { return nil }
            return .pattern(unicode: pattern, strptime: strptime)
        default: return nil
        }
    }

    /// A Unicode date pattern in `strptime`'s directives (Python's and DuckDB's), or nil when one has none.
    static func strptime(_ pattern: String) -> String? {
        let directives: [String: String] = [
            "yyyy": "%Y", "MM": "%m", "M": "%m", "MMM": "%b", "MMMM": "%B", "dd": "%d", "d": "%d", "HH": "%H", "H": "%H",
            "hh": "%I", "h": "%I", "a": "%p", "mm": "%M", "ss": "%S", "EEE": "%a", "EEEE": "%A", "Z": "%z", "XXX": "%z",
        ]
        var result = ""
        var characters = Array(pattern)[...]
        while let first = characters.first {
            if first == "'" {
                // A quoted literal; '' is a quote.
                characters = characters.dropFirst()
                // Up to the closing quote; '' inside is a quote.
                var literal = ""
                while true {
                    guard let end = characters.firstIndex(of: "'") else { return nil }
                    literal += String(characters[..<end])
                    characters = characters[(end + 1)...]
                    guard characters.first == "'" else { break }
                    literal += "'"
                    characters = characters.dropFirst()
                }
                result += literal.isEmpty ? "'" : literal.replacingOccurrences(of: "%", with: "%%")
            } else if first.isLetter {
                let run = characters.prefix { $0 == first }
                guard let directive = directives[String(run)] else { return nil }
                result += directive
                characters = characters.dropFirst(run.count)
            } else {
                result += first == "%" ? "%%" : String(first)
                characters = characters.dropFirst()
            }
        }
        return result
    }

    /// The fields as JSON, for the Python scripts: `[{"steps": ["user", 0, "*"], "kind": "date", "dates": …}]`.
    public var jsonText: String {
        func quoted(_ text: String) -> String {
            String(decoding: (try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed])) ?? Data("\"\"".utf8), as: UTF8.self)
        }
        let items = fields.map { field -> String in
            let steps = field.steps.map { step -> String in
                switch step {
                case .key(let key): "{\"key\":\(quoted(key))}"
                case .index(let index): "{\"index\":\(index)}"
                case .every: "{\"every\":true}"
                }
            }
            var dates = "null"
            switch field.dates {
            case .epoch(let unit)?: dates = "{\"epoch\":\(unit)}"
            case .iso8601?: dates = "{\"iso8601\":true}"
            case .epochOrISO8601?: dates = "{\"epoch\":1000000000,\"iso8601\":true}"
            case .pattern(_, let strptime)?: dates = "{\"strptime\":\(quoted(strptime))}"
            case nil: break
            }
            return "{\"steps\":[\(steps.joined(separator: ","))],\"kind\":\"\(field.kind.rawValue)\",\"dates\":\(dates)}"
        }
        return "[" + items.joined(separator: ",") + "]"
    }
}
