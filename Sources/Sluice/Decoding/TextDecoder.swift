/// `string`: a JSON string's unescaped text, or a number's literal text as it stands (`0.1` stays `"0.1"`).
enum TextDecoder {
    @inline(__always)
    static func decode(_ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, into storage: UnsafeMutablePointer<ColumnStorage>, row: Int) -> DecodeFailure? {
        guard let bytes, kind == .string || kind == .number else { return .mismatch("string") }
        storage.pointee.writeText(bytes, count: length, row: row)
        return nil
    }
}
