/// The one rule for reading Booleans from text, for input values and for defaults and validator values alike.
enum BoolConversion {
    /// A Boolean from a value's text: `true`/`false` in any case and `0`/`1` for strings, integral 0 and 1 for
    /// numbers; nil for anything else.
    static func value(_ text: UnsafePointer<UInt8>, _ length: Int, isNumber: Bool) -> Bool? {
        if isNumber || NumberConversion.isIntegerText(text, length) {
            if !isNumber && (length != 1) { return nil }
            switch NumberConversion.exactInteger(text, length) {
            case .value(_, 0): return false
            case .value(false, 1): return true
            default: return nil
            }
        }
        guard length == 4 || length == 5 else { return nil }
        var lowered: UInt64 = 0
        for index in 0..<length { lowered = lowered << 8 | UInt64(text[index] | 0x20) }
        if length == 4 && lowered == 0x7472_7565 { return true }  // "true"
        if length == 5 && lowered == 0x66_616C_7365 { return false }  // "false"
        return nil
    }
}
