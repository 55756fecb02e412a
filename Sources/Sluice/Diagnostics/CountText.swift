import Foundation

/// Counts as people read them, in one style wherever Sluice prints one: digits in groups of three, `10,136`.
public enum CountText {
    /// `count` in digits grouped by three with commas: `1,234,567`; a negative count keeps its sign.
    public static func grouped(_ count: Int) -> String {
        let digits = String(count.magnitude)
        var result = count < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return result
    }

    /// A size in bytes, in megabytes or, from a billion, gigabytes: `217.4 MB`.
    public static func bytes(_ count: Int) -> String {
        count >= 1_000_000_000 ? String(format: "%.2f GB", Double(count) / 1e9) : String(format: "%.1f MB", Double(count) / 1e6)
    }
}
