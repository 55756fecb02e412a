/// `bytes`: base64 text in either alphabet, stored decoded.
enum BytesDecoder {
    @inline(never)
    static func decode(_ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, into storage: UnsafeMutablePointer<ColumnStorage>, row: Int) -> DecodeFailure? {
        guard let bytes, kind == .string, Base64.isValid(bytes, length) else { return .mismatch("bytes (base64)", narrowing: nil) }
        storage.pointee.beginText(row: row)
        Base64.decode(bytes, length) { storage.pointee.appendText(byte: $0) }
        storage.pointee.endText(row: row)
        return nil
    }
}
