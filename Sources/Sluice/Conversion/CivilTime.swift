/// Calendar arithmetic in the proleptic Gregorian calendar, UTC, on integers (no Foundation, no time zones).
enum CivilTime {
    static let nanosecondsPerSecond: Int64 = 1_000_000_000
    /// The instants Sluice dates can hold: nanoseconds since 1970-01-01T00:00:00Z in an Int64 (1677-09-21 to 2262-04-11).

    /// Days from 1970-01-01 to the given date (Howard Hinnant's `days_from_civil`).
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The instant in nanoseconds, or nil when a part is out of its range or the instant is not representable.
    static func instant(
        year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64, nanosecond: Int64,
        offsetSeconds: Int64
    ) -> Int64? {
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
              (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second),
              (0..<nanosecondsPerSecond).contains(nanosecond), year >= -9999, year <= 9999 else { return nil }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        // The first and last seconds of the range are partly representable, so the sum decides; before 1970 the
        // fraction is taken from the next second up, whose product does not overflow when the instant fits.
        let borrows = seconds < 0 && nanosecond > 0
        let (scaled, overflows) = (borrows ? seconds + 1 : seconds).multipliedReportingOverflow(by: nanosecondsPerSecond)
        guard !overflows else { return nil }
        let (instant, overflowsToo) = scaled.addingReportingOverflow(borrows ? nanosecond - nanosecondsPerSecond : nanosecond)
        return overflowsToo ? nil : instant
    }

    /// The UTC calendar fields of an instant, for writing dates back out.
    static func fields(ofInstant nanoseconds: Int64) -> (year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64, nanosecond: Int64) {
        var seconds = nanoseconds / nanosecondsPerSecond
        var nanosecond = nanoseconds % nanosecondsPerSecond
        if nanosecond < 0 {
            nanosecond += nanosecondsPerSecond
            seconds -= 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        // Hinnant's `civil_from_days`.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day, secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60, nanosecond)
    }
}
