#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Converts JSON number literals (as raw text: yajl has checked the grammar) into exact values.
package enum NumberConversion {
    package enum IntegerResult: Equatable {
        case value(Int64)
        /// The literal has a non-zero fractional part (`3.5`, `1e-1`).
        case fractional
        /// The literal is an integer outside the type's range.
        case outOfRange
    }

    /// The literal as an Int64, exactly: `3.0` and `1e3` are integers, `3.5` is not, nothing wraps.
    @inline(__always)
    package static func int64(_ text: UnsafePointer<UInt8>, _ length: Int) -> IntegerResult {
        signed(exactInteger(text, length))
    }

    /// An integer literal's sign and magnitude, or why it is not one.
    package enum ExactInteger: Equatable {
        case value(negative: Bool, magnitude: UInt64)
        case fractional
        case outOfRange
    }

    /// The value of a number literal (JSON grammar, or `[+-]digits`) times `10^scale`, exactly, as a sign and a
    /// 64-bit magnitude. With `truncates`, a fractional part is dropped (toward zero) instead of reported.
    @inline(__always)
    package static func exactInteger(_ text: UnsafePointer<UInt8>, _ length: Int, scale extraScale: Int = 0, truncates: Bool = false) -> ExactInteger {
        var position = 0
        var negative = false
        if position < length && (text[position] == UInt8(ascii: "-") || text[position] == UInt8(ascii: "+")) {
            negative = text[position] == UInt8(ascii: "-")
            position += 1
        }
        // Fast path, inlined into callers: plain digits, at most 19 of them (no overflow possible), scaled up by a
        // power of ten.
        if length - position <= 19 && extraScale >= 0 && extraScale <= 19 {
            var magnitude: UInt64 = 0
            var index = position
            if digitRun(text, length, from: &index, into: &magnitude) > 0 && index == length {
                if extraScale == 0 { return .value(negative: negative, magnitude: magnitude) }
                var power: UInt64 = 1
                for _ in 0..<extraScale { power &*= 10 }
                let (scaled, overflow) = magnitude.multipliedReportingOverflow(by: power)
                return overflow ? .outOfRange : .value(negative: negative, magnitude: scaled)
            }
        }
        return exactIntegerSlow(text, length, scale: extraScale, truncates: truncates, negative: negative, mantissaStart: position)
    }

    /// Reads the digits from `position` on into `mantissa` (wrapping past 19 of them: the caller counts), eight at a
    /// time while eight remain; returns how many it read.
    @inline(__always)
    static func digitRun(_ text: UnsafePointer<UInt8>, _ length: Int, from position: inout Int, into mantissa: inout UInt64) -> Int {
        let start = position
        while length - position >= 8 {
            let word = UInt64(littleEndian: UnsafeRawPointer(text + position).loadUnaligned(as: UInt64.self))
            guard let digits = eightDigits(word) else { break }
            mantissa = mantissa &* 100_000_000 &+ digits
            position += 8
        }
        while position < length {
            let digit = text[position] &- 0x30
            if digit > 9 { break }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            position += 1
        }
        return position - start
    }

    /// The value of eight ASCII digits read as one little-endian word, or nil where a byte is not a digit: digits are
    /// 0x30 to 0x39, so each byte's high nibble is 3 and adding 6 to its low nibble does not carry into it.
    @inline(__always)
    static func eightDigits(_ word: UInt64) -> UInt64? {
        let highNibbles = word & 0xF0F0_F0F0_F0F0_F0F0
        let carried = (word &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0
        guard highNibbles | (carried >> 4) == 0x3333_3333_3333_3333 else { return nil }
        // Pairs of digits, then fours, then the eight: each step multiplies the earlier (more significant) part by
        // 10^k and adds the later one.
        var value = word & 0x0F0F_0F0F_0F0F_0F0F
        value = (value &* 2561) >> 8
        value = ((value & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
        return ((value & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32
    }

    /// Fractions, exponents and long digit strings, digit by digit.
    @inline(never)
    static func exactIntegerSlow(
        _ text: UnsafePointer<UInt8>, _ length: Int, scale extraScale: Int, truncates: Bool, negative: Bool, mantissaStart: Int
    ) -> ExactInteger {
        var position = mantissaStart
        var fractionDigits = 0
        var inFraction = false
        while position < length {
            let byte = text[position]
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else if byte &- 0x30 <= 9 {
                if inFraction { fractionDigits += 1 }
            } else {
                break
            }
            position += 1
        }
        let mantissaEnd = position
        var exponent = 0
        if position < length && (text[position] | 0x20) == UInt8(ascii: "e") {
            position += 1
            var exponentNegative = false
            if position < length && (text[position] == UInt8(ascii: "-") || text[position] == UInt8(ascii: "+")) {
                exponentNegative = text[position] == UInt8(ascii: "-")
                position += 1
            }
            while position < length {
                // Saturate: any exponent beyond a few thousand already decides the outcome.
                if exponent < 100_000 { exponent = exponent * 10 + Int(text[position] &- 0x30) }
                position += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        // value = (the mantissa's digits as one integer) × 10^scale
        let scale = exponent - fractionDigits + extraScale
        var significantDigits = 0
        var seenNonZero = false
        for index in mantissaStart..<mantissaEnd where text[index] != UInt8(ascii: ".") {
            if text[index] != 0x30 { seenNonZero = true }
            if seenNonZero { significantDigits += 1 }
        }
        if significantDigits == 0 { return .value(negative: negative, magnitude: 0) }
        // The digits that land below the decimal point when scale < 0.
        let dropped = scale < 0 ? -scale : 0
        if scale > 0 && significantDigits + scale > 20 { return .outOfRange }
        var magnitude: UInt64 = 0
        var kept = significantDigits - dropped
        var anyDroppedNonZero = false
        seenNonZero = false
        for index in mantissaStart..<mantissaEnd where text[index] != UInt8(ascii: ".") {
            let digit = text[index] &- 0x30
            if digit != 0 { seenNonZero = true }
            guard seenNonZero else { continue }
            if kept > 0 {
                let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
                if overflow1 || overflow2 { return .outOfRange }
                magnitude = sum
                kept -= 1
            } else if digit != 0 {
                anyDroppedNonZero = true
            }
        }
        if anyDroppedNonZero && !truncates { return .fractional }
        if scale > 0 {
            for _ in 0..<scale {
                let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
                if overflow { return .outOfRange }
                magnitude = times10
            }
        }
        return .value(negative: negative, magnitude: magnitude)
    }

    /// An exact integer as an Int64.
    @inline(__always)
    static func signed(_ integer: ExactInteger) -> IntegerResult {
        switch integer {
        case .fractional: return .fractional
        case .outOfRange: return .outOfRange
        case .value(let negative, let magnitude):
            if negative {
                if magnitude > UInt64(Int64.max) + 1 { return .outOfRange }
                return .value(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
            }
            return magnitude > UInt64(Int64.max) ? .outOfRange : .value(Int64(magnitude))
        }
    }

    /// Whether the text is `[+-]?[0-9]+`: what a numeric string must be to become an integer.
    static func isIntegerText(_ text: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        var position = 0
        if position < length && (text[position] == UInt8(ascii: "-") || text[position] == UInt8(ascii: "+")) { position += 1 }
        guard position < length else { return false }
        while position < length {
            if text[position] &- 0x30 > 9 { return false }
            position += 1
        }
        return true
    }

    /// Whether the text is a JSON number (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`), optionally with a
    /// leading `+`: what a numeric string must be to become a double or an epoch time.
    static func isNumberText(_ text: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        var position = 0
        func digits() -> Int {
            let start = position
            while position < length && text[position] &- 0x30 <= 9 { position += 1 }
            return position - start
        }
        if position < length && (text[position] == UInt8(ascii: "-") || text[position] == UInt8(ascii: "+")) { position += 1 }
        guard position < length else { return false }
        if text[position] == 0x30 {
            position += 1
        } else if digits() == 0 {
            return false
        }
        if position < length && text[position] == UInt8(ascii: ".") {
            position += 1
            if digits() == 0 { return false }
        }
        if position < length && (text[position] | 0x20) == UInt8(ascii: "e") {
            position += 1
            if position < length && (text[position] == UInt8(ascii: "-") || text[position] == UInt8(ascii: "+")) { position += 1 }
            if digits() == 0 { return false }
        }
        return position == length
    }

    /// 10^exponent for 0...22, where every power is exact in a Double (a switch, so no global array to load).
    @inline(__always)
    private static func exactPowerOfTen(_ exponent: Int) -> Double {
        switch exponent {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }

    /// The literal as the nearest Double, or `nil` when it is beyond Double's finite range.
    @inline(__always)
    package static func double(_ text: UnsafePointer<UInt8>, _ length: Int) -> Double? {
        // Clinger's fast path: up to 15 significant digits and a power of ten up to 22 are both exact in a Double,
        // so one multiplication or division rounds correctly.
        var position = 0
        let negative = length > 0 && text[0] == UInt8(ascii: "-")
        if negative { position = 1 }
        var mantissa: UInt64 = 0
        // Leading zeros are not significant digits, nor are those just after the point of a number below one.
        while position < length && text[position] == UInt8(ascii: "0") { position += 1 }
        var digitCount = digitRun(text, length, from: &position, into: &mantissa)
        var fractionDigits = 0
        if position < length && text[position] == UInt8(ascii: ".") {
            position += 1
            if mantissa == 0 {
                let zerosStart = position
                while position < length && text[position] == UInt8(ascii: "0") { position += 1 }
                fractionDigits = position - zerosStart
            }
            let fraction = digitRun(text, length, from: &position, into: &mantissa)
            digitCount += fraction
            fractionDigits += fraction
        }
        if position == length {
            if digitCount <= 15 && fractionDigits <= 22 {
                let value = Double(mantissa) / exactPowerOfTen(fractionDigits)
                return negative ? -value : value
            }
            // 16 to 19 significant digits, as shortest round-trip printing of computed values gives: exact
            // long division instead of strtod.
            if digitCount <= 19 && fractionDigits <= 19 {
                let value = quotientRoundedToDouble(mantissa, dividedByPowerOfTen: fractionDigits)
                return negative ? -value : value
            }
        }
        return doubleSlow(text, length)
    }

    /// `numerator / 10^exponent` rounded to the nearest Double (ties to even), by long division into a 192-bit
    /// fixed-point value. Needs `numerator > 0` and `exponent <= 19` (so that `10^exponent` fits in 64 bits and
    /// the quotient has at least 64 significant bits within the 128 fraction bits computed).
    static func quotientRoundedToDouble(_ numerator: UInt64, dividedByPowerOfTen exponent: Int) -> Double {
        guard numerator != 0 else { return 0 }
        var divisor: UInt64 = 1
        for _ in 0..<exponent { divisor &*= 10 }
        // N = integer · 2^128 + fraction1 · 2^64 + fraction2, value = N / 2^128; `inexact` when a remainder is left.
        let integer = numerator / divisor
        let remainder0 = numerator % divisor
        let (fraction1, remainder1) = divisor.dividingFullWidth((high: remainder0, low: 0))
        let (fraction2, remainder2) = divisor.dividingFullWidth((high: remainder1, low: 0))
        // Word 0 is the lowest; a function rather than an array, so nothing is allocated.
        func word(_ index: Int) -> UInt64 { index == 0 ? fraction2 : index == 1 ? fraction1 : index == 2 ? integer : 0 }
        let top: Int
        if integer != 0 {
            top = 128 + 63 - integer.leadingZeroBitCount
        } else if fraction1 != 0 {
            top = 64 + 63 - fraction1.leadingZeroBitCount
        } else {
            top = 63 - fraction2.leadingZeroBitCount
        }
        // The 54 bits from the top: 53 of significand and one to round with; the rest only matter as "any set".
        let low = top - 53
        func window(from bit: Int) -> UInt64 {
            let shift = bit & 63
            var value = word(bit >> 6) >> UInt64(shift)
            if shift != 0 { value |= word((bit >> 6) + 1) << UInt64(64 - shift) }
            return value
        }
        let bits54 = low >= 0 ? window(from: low) & ((1 << 54) - 1) : (word(0) << UInt64(-low)) & ((1 << 54) - 1)
        var sticky = remainder2 != 0
        if low > 0 {
            let fullWords = low >> 6
            for index in 0..<fullWords where word(index) != 0 { sticky = true }
            let partial = low & 63
            if partial != 0 && word(fullWords) & ((1 << UInt64(partial)) - 1) != 0 { sticky = true }
        }
        var significand = bits54 >> 1
        var binaryExponent = top - 128
        if bits54 & 1 == 1 && (sticky || significand & 1 == 1) {
            significand += 1
            if significand == 1 << 53 {
                significand >>= 1
                binaryExponent += 1
            }
        }
        return Double(sign: .plus, exponentBitPattern: UInt(binaryExponent + 1023), significandBitPattern: significand & ((1 << 52) - 1))
    }

    @inline(never)
    static func doubleSlow(_ text: UnsafePointer<UInt8>, _ length: Int) -> Double? {
        // strtod needs a terminating NUL, which yajl's number text does not have.
        let value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buffer -> Double in
            guard let base = buffer.baseAddress else { return .nan }
            UnsafeMutableRawPointer(base).copyMemory(from: text, byteCount: length)
            base[length] = 0
            return strtod(base, nil)
        }
        return value.isFinite ? value : nil
    }
}
