import Foundation

/// `url`: a string that is a URL reference, and for a typed `URL` property one Foundation's parser accepts too.
enum URLDecoder {
    @inline(never)
    static func decode(
        _ kind: ScalarKind, _ bytes: UnsafePointer<UInt8>?, _ length: Int, conversion: UnsafePointer<ColumnConversion>,
        into storage: UnsafeMutablePointer<ColumnStorage>, row: Int
    ) -> DecodeFailure? {
        guard let bytes, kind == .string, URLReference.isValid(bytes, length),
              !conversion.pointee.requiresFoundationURL || URL(string: String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)) != nil else {
            return .mismatch("url", narrowing: nil)
        }
        storage.pointee.writeText(bytes, count: length, row: row)
        return nil
    }
}
