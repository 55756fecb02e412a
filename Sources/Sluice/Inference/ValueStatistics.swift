/// What a sample showed at one key path: how often each kind of value came, and enough of the values to tell
/// dates, URLs, base64 and small sets of text apart. Kept per path, never per record, so memory does not grow
/// with the sample.
struct ValueStatistics {
    /// Values present, nulls among them, records that held the path's parent but not the key.
    var present = 0
    var nulls = 0
    var absent = 0
    var booleans = 0
    var falseBooleans = 0
    /// Numbers by what type reads them exactly.
    var integers = 0
    var unsignedIntegers = 0
    var wideIntegers = 0
    var fractions = 0
    /// The range of integers, those in strings included, and of all numbers.
    var smallestInteger = Int64.max
    var largestInteger = Int64.min
    var smallestNumber = Double.infinity
    var largestNumber = -Double.infinity
    /// Strings, and those that every reader of a kind accepts.
    var strings = 0
    var integerStrings = 0
    /// Integer strings outside the Int64 range.
    var wideIntegerStrings = 0
    var numberStrings = 0
    var dateStrings: [DateFormat: Int] = [:]
    var urlStrings = 0
    var base64Strings = 0
    var longestString = 0
    /// Up to ``maximumDistinct`` + 1 distinct strings, for enums.
    var distinctStrings: Set<String> = []
    var objects = 0
    var arrays = 0

    static let maximumDistinct = 12
    static let textDateFormats: [DateFormat] = [.iso8601, .rfc2822, .twitter]
    static let dateParsers: [(DateFormat, DateParser)] = textDateFormats.compactMap { format in
        (try? DateParser(unit: .seconds, formats: [format])).map { (format, $0) }
    }

    mutating func add(_ value: SampleValue) {
        present += 1
        switch value {
        case .null: nulls += 1
        case .bool(let flag):
            booleans += 1
            if !flag { falseBooleans += 1 }
        case .object: objects += 1
        case .array, .deep: arrays += 1
        case .number(let literal): addNumber(literal)
        case .string(let text): addString(text)
        }
    }

    private mutating func addNumber(_ literal: String) {
        var text = literal
        let exact = text.withUTF8 { bytes in bytes.baseAddress.map { NumberConversion.exactInteger($0, bytes.count) } }
        let isIntegerLiteral = !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
        if let number = Double(literal) {
            smallestNumber = min(smallestNumber, number)
            largestNumber = max(largestNumber, number)
        }
        switch exact {
        case .value(let negative, let magnitude)? where isIntegerLiteral:
            if Self.int64(negative: negative, magnitude) != nil {
                integers += 1
                noteInteger(negative: negative, magnitude)
            } else if !negative {
                unsignedIntegers += 1
            } else {
                wideIntegers += 1
            }
        case .outOfRange? where isIntegerLiteral: wideIntegers += 1
        default: fractions += 1
        }
    }

    /// The integer as an Int64, when one holds it.
    private static func int64(negative: Bool, _ magnitude: UInt64) -> Int64? {
        if negative && magnitude == Int64.min.magnitude { return .min }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return negative ? -Int64(magnitude) : Int64(magnitude)
    }

    private mutating func noteInteger(negative: Bool, _ magnitude: UInt64) {
        guard let value = Self.int64(negative: negative, magnitude) else { return }
        smallestInteger = min(smallestInteger, value)
        largestInteger = max(largestInteger, value)
    }

    private mutating func addString(_ text: String) {
        strings += 1
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress ?? (bytes.isEmpty ? UnsafePointer(bitPattern: 1) : nil) else { return }
            longestString = max(longestString, bytes.count)
            if NumberConversion.isIntegerText(base, bytes.count) {
                integerStrings += 1
                if case .value(let negative, let magnitude) = NumberConversion.exactInteger(base, bytes.count), Self.int64(negative: negative, magnitude) != nil {
                    noteInteger(negative: negative, magnitude)
                } else {
                    wideIntegerStrings += 1
                }
            }
            if NumberConversion.isNumberText(base, bytes.count) { numberStrings += 1 }
            // Text dates by the first format that reads them; digits alone are numbers, not dates.
            if !NumberConversion.isNumberText(base, bytes.count) {
                for (format, parser) in Self.dateParsers {
                    if case .instant = parser.text(base, bytes.count) {
                        dateStrings[format, default: 0] += 1
                        break
                    }
                }
            }
            // A URL to infer is absolute: `scheme://`; plain words are references too, and are not URLs to people.
            if URLReference.isValid(base, bytes.count), let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
               bytes[colon...].starts(with: Array("://".utf8)) {
                urlStrings += 1
            }
            // Identifiers and paths are base64 text too: only `+` or `=` padding tells it apart.
            if bytes.count >= 16, bytes.count % 4 == 0, bytes.first != UInt8(ascii: "/"), Base64.isValid(base, bytes.count),
               bytes.contains(where: { $0 == UInt8(ascii: "+") }) || bytes.last == UInt8(ascii: "=") {
                base64Strings += 1
            }
        }
        if distinctStrings.count <= Self.maximumDistinct { distinctStrings.insert(text) }
    }

    /// Values that are not null.
    var values: Int { present - nulls }
}
