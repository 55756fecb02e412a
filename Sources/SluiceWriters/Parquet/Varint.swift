import Sluice

/// Unsigned LEB128, the variable-length integers of Thrift's compact protocol and of the RLE / bit-packing hybrid's
/// run headers: seven bits a byte, least significant first, the high bit set on every byte but the last.
enum Varint {
    static func append(_ value: UInt64, to output: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            output.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        output.append(UInt8(rest))
    }
}
