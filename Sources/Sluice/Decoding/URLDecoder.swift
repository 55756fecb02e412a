import Foundation

/// `url`: a string that is a URL reference, and for a typed `URL` property one Foundation's parser accepts too.
enum URLDecoder {
    @inline(never)
    static func decode(_ value: ScalarValue, conversion: UnsafePointer<ColumnConversion>, into slot: ColumnSlot) -> DecodeFailure? {
        guard let (base, count) = value.text, value.kind == .string, URLReference.isValid(base, count),
              !conversion.pointee.requiresFoundationURL || URL(string: String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)) != nil else {
            return .mismatch("url", narrowing: nil)
        }
        slot.storage.pointee.writeText(base, count: count, row: slot.row)
        return nil
    }
}
