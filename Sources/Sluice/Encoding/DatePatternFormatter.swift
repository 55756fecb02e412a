/// Writes instants in a compiled date pattern (the inverse of ``DateTextReader/pattern(_:)``), in UTC.
enum DatePatternFormatter {
    private static let monthAbbreviations = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
    // 1970-01-01 was a Thursday.
    private static let weekdayAbbreviations = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let weekdayNames = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"]

    static func format(_ nanoseconds: Int64, _ tokens: [DatePatternToken]) -> String {
        let fields = CivilTime.fields(ofInstant: nanoseconds)
        let days = CivilTime.daysSinceEpoch(year: fields.year, month: fields.month, day: fields.day)
        let weekday = Int(((days % 7) + 7) % 7)
        func padded(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text = ""
        for token in tokens {
            switch token {
            case .year: text += padded(fields.year, 4)
            case .month: text += padded(fields.month, 2)
            case .monthOneOrTwo: text += String(fields.month)
            case .monthAbbreviation: text += monthAbbreviations[Int(fields.month - 1)]
            case .monthName: text += monthNames[Int(fields.month - 1)]
            case .day: text += padded(fields.day, 2)
            case .dayOneOrTwo: text += String(fields.day)
            case .hour: text += padded(fields.hour, 2)
            case .hourOneOrTwo: text += String(fields.hour)
            case .hour12: text += padded(fields.hour % 12 == 0 ? 12 : fields.hour % 12, 2)
            case .hour12OneOrTwo: text += String(fields.hour % 12 == 0 ? 12 : fields.hour % 12)
            case .amPm: text += fields.hour < 12 ? "AM" : "PM"
            case .minute: text += padded(fields.minute, 2)
            case .second: text += padded(fields.second, 2)
            case .fraction(let digits):
                var value = fields.nanosecond
                for _ in digits..<9 { value /= 10 }
                text += padded(value, digits)
            case .weekdayAbbreviation: text += weekdayAbbreviations[weekday]
            case .weekdayName: text += weekdayNames[weekday]
            case .offsetCompact: text += "+0000"
            case .offsetISO: text += "Z"
            case .literal(let byte): text.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return text
    }
}
