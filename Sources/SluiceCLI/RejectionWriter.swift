import Sluice
/// Writes rejections as NDJSON: source, location, failures and raw text.
enum RejectionWriter {
    static func write(_ rejection: Rejection, source: String, to output: FileOutput) throws(SluiceError) {
        var line = "{\"source\":\(quoted(source)),\"ordinal\":\(rejection.location.ordinal),\"line\":\(rejection.location.line),"
        line += "\"byte_offset\":\(rejection.location.byteOffset),\"failures\":["
        line += rejection.failures.map { failure in
            var item = "{\"path\":\(quoted(failure.keyPath)),\"kind\":\(quoted(failure.kind.rawValue)),"
            item += "\"expected\":\(quoted(failure.expected)),\"found\":\(quoted(failure.found))"
            if let offset = failure.byteOffset { item += ",\"at_byte\":\(offset)" }
            return item + "}"
        }.joined(separator: ",")
        line += "],\"raw\":\(quoted(String(decoding: rejection.rawText, as: UTF8.self)))"
        if rejection.isRawTextTruncated { line += ",\"raw_truncated\":true" }
        try output.write(line + "}\n")
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
