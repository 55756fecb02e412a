/// Equality of short byte strings (keys, enum names) without a call.
enum ShortBytes {
    /// Compares eight bytes at a time, then four, two and one: keys are short, and a call to `memcmp` or a byte
    /// loop costs more than the comparison. Never reads past `length`.
    @inline(__always)
    static func equal(_ left: UnsafeRawPointer, _ right: UnsafeRawPointer, _ length: Int) -> Bool {
        var position = 0
        while position &+ 8 <= length {
            if left.loadUnaligned(fromByteOffset: position, as: UInt64.self) != right.loadUnaligned(fromByteOffset: position, as: UInt64.self) {
                return false
            }
            position &+= 8
        }
        let rest = length &- position
        if rest & 4 != 0 {
            if left.loadUnaligned(fromByteOffset: position, as: UInt32.self) != right.loadUnaligned(fromByteOffset: position, as: UInt32.self) {
                return false
            }
            position &+= 4
        }
        if rest & 2 != 0 {
            if left.loadUnaligned(fromByteOffset: position, as: UInt16.self) != right.loadUnaligned(fromByteOffset: position, as: UInt16.self) {
                return false
            }
            position &+= 2
        }
        if rest & 1 != 0 {
            return left.load(fromByteOffset: position, as: UInt8.self) == right.load(fromByteOffset: position, as: UInt8.self)
        }
        return true
    }
}
