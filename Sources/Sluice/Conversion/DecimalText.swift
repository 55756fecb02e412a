import Foundation

/// Exact decimals from a number's literal text: digits go into `Decimal`'s 38-digit significand as they are,
/// never through a `Double`, so `0.1` is one tenth and `190957570511478800.25` keeps every digit.
enum DecimalText {
    /// The most significant digits a `Decimal` holds exactly.
    static let maximumDigits = 38

    /// The decimal a number literal (or numeric string in JSON number syntax, with an optional `+`) stands for;
    /// nil for other text, for more than 38 significant digits, and for exponents beyond `Decimal`'s range.
    static func decimal(_ text: UnsafeBufferPointer<UInt8>) -> Decimal? {
        guard let base = text.baseAddress, NumberConversion.isNumberText(base, text.count) else { return nil }
        var position = 0
        var isNegative = false
        if text[position] == UInt8(ascii: "-") || text[position] == UInt8(ascii: "+") {
            isNegative = text[position] == UInt8(ascii: "-")
            position += 1
        }
        // The significand's digits without leading zeros, and the power of ten they are scaled by.
        var digits: [UInt8] = []
        var scale = 0
        while position < text.count, text[position] &- 0x30 <= 9 {
            if !(digits.isEmpty && text[position] == 0x30) { digits.append(text[position]) }
            position += 1
        }
        if position < text.count, text[position] == UInt8(ascii: ".") {
            position += 1
            while position < text.count, text[position] &- 0x30 <= 9 {
                if !(digits.isEmpty && text[position] == 0x30) { digits.append(text[position]) }
                scale -= 1
                position += 1
            }
        }
        if position < text.count {
            // An exponent: `isNumberText` has checked its form. Beyond Int's range it overflows Decimal anyway.
            position += 1
            var exponentIsNegative = false
            if text[position] == UInt8(ascii: "-") || text[position] == UInt8(ascii: "+") {
                exponentIsNegative = text[position] == UInt8(ascii: "-")
                position += 1
            }
            // Past a million the exponent stops growing: no significand of 38 digits brings it back into range.
            var exponent = 0
            while position < text.count {
                exponent = min(exponent * 10 + Int(text[position] &- 0x30), 1_000_000)
                position += 1
            }
            scale += exponentIsNegative ? -exponent : exponent
        }
        while digits.last == 0x30 {
            digits.removeLast()
            scale += 1
        }
        guard !digits.isEmpty else { return Decimal.zero }
        guard digits.count <= maximumDigits, let significand = Decimal(string: String(decoding: digits, as: UTF8.self)) else { return nil }
        // Decimal's exponent is an Int8; a significand of fewer digits leaves room to move it into range exactly.
        var exponent = scale
        var padded = significand
        while exponent > Int(Int8.max), digits.count + (scale - exponent) < maximumDigits {
            padded *= 10
            exponent -= 1
        }
        guard exponent >= Int(Int8.min), exponent <= Int(Int8.max) else { return nil }
        return Decimal(sign: isNegative ? .minus : .plus, exponent: exponent, significand: padded)
    }
}
