import Sluice
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A column chunk's null count and least and greatest values, in the order each type defines: signed for
/// int64, timestamps and decimals up to 18 digits, unsigned for uint64, numeric for doubles, false before true,
/// unsigned bytewise for byte arrays, and as big-endian two's complement for wider decimals' fixed-length bytes. Exact: byte arrays are kept whole, and left out (not truncated) past ``longestKept``.
struct ColumnStatistics {
    /// Byte-array bounds longer than this are left out of the footer rather than bloat it.
    static let longestKept = 64 << 10

    enum Order {
        case signed, unsigned, double, bytes
        /// Fixed-length big-endian two's complement: the first byte signed, the rest unsigned.
        case signedBigEndian
    }

    let order: Order
    var nullCount: Int64 = 0
    private var hasValue = false
    private var minimumWord: UInt64 = 0
    private var maximumWord: UInt64 = 0
    private var minimumBytes: [UInt8] = []
    private var maximumBytes: [UInt8] = []

    init(order: Order) {
        self.order = order
    }

    mutating func reset() {
        nullCount = 0
        hasValue = false
        minimumBytes.removeAll(keepingCapacity: true)
        maximumBytes.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    mutating func observe(_ bits: UInt64) {
        guard hasValue else {
            hasValue = true
            minimumWord = bits
            maximumWord = bits
            return
        }
        if precedes(bits, minimumWord) { minimumWord = bits }
        if precedes(maximumWord, bits) { maximumWord = bits }
    }

    @inline(__always)
    private func precedes(_ left: UInt64, _ right: UInt64) -> Bool {
        switch order {
        case .signed: Int64(bitPattern: left) < Int64(bitPattern: right)
        case .unsigned, .bytes, .signedBigEndian: left < right
        case .double: Double(bitPattern: left) < Double(bitPattern: right)
        }
    }

    mutating func observe(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard hasValue else {
            hasValue = true
            minimumBytes.append(contentsOf: bytes)
            maximumBytes.append(contentsOf: bytes)
            return
        }
        if compare(bytes, minimumBytes) < 0 {
            minimumBytes.removeAll(keepingCapacity: true)
            minimumBytes.append(contentsOf: bytes)
        } else if compare(bytes, maximumBytes) > 0 {
            maximumBytes.removeAll(keepingCapacity: true)
            maximumBytes.append(contentsOf: bytes)
        }
    }

    private func compare(_ left: UnsafeBufferPointer<UInt8>, _ right: [UInt8]) -> Int {
        if order == .signedBigEndian, let leftSign = left.first, let rightSign = right.first, leftSign & 0x80 != rightSign & 0x80 {
            return leftSign & 0x80 != 0 ? -1 : 1
        }
        let common = min(left.count, right.count)
        let order = right.withUnsafeBufferPointer { right in
            guard common > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return 0 }
            return Int(memcmp(leftBase, rightBase, common))
        }
        return order != 0 ? order : left.count - right.count
    }

    /// The statistics as the footer holds them, for a column of `type`.
    func metadata(type: ParquetMetadata.PhysicalType) -> ParquetMetadata.Statistics {
        var statistics = ParquetMetadata.Statistics(nullCount: nullCount)
        guard hasValue else { return statistics }
        switch type {
        case .byteArray, .fixedLengthByteArray:
            guard minimumBytes.count <= Self.longestKept && maximumBytes.count <= Self.longestKept else { return statistics }
            statistics.minimum = minimumBytes
            statistics.maximum = maximumBytes
        case .boolean:
            statistics.minimum = [UInt8(minimumWord)]
            statistics.maximum = [UInt8(maximumWord)]
        case .int64, .double:
            var minimum = minimumWord
            var maximum = maximumWord
            // Readers compare zeros by sign only when told: the format asks for -0 as a least zero and +0 as a
            // greatest.
            if order == .double {
                if Double(bitPattern: minimum) == 0 { minimum = (-0.0 as Double).bitPattern }
                if Double(bitPattern: maximum) == 0 { maximum = (0.0 as Double).bitPattern }
            }
            statistics.minimum = Self.littleEndian(minimum)
            statistics.maximum = Self.littleEndian(maximum)
        case .int32:
            statistics.minimum = Array(Self.littleEndian(minimumWord).prefix(4))
            statistics.maximum = Array(Self.littleEndian(maximumWord).prefix(4))
        }
        return statistics
    }

    private static func littleEndian(_ word: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: word >> ($0 * 8)) }
    }
}
