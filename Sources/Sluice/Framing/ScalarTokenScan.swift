/// Follows a number or literal (`true`, `false`, `null`) byte by byte as yajl's lexer reads it, so that the array
/// framer ends a bare element exactly where yajl ends its token. Without it, `01` or `truefalse` would reach a
/// worker as one element and be read there as two values (`0` and `1`), where one reader of the whole array sees a
/// second value after an element and stops.
struct ScalarTokenScan {
    private enum State {
        /// After `-`: a digit must follow.
        case minus
        /// A leading `0`: complete; no digit may follow it in the same token.
        case zero
        /// Integer digits: complete.
        case integer
        /// After `.`: a digit must follow.
        case dot
        /// Fraction digits: complete.
        case fraction
        /// After `e` or `E`: a sign or digit must follow.
        case exponentMark
        /// After the exponent's sign: a digit must follow.
        case exponentSign
        /// Exponent digits: complete.
        case exponent
        /// Inside a literal, `matched` bytes of it read.
        case literal(StaticString, matched: Int)
        /// A whole literal: complete.
        case literalDone
    }

    /// What a byte does to the token.
    enum Step {
        /// The byte belongs to the token.
        case continues
        /// The token was complete before this byte, which starts whatever comes next.
        case ended
        /// The token is incomplete and this byte cannot continue it: yajl reports a lexical error here.
        case malformed
    }

    private var state = State.integer

    /// Starts a token at its first byte, which ``RecordFramer/startsValue(_:)`` accepted and is not a string or
    /// container opener.
    mutating func start(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "-"): state = .minus
        case UInt8(ascii: "0"): state = .zero
        case UInt8(ascii: "t"): state = .literal("true", matched: 1)
        case UInt8(ascii: "f"): state = .literal("false", matched: 1)
        case UInt8(ascii: "n"): state = .literal("null", matched: 1)
        default: state = .integer
        }
    }

    /// Whether the bytes read so far form a whole token (the input may end here).
    var isComplete: Bool {
        switch state {
        case .zero, .integer, .fraction, .exponent, .literalDone: true
        default: false
        }
    }

    mutating func step(_ byte: UInt8) -> Step {
        let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        switch state {
        case .minus:
            guard isDigit else { return .malformed }
            state = byte == UInt8(ascii: "0") ? .zero : .integer
        case .zero, .integer:
            if isDigit, case .integer = state { return .continues }
            if byte == UInt8(ascii: ".") { state = .dot } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { state = .exponentMark } else { return .ended }
        case .dot:
            guard isDigit else { return .malformed }
            state = .fraction
        case .fraction:
            if isDigit { return .continues }
            guard byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") else { return .ended }
            state = .exponentMark
        case .exponentMark:
            if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") { state = .exponentSign } else if isDigit { state = .exponent } else { return .malformed }
        case .exponentSign:
            guard isDigit else { return .malformed }
            state = .exponent
        case .exponent:
            return isDigit ? .continues : .ended
        case .literal(let text, let matched):
            guard byte == text.utf8Start[matched] else { return .malformed }
            state = matched + 1 == text.utf8CodeUnitCount ? .literalDone : .literal(text, matched: matched + 1)
        case .literalDone:
            return .ended
        }
        return .continues
    }
}
