/// A number literal's exact value read in place: its sign, its significant digits (no leading or trailing zeros)
/// and the power of ten of the last of them, so that `12.50e1` is `125` × 10⁰ and `0.0010` is `1` × 10⁻³.
///
/// The one reading of number text behind both exact decimal doors: the typed API's `Decimal` and the `decimal`
/// column type. Nothing is copied: digits are read from the text by index.
struct DecimalLiteral {
    let isNegative: Bool
    /// How many significant digits there are; 0 for zero.
    let digitCount: Int
    /// The power of ten of the last significant digit.
    let exponent: Int

    private let text: UnsafePointer<UInt8>
    /// The first significant digit's index among the literal's digits (integer part, then fraction), and where
    /// the fraction's digits start among them and in the text.
    private let first: Int
    private let integerStart: Int
    private let integerCount: Int
    private let fractionStart: Int

    /// Beyond this (plus the literal's length, which bounds the zeros that can move it back) an exponent stops
    /// growing: no significand of 38 digits brings a larger one back into range.
    private static let exponentLimit = 1_000_000

    /// The literal `text` spells, in JSON number syntax with an optional `+`; nil for other text.
    init?(_ text: UnsafePointer<UInt8>, _ count: Int) {
        guard NumberConversion.isNumberText(text, count) else { return nil }
        var position = 0
        let isNegative = text[0] == UInt8(ascii: "-")
        if text[0] == UInt8(ascii: "-") || text[0] == UInt8(ascii: "+") { position = 1 }
        let integerStart = position
        while position < count, text[position] &- 0x30 <= 9 { position += 1 }
        let integerCount = position - integerStart
        var fractionStart = position
        var fractionCount = 0
        if position < count, text[position] == UInt8(ascii: ".") {
            position += 1
            fractionStart = position
            while position < count, text[position] &- 0x30 <= 9 { position += 1 }
            fractionCount = position - fractionStart
        }
        var writtenExponent = 0
        if position < count {
            // An exponent: `isNumberText` has checked its form.
            position += 1
            var isExponentNegative = false
            if text[position] == UInt8(ascii: "-") || text[position] == UInt8(ascii: "+") {
                isExponentNegative = text[position] == UInt8(ascii: "-")
                position += 1
            }
            let limit = Self.exponentLimit + count
            while position < count {
                writtenExponent = min(writtenExponent * 10 + Int(text[position] &- 0x30), limit)
                position += 1
            }
            if isExponentNegative { writtenExponent = -writtenExponent }
        }
        let allCount = integerCount + fractionCount
        func digitAt(_ index: Int) -> UInt8 {
            text[index < integerCount ? integerStart + index : fractionStart + index - integerCount] &- 0x30
        }
        var first = 0
        while first < allCount, digitAt(first) == 0 { first += 1 }
        var end = allCount
        while end > first, digitAt(end - 1) == 0 { end -= 1 }
        self.text = text
        self.isNegative = isNegative
        self.integerStart = integerStart
        self.integerCount = integerCount
        self.fractionStart = fractionStart
        self.first = first
        digitCount = end - first
        exponent = end == first ? 0 : writtenExponent - fractionCount + (allCount - end)
    }

    /// The significant digit at `index` (0 the most significant), as a number 0 to 9.
    @inline(__always)
    func digit(_ index: Int) -> UInt8 {
        let position = first + index
        return text[position < integerCount ? integerStart + position : fractionStart + position - integerCount] &- 0x30
    }
}
