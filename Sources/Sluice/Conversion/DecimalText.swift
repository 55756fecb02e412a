import Foundation

/// Exact decimals from a number's literal text: digits go into `Decimal`'s 38-digit significand as they are,
/// never through a `Double`, so `0.1` is one tenth and `190957570511478800.25` keeps every digit.
enum DecimalText {
    /// The most significant digits a `Decimal` holds exactly.
    static let maximumDigits = DecimalFormat.maximumPrecision

    /// The decimal a number literal (or numeric string in JSON number syntax, with an optional `+`) stands for;
    /// nil for other text, for more than 38 significant digits, and for exponents beyond `Decimal`'s range.
    static func decimal(_ text: UnsafeBufferPointer<UInt8>) -> Decimal? {
        guard let base = text.baseAddress, let literal = DecimalLiteral(base, text.count) else { return nil }
        guard literal.digitCount > 0 else { return Decimal.zero }
        guard literal.digitCount <= maximumDigits else { return nil }
        var significand = Decimal.zero
        for index in 0..<literal.digitCount { significand = significand * 10 + Decimal(Int(literal.digit(index))) }
        // Decimal's exponent is an Int8; a significand of fewer digits leaves room to move it into range exactly.
        var exponent = literal.exponent
        var padded = significand
        while exponent > Int(Int8.max), literal.digitCount + (literal.exponent - exponent) < maximumDigits {
            padded *= 10
            exponent -= 1
        }
        guard exponent >= Int(Int8.min), exponent <= Int(Int8.max) else { return nil }
        return Decimal(sign: literal.isNegative ? .minus : .plus, exponent: exponent, significand: padded)
    }
}
