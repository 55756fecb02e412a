/// The unit of epoch numbers in a date field.
public enum EpochUnit: String, Sendable, Hashable, CaseIterable {
    /// Seconds, milliseconds, microseconds or nanoseconds since 1970-01-01T00:00:00Z.
    case seconds, milliseconds, microseconds, nanoseconds

    /// The power of ten from this unit to nanoseconds.
    var nanosecondExponent: Int {
        switch self {
        case .seconds: 9
        case .milliseconds: 6
        case .microseconds: 3
        case .nanoseconds: 0
        }
    }
}

/// A way a date field reads its values, tried in the order the field lists them.
public enum DateFormat: Sendable, Hashable, CustomStringConvertible {
    /// Epoch numbers: a JSON number or a numeric string, in the field's ``EpochUnit``. A field whose formats leave
    /// it out rejects numbers, and reads numeric strings by its patterns (`yyyyMMdd` reads `"20141119"`).
    case epoch
    /// ISO 8601 / RFC 3339 in extended form: `2014-08-31`, `2014-08-31T00:29:15Z`,
    /// `2014-08-31 00:29:15.123456+09:00`, `2014-08-31T00:29`. Without an offset, the time is UTC.
    case iso8601
    /// RFC 2822 (e-mail and RSS): `Sun, 31 Aug 2014 00:29:15 +0000`; the weekday and the seconds may be left out,
    /// the day may have one digit, and the zone may be `UT`, `GMT`, `Z` or a North American zone (`EST`, `PDT`, …).
    case rfc2822
    /// A fixed pattern in Unicode date-pattern letters, always in the POSIX locale; UTC unless it carries an
    /// offset. Supported: `yyyy MM M MMM MMMM dd d HH H hh h a mm ss S…S EEE EEEE Z XXX`, `'literal'` and any
    /// other non-letter. Twitter's `EEE MMM dd HH:mm:ss Z yyyy` is one (``twitter``).
    case pattern(String)

    /// Twitter's `created_at`: `Sun Aug 31 00:29:15 +0000 2014`.
    public static let twitter = DateFormat.pattern("EEE MMM dd HH:mm:ss Z yyyy")

    /// What a date field reads when it names no formats: epoch numbers, then ISO 8601 text.
    public static let defaults: [DateFormat] = [.epoch, .iso8601]

    /// The names a mapping file gives formats, besides patterns.
    public static let names = ["epoch", "iso8601", "rfc2822", "twitter"]

    /// The format a mapping file names: `epoch`, `iso8601`, `rfc2822`, `twitter`, or else a pattern.
    public init(name: String) {
        switch name {
        case "epoch": self = .epoch
        case "iso8601": self = .iso8601
        case "rfc2822": self = .rfc2822
        case "twitter": self = .twitter
        default: self = .pattern(name)
        }
    }

    public var description: String {
        switch self {
        case .epoch: "epoch"
        case .iso8601: "iso8601"
        case .rfc2822: "rfc2822"
        case .pattern(let pattern): pattern
        }
    }
}

/// A date field's compiled way of reading values: its epoch unit and its formats, tried in order.
package final class DateParser: Sendable {
    let unit: EpochUnit
    /// The text formats, in order, with `nil` where epoch numbers come among them.
    let formats: [CompiledDateFormat?]
    let acceptsEpoch: Bool
    /// What rejections say the field expected.
    let expectation: String

    init(unit: EpochUnit, formats: [DateFormat]) throws(DatePatternError) {
        guard !formats.isEmpty else { throw DatePatternError(message: "a date field needs at least one format") }
        self.unit = unit
        self.formats = try formats.map { (format) throws(DatePatternError) in format == .epoch ? nil : try CompiledDateFormat(format) }
        acceptsEpoch = formats.contains(.epoch)
        let names = formats.map { format in
            switch format {
            case .epoch: "epoch \(unit.rawValue)"
            case .iso8601: "ISO 8601"
            case .rfc2822: "RFC 2822"
            case .pattern(let pattern): "'\(pattern)'"
            }
        }
        // "epoch seconds, or ISO 8601 or 'EEE MMM dd …'": the numbers set apart from the text formats.
        let rest = names.dropFirst().joined(separator: " or ")
        expectation = "date (" + names[0] + (rest.isEmpty ? "" : (formats[0] == .epoch ? ", or " : " or ") + rest) + ")"
    }

    package enum Outcome {
        case instant(Int64)
        /// An epoch number with digits below a nanosecond.
        case tooPrecise
        /// Outside the instants an Int64 of nanoseconds holds (1677-09-21 to 2262-04-11).
        case outOfRange
        case unreadable
    }

    /// A JSON number: an epoch number, when the field reads them.
    func number(_ text: UnsafePointer<UInt8>, _ length: Int) -> Outcome {
        acceptsEpoch ? epoch(text, length) : .unreadable
    }

    private func epoch(_ text: UnsafePointer<UInt8>, _ length: Int) -> Outcome {
        switch NumberConversion.signed(NumberConversion.exactInteger(text, length, scale: unit.nanosecondExponent)) {
        case .value(let nanoseconds): .instant(nanoseconds)
        case .fractional: .tooPrecise
        case .outOfRange: .outOfRange
        }
    }

    /// Text, through the formats in order (a numeric string is an epoch number where `epoch` comes); the first
    /// that reads it wins, else the most telling failure.
    func text(_ text: UnsafePointer<UInt8>, _ length: Int) -> Outcome {
        var outcome = Outcome.unreadable
        for format in formats {
            guard let format else {
                guard NumberConversion.isNumberText(text, length) else { continue }
                let read = epoch(text, length)
                if case .instant = read { return read }
                outcome = read
                continue
            }
            switch format.parse(text, length) {
            case .instant(let nanoseconds): return .instant(nanoseconds)
            case .outOfRange: if case .unreadable = outcome { outcome = .outOfRange }
            default: continue
            }
        }
        return outcome
    }
}

/// A date pattern that does not compile.
struct DatePatternError: Error, Sendable {
    var message: String
}

/// One date format, ready to parse without Foundation.
package enum CompiledDateFormat: Sendable {
    case iso8601
    case rfc2822
    /// Twitter's `EEE MMM dd HH:mm:ss Z yyyy`, common enough for a reader of its own: fixed positions, no tokens.
    case twitter
    case pattern([DatePatternToken])

    /// A text format (``DateFormat/epoch`` is read as a number, not compiled).
    init(_ format: DateFormat) throws(DatePatternError) {
        switch format {
        case .epoch: throw DatePatternError(message: "epoch numbers are not a text format")
        case .iso8601: self = .iso8601
        case .rfc2822: self = .rfc2822
        case DateFormat.twitter: self = .twitter
        case .pattern(let pattern): self = .pattern(try DatePatternToken.compile(pattern))
        }
    }

    package func parse(_ text: UnsafePointer<UInt8>, _ length: Int) -> DateParser.Outcome {
        var reader = DateTextReader(text: text, length: length)
        let parts: DateParts?
        switch self {
        case .iso8601: parts = reader.iso8601()
        case .rfc2822: parts = reader.rfc2822()
        case .twitter: parts = reader.twitter()
        case .pattern(let tokens): parts = reader.pattern(tokens)
        }
        guard let parts, reader.isAtEnd else { return .unreadable }
        guard let instant = parts.instant else { return .outOfRange }
        return .instant(instant)
    }
}

/// The calendar fields read from one value.
struct DateParts {
    var year: Int64 = 1970, month: Int64 = 1, day: Int64 = 1
    var hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0, nanosecond: Int64 = 0
    var offsetSeconds: Int64 = 0
    /// For 12-hour patterns: whether the time is after noon.
    var isPostMeridiem: Bool?

    var instant: Int64? {
        var hour = hour
        if let isPostMeridiem {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (isPostMeridiem ? 12 : 0)
        }
        return CivilTime.instant(year: year, month: month, day: day, hour: hour, minute: minute, second: second, nanosecond: nanosecond, offsetSeconds: offsetSeconds)
    }
}

/// The pieces of a compiled date pattern.
package enum DatePatternToken: Sendable, Equatable {
    case year, month, monthOneOrTwo, monthAbbreviation, monthName, day, dayOneOrTwo, hour, hourOneOrTwo
    case hour12, hour12OneOrTwo, amPm, minute, second, fraction(digits: Int), weekdayAbbreviation, weekdayName
    /// `Z`: `+0000`, `-0530` (also `+05:30`).
    case offsetCompact
    /// `XXX`: `Z`, `+05:30` (also `+0530`).
    case offsetISO
    case literal(UInt8)

    static let supported = "yyyy MM M MMM MMMM dd d HH H hh h a mm ss S…S EEE EEEE Z XXX"

    static func compile(_ pattern: String) throws(DatePatternError) -> [DatePatternToken] {
        var tokens: [DatePatternToken] = []
        let bytes = Array(pattern.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") {
                // A quoted literal; '' is a quote.
                index += 1
                if index < bytes.count && bytes[index] == UInt8(ascii: "'") {
                    tokens.append(.literal(byte))
                    index += 1
                    continue
                }
                while index < bytes.count && bytes[index] != UInt8(ascii: "'") {
                    tokens.append(.literal(bytes[index]))
                    index += 1
                }
                guard index < bytes.count else { throw DatePatternError(message: "date pattern '\(pattern)' has an unclosed quote") }
                index += 1
                continue
            }
            let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            guard isLetter else {
                tokens.append(.literal(byte))
                index += 1
                continue
            }
            var run = 1
            while index + run < bytes.count && bytes[index + run] == byte { run += 1 }
            let letters = String(repeating: Character(UnicodeScalar(byte)), count: run)
            let token: DatePatternToken
            switch (byte, run) {
            case (UInt8(ascii: "y"), 4): token = .year
            case (UInt8(ascii: "M"), 1): token = .monthOneOrTwo
            case (UInt8(ascii: "M"), 2): token = .month
            case (UInt8(ascii: "M"), 3): token = .monthAbbreviation
            case (UInt8(ascii: "M"), 4): token = .monthName
            case (UInt8(ascii: "d"), 1): token = .dayOneOrTwo
            case (UInt8(ascii: "d"), 2): token = .day
            case (UInt8(ascii: "H"), 1): token = .hourOneOrTwo
            case (UInt8(ascii: "H"), 2): token = .hour
            case (UInt8(ascii: "h"), 1): token = .hour12OneOrTwo
            case (UInt8(ascii: "h"), 2): token = .hour12
            case (UInt8(ascii: "a"), 1): token = .amPm
            case (UInt8(ascii: "m"), 2): token = .minute
            case (UInt8(ascii: "s"), 2): token = .second
            case (UInt8(ascii: "S"), 1...9): token = .fraction(digits: run)
            case (UInt8(ascii: "E"), 1...3): token = .weekdayAbbreviation
            case (UInt8(ascii: "E"), 4): token = .weekdayName
            case (UInt8(ascii: "Z"), 1...3): token = .offsetCompact
            case (UInt8(ascii: "X"), 3): token = .offsetISO
            default:
                throw DatePatternError(message: "date pattern '\(pattern)' uses '\(letters)', which Sluice does not read (supported: \(supported))")
            }
            tokens.append(token)
            index += run
        }
        if tokens.contains(where: { $0 == .hour12 || $0 == .hour12OneOrTwo }) != tokens.contains(.amPm) {
            throw DatePatternError(message: "date pattern '\(pattern)' needs both a 12-hour field (h, hh) and a (AM/PM), or neither")
        }
        return tokens
    }
}

/// Reads the parts of a date from bytes.
struct DateTextReader {
    let text: UnsafePointer<UInt8>
    let length: Int
    var position = 0

    var isAtEnd: Bool { position == length }

    private static let monthNames: [[UInt8]] = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"].map { Array($0.utf8) }
    private static let weekdayNames: [[UInt8]] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"].map { Array($0.utf8) }

    @inline(__always)
    mutating func digits(_ count: Int) -> Int64? {
        guard position + count <= length else { return nil }
        var value: Int64 = 0
        for offset in 0..<count {
            let digit = text[position + offset] &- 0x30
            guard digit <= 9 else { return nil }
            value = value * 10 + Int64(digit)
        }
        position += count
        return value
    }

    @inline(__always)
    mutating func oneOrTwoDigits() -> Int64? {
        guard let first = digits(1) else { return nil }
        if position < length, text[position] &- 0x30 <= 9, let second = digits(1) { return first * 10 + second }
        return first
    }

    @inline(__always)
    mutating func byte(_ expected: UInt8) -> Bool {
        guard position < length, text[position] == expected else { return false }
        position += 1
        return true
    }

    /// Three letters in any case, packed into one integer, for matching abbreviations without loops.
    @inline(__always)
    private func packedThreeLetters() -> UInt32? {
        guard position + 3 <= length else { return nil }
        return UInt32(text[position] | 0x20) << 16 | UInt32(text[position + 1] | 0x20) << 8 | UInt32(text[position + 2] | 0x20)
    }

    /// A month abbreviation (`Aug`, any case): its number. A switch over packed letters, so no table to load.
    @inline(__always)
    mutating func monthAbbreviation() -> Int64? {
        guard let packed = packedThreeLetters() else { return nil }
        let month: Int64? = switch packed {
        case 0x6A616E: 1  // jan
        case 0x666562: 2  // feb
        case 0x6D6172: 3  // mar
        case 0x617072: 4  // apr
        case 0x6D6179: 5  // may
        case 0x6A756E: 6  // jun
        case 0x6A756C: 7  // jul
        case 0x617567: 8  // aug
        case 0x736570: 9  // sep
        case 0x6F6374: 10  // oct
        case 0x6E6F76: 11  // nov
        case 0x646563: 12  // dec
        default: nil
        }
        if month != nil { position += 3 }
        return month
    }

    /// A weekday abbreviation (`Sun`, any case).
    @inline(__always)
    mutating func weekdayAbbreviation() -> Bool {
        guard let packed = packedThreeLetters() else { return false }
        switch packed {
        case 0x6D6F6E, 0x747565, 0x776564, 0x746875, 0x667269, 0x736174, 0x73756E:  // mon tue wed thu fri sat sun
            position += 3
            return true
        default:
            return false
        }
    }

    /// A name from `names`, in any case; its index.
    mutating func name(_ names: [[UInt8]]) -> Int? {
        for (index, name) in names.enumerated() where position + name.count <= length {
            var matches = true
            for offset in 0..<name.count where text[position + offset] | 0x20 != name[offset] {
                matches = false
                break
            }
            if matches {
                position += name.count
                return index
            }
        }
        return nil
    }

    /// `+HHMM`, `+HH:MM`, or with `acceptsZ` also `Z`; the offset in seconds east of UTC.
    @inline(__always)
    mutating func offset(acceptsZ: Bool) -> Int64? {
        if acceptsZ && (byte(UInt8(ascii: "Z")) || byte(UInt8(ascii: "z"))) { return 0 }
        guard position < length, text[position] == UInt8(ascii: "+") || text[position] == UInt8(ascii: "-") else { return nil }
        let sign: Int64 = text[position] == UInt8(ascii: "-") ? -1 : 1
        position += 1
        guard let hours = digits(2) else { return nil }
        _ = byte(UInt8(ascii: ":"))
        guard let minutes = digits(2), hours <= 23, minutes <= 59 else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }

    /// Up to nine digits of a fraction of a second, as nanoseconds; more digits must be zeros.
    mutating func fraction(maximumDigits: Int = .max, exactly: Int? = nil) -> Int64? {
        var nanoseconds: Int64 = 0
        var count = 0
        while position < length, text[position] &- 0x30 <= 9, count < maximumDigits {
            let digit = Int64(text[position] &- 0x30)
            if count < 9 {
                nanoseconds = nanoseconds * 10 + digit
            } else if digit != 0 {
                return nil
            }
            count += 1
            position += 1
        }
        if let exactly, count != exactly { return nil }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 9) { nanoseconds *= 10 }
        return nanoseconds
    }

    mutating func iso8601() -> DateParts? {
        var parts = DateParts()
        guard let year = digits(4), byte(UInt8(ascii: "-")), let month = digits(2), byte(UInt8(ascii: "-")), let day = digits(2) else { return nil }
        parts.year = year
        parts.month = month
        parts.day = day
        if isAtEnd { return parts }
        guard byte(UInt8(ascii: "T")) || byte(UInt8(ascii: "t")) || byte(UInt8(ascii: " ")) else { return nil }
        guard let hour = digits(2), byte(UInt8(ascii: ":")), let minute = digits(2) else { return nil }
        parts.hour = hour
        parts.minute = minute
        if byte(UInt8(ascii: ":")) {
            guard let second = digits(2) else { return nil }
            parts.second = second
            if byte(UInt8(ascii: ".")) || byte(UInt8(ascii: ",")) {
                guard let nanoseconds = fraction() else { return nil }
                parts.nanosecond = nanoseconds
            }
        }
        if !isAtEnd {
            guard let offset = offset(acceptsZ: true) else { return nil }
            parts.offsetSeconds = offset
        }
        return parts
    }

    /// `Sun Aug 31 00:29:15 +0000 2014`: thirty bytes, every field at a fixed place.
    mutating func twitter() -> DateParts? {
        guard length == 30, text[3] == 0x20, text[7] == 0x20, text[10] == 0x20, text[13] == 0x3A, text[16] == 0x3A,
              text[19] == 0x20, text[25] == 0x20, weekdayAbbreviation() else { return nil }
        position = 4
        guard let month = monthAbbreviation() else { return nil }
        var parts = DateParts()
        parts.month = month
        position = 8
        guard let day = digits(2) else { return nil }
        position = 11
        guard let hour = digits(2) else { return nil }
        position = 14
        guard let minute = digits(2) else { return nil }
        position = 17
        guard let second = digits(2) else { return nil }
        position = 20
        guard let offset = offset(acceptsZ: false) else { return nil }
        position = 26
        guard let year = digits(4) else { return nil }
        parts.day = day
        parts.hour = hour
        parts.minute = minute
        parts.second = second
        parts.offsetSeconds = offset
        parts.year = year
        return parts
    }

    /// RFC 2822's zone names, and their offsets in hours at the same places.
    private static let rfc2822ZoneNames: [[UInt8]] = ["gmt", "ut", "z", "edt", "est", "cdt", "cst", "mdt", "mst", "pdt", "pst"].map { Array($0.utf8) }
    private static let rfc2822ZoneHours: [Int64] = [0, 0, 0, -4, -5, -5, -6, -6, -7, -7, -8]

    /// One space or more (tabs too), as RFC 2822 folds white space.
    private mutating func spaces() -> Bool {
        let start = position
        while position < length, text[position] == 0x20 || text[position] == 0x09 { position += 1 }
        return position > start
    }

    /// `[Sun, ]31 Aug 2014 00:29[:15] +0000`, the zone also `UT`, `GMT`, `Z` or a North American name.
    mutating func rfc2822() -> DateParts? {
        var parts = DateParts()
        if weekdayAbbreviation() {
            guard byte(UInt8(ascii: ",")) else { return nil }
            _ = spaces()
        }
        guard let day = oneOrTwoDigits(), spaces(), let month = monthAbbreviation(), spaces(), let year = digits(4), spaces(),
              let hour = digits(2), byte(UInt8(ascii: ":")), let minute = digits(2) else { return nil }
        (parts.day, parts.month, parts.year, parts.hour, parts.minute) = (day, month, year, hour, minute)
        if byte(UInt8(ascii: ":")) {
            guard let second = digits(2) else { return nil }
            parts.second = second
        }
        guard spaces() else { return nil }
        let zoneStart = position
        if let offset = offset(acceptsZ: false) {
            parts.offsetSeconds = offset
        } else {
            position = zoneStart
            guard let index = name(Self.rfc2822ZoneNames) else { return nil }
            parts.offsetSeconds = Self.rfc2822ZoneHours[index] * 3600
        }
        _ = spaces()
        return parts
    }

    mutating func pattern(_ tokens: [DatePatternToken]) -> DateParts? {
        var parts = DateParts()
        for token in tokens {
            switch token {
            case .year: guard let value = digits(4) else { return nil }; parts.year = value
            case .month: guard let value = digits(2) else { return nil }; parts.month = value
            case .monthOneOrTwo: guard let value = oneOrTwoDigits() else { return nil }; parts.month = value
            case .monthAbbreviation: guard let month = monthAbbreviation() else { return nil }; parts.month = month
            case .monthName: guard let index = name(Self.monthNames) else { return nil }; parts.month = Int64(index + 1)
            case .day: guard let value = digits(2) else { return nil }; parts.day = value
            case .dayOneOrTwo: guard let value = oneOrTwoDigits() else { return nil }; parts.day = value
            case .hour, .hour12: guard let value = digits(2) else { return nil }; parts.hour = value
            case .hourOneOrTwo, .hour12OneOrTwo: guard let value = oneOrTwoDigits() else { return nil }; parts.hour = value
            case .amPm:
                guard position + 2 <= length, text[position + 1] | 0x20 == UInt8(ascii: "m") else { return nil }
                switch text[position] | 0x20 {
                case UInt8(ascii: "a"): parts.isPostMeridiem = false
                case UInt8(ascii: "p"): parts.isPostMeridiem = true
                default: return nil
                }
                position += 2
            case .minute: guard let value = digits(2) else { return nil }; parts.minute = value
            case .second: guard let value = digits(2) else { return nil }; parts.second = value
            case .fraction(let count): guard let value = fraction(maximumDigits: count, exactly: count) else { return nil }; parts.nanosecond = value
            case .weekdayAbbreviation: guard weekdayAbbreviation() else { return nil }
            case .weekdayName: guard name(Self.weekdayNames) != nil else { return nil }
            case .offsetCompact: guard let value = offset(acceptsZ: false) else { return nil }; parts.offsetSeconds = value
            case .offsetISO: guard let value = offset(acceptsZ: true) else { return nil }; parts.offsetSeconds = value
            case .literal(let expected): guard byte(expected) else { return nil }
            }
        }
        return parts
    }
}

/// Writes instants as RFC 3339 text in UTC, with as many fraction digits as needed (none, 3, 6 or 9).
package enum DateText {
    /// `nanoseconds` since 1970 as RFC 3339 in UTC: `2021-03-04T05:06:07Z`, with a fraction of 3, 6 or 9 digits when
    /// the instant has one.
    package static func rfc3339(_ nanoseconds: Int64) -> String {
        var text: [UInt8] = []
        rfc3339(nanoseconds, appendingTo: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends ``rfc3339(_:)``'s text to `text`, digit by digit: writers call it for every date they write, where
    /// building a `String` cost more than the rest of the row.
    package static func rfc3339(_ nanoseconds: Int64, appendingTo text: inout [UInt8]) {
        let fields = CivilTime.fields(ofInstant: nanoseconds)
        // As `String(value)` left-padded with zeros to `width`.
        func padded(_ value: Int64, _ width: Int) {
            let magnitude = value.magnitude
            var digits = 1
            var scale: UInt64 = 10
            while digits < 19 && magnitude >= scale {
                digits += 1
                scale &*= 10
            }
            for _ in 0..<max(0, width - digits - (value < 0 ? 1 : 0)) { text.append(UInt8(ascii: "0")) }
            if value < 0 { text.append(UInt8(ascii: "-")) }
            var divisor = scale / 10
            var rest = magnitude
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        padded(fields.year, 4)
        text.append(UInt8(ascii: "-"))
        padded(fields.month, 2)
        text.append(UInt8(ascii: "-"))
        padded(fields.day, 2)
        text.append(UInt8(ascii: "T"))
        padded(fields.hour, 2)
        text.append(UInt8(ascii: ":"))
        padded(fields.minute, 2)
        text.append(UInt8(ascii: ":"))
        padded(fields.second, 2)
        if fields.nanosecond != 0 {
            text.append(UInt8(ascii: "."))
            if fields.nanosecond % 1_000_000 == 0 {
                padded(fields.nanosecond / 1_000_000, 3)
            } else if fields.nanosecond % 1000 == 0 {
                padded(fields.nanosecond / 1000, 6)
            } else {
                padded(fields.nanosecond, 9)
            }
        }
        text.append(UInt8(ascii: "Z"))
    }
}
