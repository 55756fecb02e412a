/// The shape of a `decimal` field's values: how many digits they hold in all (`precision`, 1 to 38) and after the
/// point (`scale`, 0 to `precision`), and how a value with more places than that is rounded; without a rounding,
/// such a value is a rejection.
///
/// Values are exact from their JSON text, never through a `Double`: `0.1` is one tenth. They are stored as their
/// canonical text (`-1299.50` for precision 10 and scale 2: a minus sign only below zero, `scale` digits after
/// the point, one zero before it at least), which every sink writes as its exact decimal type or as that text.
public struct DecimalFormat: Sendable, Hashable, CustomStringConvertible {
    /// The most digits a decimal holds: Parquet's and Arrow's 128-bit decimals, and `Decimal`'s significand.
    public static let maximumPrecision = 38

    /// The number of digits in all, 1 to 38.
    public var precision: Int
    /// The number of digits after the point, 0 to ``precision``.
    public var scale: Int
    /// How a value with more places than ``scale`` is rounded; nil rejects it.
    public var rounding: DecimalRounding?

    /// A decimal shape: `DecimalFormat(precision: 10, scale: 2)` holds up to 99999999.99.
    public init(precision: Int, scale: Int = 0, rounding: DecimalRounding? = nil) {
        self.precision = precision
        self.scale = scale
        self.rounding = rounding
    }

    /// `decimal(10,2)`: the type as rejections and descriptions name it.
    public var description: String { "decimal(\(precision),\(scale))" }

    /// What is wrong with the shape, if anything.
    var problem: String? {
        guard (1...Self.maximumPrecision).contains(precision) else { return "precision \(precision) is outside 1 to \(Self.maximumPrecision)" }
        guard (0...precision).contains(scale) else { return "scale \(scale) is outside 0 to the precision, \(precision)" }
        return nil
    }

    /// What a value that fails the shape was expected to be, for its rejection.
    func expectation(_ failure: Failure) -> String {
        switch failure {
        case .tooManyPlaces where scale == 0: "\(self) (a whole number; declare a rounding to round)"
        case .tooManyPlaces: "\(self) (at most \(scale) decimal place\(scale == 1 ? "" : "s"); declare a rounding to round)"
        case .outOfRange where precision == scale: "\(self) (less than 1 in magnitude)"
        case .outOfRange: "\(self) (at most \(precision - scale) digit\(precision - scale == 1 ? "" : "s") before the point)"
        }
    }

    /// Why a number does not fit the shape.
    enum Failure {
        /// More digits after the point than the scale, and no rounding declared.
        case tooManyPlaces
        /// More digits before the point than the precision leaves (after rounding, if any).
        case outOfRange
    }

    /// The order of two values in one shape's canonical text: negative when `left` is less, 0 when equal. Equal
    /// scales make magnitudes compare by length, then digit by digit; a minus sign reverses that.
    static func order(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
        let leftIsNegative = left.first == UInt8(ascii: "-")
        let rightIsNegative = right.first == UInt8(ascii: "-")
        guard leftIsNegative == rightIsNegative else { return leftIsNegative ? -1 : 1 }
        var magnitude = left.count - right.count
        if magnitude == 0 {
            for index in left.indices where left[index] != right[index] {
                magnitude = Int(left[index]) - Int(right[index])
                break
            }
        }
        return leftIsNegative ? -magnitude : magnitude
    }

    /// The longest canonical text: a sign, 38 digits, a point, and a zero before it.
    static let longestText = maximumPrecision + 3

    /// Hands `body` the canonical text of `literal` in this shape, rounded as declared; returns why it does not
    /// fit instead, calling nothing. Costs no allocation: the text is built on the stack.
    func withText(of literal: DecimalLiteral, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Failure? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.longestText + Self.maximumPrecision + 1) { buffer -> Failure? in
            guard let base = buffer.baseAddress else { return .outOfRange }
            // The unscaled digits (the value times 10^scale), most significant first, and one more for a carry.
            let digits = base
            var count = 0
            let shift = literal.exponent + scale
            if literal.digitCount == 0 {
                count = 0
            } else if shift >= 0 {
                guard literal.digitCount + shift <= precision else { return .outOfRange }
                for index in 0..<literal.digitCount { digits[index] = literal.digit(index) }
                for index in literal.digitCount..<literal.digitCount + shift { digits[index] = 0 }
                count = literal.digitCount + shift
            } else {
                // Trailing zeros are not significant digits: a negative shift always drops a digit that is not 0.
                guard let rounding else { return .tooManyPlaces }
                let kept = literal.digitCount + shift
                guard kept <= precision else { return .outOfRange }
                let firstDropped: UInt8 = kept >= 0 ? literal.digit(kept) : 0
                let moreDropped = kept < 0 || kept + 1 < literal.digitCount
                count = max(kept, 0)
                for index in 0..<count { digits[index] = literal.digit(index) }
                let lastKeptIsOdd = count > 0 && digits[count - 1] & 1 == 1
                if rounding.roundsAway(isNegative: literal.isNegative, firstDropped: firstDropped, moreDropped: moreDropped, lastKeptIsOdd: lastKeptIsOdd) {
                    var index = count - 1
                    while index >= 0 && digits[index] == 9 {
                        digits[index] = 0
                        index -= 1
                    }
                    if index >= 0 {
                        digits[index] += 1
                    } else {
                        // All nines (or nothing kept), now all zeros: the carry is a new leading 1.
                        digits[count] = 0
                        digits[0] = 1
                        count += 1
                    }
                    guard count <= precision else { return .outOfRange }
                }
            }
            // The text, written after the digits (which it never overlaps: they take at most 39 bytes).
            let text = base + Self.maximumPrecision + 1
            var length = 0
            func put(_ byte: UInt8) {
                text[length] = byte
                length += 1
            }
            if literal.isNegative && count > 0 { put(UInt8(ascii: "-")) }
            let integerCount = count - scale
            if integerCount <= 0 {
                put(UInt8(ascii: "0"))
            } else {
                for index in 0..<integerCount { put(digits[index] + 0x30) }
            }
            if scale > 0 {
                put(UInt8(ascii: "."))
                for _ in 0..<max(0, -integerCount) { put(UInt8(ascii: "0")) }
                for index in max(0, integerCount)..<count { put(digits[index] + 0x30) }
            }
            body(UnsafeBufferPointer(start: text, count: length))
            return nil
        }
    }
}

/// How a value with more decimal places than its field's scale is rounded to it.
public enum DecimalRounding: String, Sendable, Hashable, CaseIterable {
    /// To the nearest; a tie to the even neighbour (banker's rounding: 2.5 → 2, 3.5 → 4).
    case halfEven = "half-even"
    /// To the nearest; a tie away from zero (2.5 → 3, -2.5 → -3), as PostgreSQL rounds `numeric`.
    case halfUp = "half-up"
    /// To the nearest; a tie toward zero (2.5 → 2, -2.5 → -2).
    case halfDown = "half-down"
    /// Away from zero (2.1 → 3, -2.1 → -3).
    case up
    /// Toward zero: the dropped digits are cut off (2.9 → 2, -2.9 → -2).
    case down
    /// Toward positive infinity (2.1 → 3, -2.9 → -2).
    case ceiling
    /// Toward negative infinity (2.9 → 2, -2.1 → -3).
    case floor

    /// Whether the kept digits' magnitude goes up by one, given the dropped digits: the first of them, and whether
    /// any other is not zero.
    func roundsAway(isNegative: Bool, firstDropped: UInt8, moreDropped: Bool, lastKeptIsOdd: Bool) -> Bool {
        let anyDropped = firstDropped != 0 || moreDropped
        return switch self {
        case .halfEven: firstDropped > 5 || (firstDropped == 5 && (moreDropped || lastKeptIsOdd))
        case .halfUp: firstDropped >= 5
        case .halfDown: firstDropped > 5 || (firstDropped == 5 && moreDropped)
        case .up: anyDropped
        case .down: false
        case .ceiling: anyDropped && !isNegative
        case .floor: anyDropped && isNegative
        }
    }
}
