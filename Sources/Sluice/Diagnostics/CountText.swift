/// Counts as people read them, in one style wherever Sluice prints one: digits in groups of three, `10,136`.
public enum CountText {
    public static func grouped(_ count: Int) -> String {
        let digits = String(count.magnitude)
        var result = count < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return result
    }
}
