#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Converts JSON number literals (as raw text: yajl has checked the grammar) into exact values.
enum NumberConversion {
    enum IntegerResult: Equatable {
        case value(Int64)
        /// The literal has a non-zero fractional part (`3.5`, `1e-1`).
        case fractional
        /// The literal is an integer outside the type's range.
        case outOfRange
    }

    /// The literal as an Int64, exactly: `3.0` and `1e3` are integers, `3.5` is not, nothing wraps.
    @inline(__always)
    static func int64(_ text: UnsafePointer<UInt8>, _ length: Int) -> IntegerResult {
        // Fast path: an optional minus and at most 18 digits cannot overflow.
        var position = 0
        let negative = length > 0 && text[0] == UInt8(ascii: "-")
        if negative { position = 1 }
        var magnitude: UInt64 = 0
        let digitsStart = position
        while position < length {
            let digit = text[position] &- 0x30
            if digit > 9 { break }
            magnitude = magnitude &* 10 &+ UInt64(digit)
            position += 1
        }
        if position == length && position - digitsStart <= 18 {
            return .value(negative ? -Int64(magnitude) : Int64(magnitude))
        }
        return int64Slow(text, length)
    }

    /// The general case: many digits, a fraction or an exponent. Works digit by digit so that no literal,
    /// however long, goes through a floating-point value.
    @inline(never)
    static func int64Slow(_ text: UnsafePointer<UInt8>, _ length: Int) -> IntegerResult {
        var position = 0
        let negative = length > 0 && text[0] == UInt8(ascii: "-")
        if negative { position = 1 }
        // Significant digits of the mantissa (integer and fraction parts, leading zeros dropped).
        var digits: [UInt8] = []
        var fractionDigits = 0
        var inFraction = false
        while position < length {
            let byte = text[position]
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else if byte >= 0x30 && byte <= 0x39 {
                if !(digits.isEmpty && byte == 0x30) { digits.append(byte - 0x30) }
                if inFraction { fractionDigits += 1 }
            } else {
                break
            }
            position += 1
        }
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
        if digits.isEmpty { return .value(0) }
        // value = digits × 10^scale
        let scale = exponent - fractionDigits
        var integerDigits = digits[...]
        if scale < 0 {
            let dropped = -scale
            if dropped >= digits.count { return .fractional }
            if digits.suffix(dropped).contains(where: { $0 != 0 }) { return .fractional }
            integerDigits = digits.dropLast(dropped)
        } else if scale + digits.count > 19 {
            return .outOfRange
        }
        var magnitude: UInt64 = 0
        for digit in integerDigits {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            if overflow1 || overflow2 { return .outOfRange }
            magnitude = sum
        }
        if scale > 0 {
            for _ in 0..<scale {
                let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
                if overflow { return .outOfRange }
                magnitude = times10
            }
        }
        if negative {
            if magnitude > UInt64(Int64.max) + 1 { return .outOfRange }
            return .value(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
        }
        if magnitude > UInt64(Int64.max) { return .outOfRange }
        return .value(Int64(magnitude))
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
    static func double(_ text: UnsafePointer<UInt8>, _ length: Int) -> Double? {
        // Clinger's fast path: up to 15 significant digits and a power of ten up to 22 are both exact in a Double,
        // so one multiplication or division rounds correctly.
        var position = 0
        let negative = length > 0 && text[0] == UInt8(ascii: "-")
        if negative { position = 1 }
        var mantissa: UInt64 = 0
        var digitCount = 0
        var fractionDigits = 0
        var inFraction = false
        while position < length {
            let byte = text[position]
            let digit = byte &- 0x30
            if digit <= 9 {
                mantissa = mantissa &* 10 &+ UInt64(digit)
                if mantissa != 0 { digitCount += 1 }
                if inFraction { fractionDigits += 1 }
            } else if byte == UInt8(ascii: ".") {
                inFraction = true
            } else {
                break
            }
            position += 1
        }
        if position == length && digitCount <= 15 && fractionDigits <= 22 {
            let value = Double(mantissa) / exactPowerOfTen(fractionDigits)
            return negative ? -value : value
        }
        return doubleSlow(text, length)
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
