/// A unit decoded whole ahead of its turn (a bzip2 block, a gzip member), handed out piece by piece as the reader's
/// buffers take it.
struct DecodedUnit {
    private var bytes: [UInt8] = []
    private var handedOut = 0
    /// Where the unit ends in the compressed input.
    private var end = 0

    /// Whether all of it has been handed out.
    var isHandedOut: Bool { handedOut == bytes.count }

    /// Starts handing out `bytes`, a unit that ends at compressed byte `end`.
    mutating func start(_ bytes: [UInt8], endingAt end: Int) {
        self.bytes = bytes
        handedOut = 0
        self.end = end
    }

    /// Copies the next of its bytes into `output`; the piece that takes the last of them ends the unit, at its end.
    mutating func handOut(into output: UnsafeMutableRawBufferPointer) -> DecodeStep {
        let count = min(output.count, bytes.count - handedOut)
        bytes.withUnsafeBytes { bytes in
            if let base = output.baseAddress, let from = bytes.baseAddress, count > 0 { base.copyMemory(from: from + handedOut, byteCount: count) }
        }
        handedOut += count
        guard isHandedOut else { return DecodeStep(produced: count, outcome: .running) }
        bytes = []
        handedOut = 0
        return DecodeStep(produced: count, outcome: .unitEnded, compressedOffset: end)
    }
}
