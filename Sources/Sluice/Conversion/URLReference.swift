/// Checks URL references (RFC 3986 `URI-reference`, with non-ASCII UTF-8 allowed as in RFC 3987 IRIs).
///
/// A reference is valid when it is not empty; every ASCII byte is a letter, a digit, one of `-._~:/?#[]@!$&'()*+,;=`
/// or a `%` followed by two hex digits (so spaces, quotes, `<>\^`{|}` and control characters are not); it has at
/// most one `#`; if it has a scheme (text before the first `:` that holds no `/?#`), the scheme is a letter
/// followed by letters, digits, `+`, `-` or `.`; `[` and `]` appear only around an IP literal host; and a port,
/// if any, is digits.
enum URLReference {
    private static let allowed: [Bool] = {
        var table = [Bool](repeating: false, count: 128)
        for byte in Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%".utf8) {
            table[Int(byte)] = true
        }
        return table
    }()

    static func isValid(_ text: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        guard length > 0 else { return false }
        var fragments = 0
        var index = 0
        while index < length {
            let byte = text[index]
            if byte >= 0x80 {
                index += 1
                continue
            }
            guard allowed[Int(byte)] else { return false }
            if byte == UInt8(ascii: "%") {
                guard index + 2 < length, isHex(text[index + 1]), isHex(text[index + 2]) else { return false }
                index += 3
                continue
            }
            if byte == UInt8(ascii: "#") { fragments += 1 }
            index += 1
        }
        guard fragments <= 1 else { return false }
        // A scheme, if there is one.
        var afterScheme = 0
        for index in 0..<length {
            let byte = text[index]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: ":") {
                guard index > 0, isLetter(text[0]) else { return false }
                for schemeIndex in 1..<index {
                    let schemeByte = text[schemeIndex]
                    guard isLetter(schemeByte) || (schemeByte &- 0x30) <= 9 || schemeByte == UInt8(ascii: "+")
                        || schemeByte == UInt8(ascii: "-") || schemeByte == UInt8(ascii: ".") else { return false }
                }
                afterScheme = index + 1
                break
            }
        }
        // The authority, if "//" follows: brackets only around the whole host, digits only in the port.
        var authorityEnd = afterScheme
        if afterScheme + 1 < length && text[afterScheme] == UInt8(ascii: "/") && text[afterScheme + 1] == UInt8(ascii: "/") {
            let start = afterScheme + 2
            authorityEnd = start
            while authorityEnd < length, text[authorityEnd] != UInt8(ascii: "/"), text[authorityEnd] != UInt8(ascii: "?"), text[authorityEnd] != UInt8(ascii: "#") {
                authorityEnd += 1
            }
            var hostStart = start
            for index in start..<authorityEnd where text[index] == UInt8(ascii: "@") { hostStart = index + 1 }
            var portStart = authorityEnd
            if hostStart < authorityEnd && text[hostStart] == UInt8(ascii: "[") {
                var close = hostStart + 1
                while close < authorityEnd && text[close] != UInt8(ascii: "]") { close += 1 }
                guard close < authorityEnd, close > hostStart + 1 else { return false }
                for index in (hostStart + 1)..<close {
                    let byte = text[index]
                    guard isHex(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".") || (byte | 0x20) == UInt8(ascii: "v") else { return false }
                }
                guard close + 1 == authorityEnd || text[close + 1] == UInt8(ascii: ":") else { return false }
                portStart = close + 1 < authorityEnd ? close + 2 : authorityEnd
            } else {
                for index in hostStart..<authorityEnd {
                    if text[index] == UInt8(ascii: "[") || text[index] == UInt8(ascii: "]") { return false }
                    if text[index] == UInt8(ascii: ":") && portStart == authorityEnd { portStart = index + 1 }
                }
            }
            for index in portStart..<authorityEnd where text[index] &- 0x30 > 9 { return false }
        }
        for index in authorityEnd..<length where text[index] == UInt8(ascii: "[") || text[index] == UInt8(ascii: "]") { return false }
        for index in 0..<afterScheme where text[index] == UInt8(ascii: "[") || text[index] == UInt8(ascii: "]") { return false }
        return true
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (byte &- 0x30) <= 9 || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "f"))
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }
}
