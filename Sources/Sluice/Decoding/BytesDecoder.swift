/// `bytes`: base64 text in either alphabet, stored decoded.
enum BytesDecoder {
    @inline(never)
    static func decode(_ value: ScalarValue, into slot: ColumnSlot) -> DecodeFailure? {
        guard let (base, count) = value.text, value.kind == .string, Base64.isValid(base, count) else { return .mismatch("bytes (base64)", narrowing: nil) }
        let storage = slot.storage
        storage.pointee.beginText(row: slot.row)
        Base64.decode(base, count) { storage.pointee.appendText(byte: $0) }
        storage.pointee.endText(row: slot.row)
        return nil
    }
}
