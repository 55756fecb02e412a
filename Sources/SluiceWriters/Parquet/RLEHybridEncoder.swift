import Sluice

/// Parquet's RLE / bit-packing hybrid, the encoding of definition and repetition levels and of dictionary indices:
/// a run of eight or more equal values is one run-length header and the value; anything else is bit-packed in
/// groups of eight, least significant bit first.
enum RLEHybridEncoder {
    /// The fewest bits that hold every value up to `maximum`.
    static func bitWidth(of maximum: Int) -> Int {
        maximum == 0 ? 0 : Int.bitWidth - maximum.leadingZeroBitCount
    }

    /// Appends `values` encoded with `bitWidth` bits each to `output`.
    static func encode<Value: FixedWidthInteger>(_ values: UnsafeBufferPointer<Value>, bitWidth: Int, to output: inout [UInt8]) {
        let count = values.count
        var literalStart = 0
        var index = 0
        while index < count {
            let value = values[index]
            var runEnd = index + 1
            while runEnd < count && values[runEnd] == value { runEnd += 1 }
            let runLength = runEnd - index
            guard runLength >= 8 else {
                index = runEnd
                continue
            }
            // A bit-packed run holds a multiple of eight values: the run gives the literals what they lack.
            let misalignment = (index - literalStart) & 7
            let runStart = misalignment == 0 ? index : index + 8 - misalignment
            if runEnd - runStart < 8 {
                index = runEnd
                continue
            }
            appendBitPacked(values, literalStart..<runStart, bitWidth: bitWidth, to: &output)
            Varint.append(UInt64(runEnd - runStart) << 1, to: &output)
            var rest = UInt64(value)
            for _ in 0..<(bitWidth + 7) / 8 {
                output.append(UInt8(truncatingIfNeeded: rest))
                rest >>= 8
            }
            index = runEnd
            literalStart = runEnd
        }
        appendBitPacked(values, literalStart..<count, bitWidth: bitWidth, to: &output)
    }

    /// Bit-packs `range` (a multiple of eight values, or the last values, padded with zeros).
    private static func appendBitPacked<Value: FixedWidthInteger>(_ values: UnsafeBufferPointer<Value>, _ range: Range<Int>, bitWidth: Int, to output: inout [UInt8]) {
        guard !range.isEmpty else { return }
        let groups = (range.count + 7) / 8
        Varint.append(UInt64(groups) << 1 | 1, to: &output)
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: groups * bitWidth))
        guard bitWidth > 0 else { return }
        output.withUnsafeMutableBufferPointer { buffer in
            var bit = 0
            for index in range {
                var value = UInt64(values[index])
                var remaining = bitWidth
                while remaining > 0 {
                    let byte = start + bit >> 3
                    let offset = bit & 7
                    let taken = min(8 - offset, remaining)
                    buffer[byte] |= UInt8(truncatingIfNeeded: (value & ((1 << taken) - 1)) << offset)
                    value >>= taken
                    remaining -= taken
                    bit += taken
                }
            }
        }
    }
}
