/// Where a bzip2 input's blocks and stream ends seem to be: its magic numbers, found at any bit offset as the
/// compressed bytes arrive, ahead of decoding.
///
/// What it finds is a guess until the blocks are decoded: a magic number can also occur inside compressed data.
/// After an end-of-stream magic it looks for the next stream's header where one would start; if that is there, it
/// goes on in the new stream, and otherwise goes on looking in the same one, in case the magic was not an end.
struct Bzip2Scanner {
    /// A magic number found.
    struct Mark: Equatable {
        /// Its first bit, counted from the input's start.
        var bit: Int
        /// The end-of-stream magic, not a block's.
        var isEnd: Bool
        /// The block size digit of the stream it seems to be in.
        var level: UInt8
        /// For an end: the byte where the next stream's header was found after it.
        var nextHeader: Int?
    }

    private enum Position {
        /// A stream header is expected at this byte.
        case header(Int)
        /// Looking for magic numbers from this bit on, in a stream of this block size.
        case blocks(from: Int, level: UInt8)
        /// After an end-of-stream magic (the last mark), deciding whether a stream starts after it.
        case trailer(end: Int, level: UInt8)
        /// Nothing more to find: the input ended after a stream's end, or no header is where one should be.
        case finished
    }

    private var position: Position

    /// A scanner that expects a stream header at byte `headerByte`.
    init(headerAt headerByte: Int) {
        position = .header(headerByte)
    }

    /// Goes on looking for magic numbers from `bit` on, in a stream of block size `level`: the mark found there
    /// before was not where a block ends.
    mutating func restart(from bit: Int, level: UInt8) {
        position = .blocks(from: bit, level: level)
    }

    /// Whether the bytes at `byte` of `window` (which starts at input byte `windowStart`) start a stream header;
    /// `nil` when too few have arrived to tell. Returns the header's block size digit.
    static func header(in window: UnsafeRawBufferPointer, at byte: Int, windowStart: Int) -> UInt8?? {
        let index = byte - windowStart
        guard window.count - index >= 4 else { return nil }
        guard window[index] == 0x42, window[index + 1] == 0x5A, window[index + 2] == 0x68,
              (0x31...0x39).contains(window[index + 3]) else { return .some(nil) }
        return window[index + 3] - 0x30
    }

    /// Looks through what `window` (input bytes from `windowStart` on) holds beyond what was looked at, appending
    /// the magic numbers found to `marks`. `inputEnded` says that no bytes will follow the window's.
    mutating func scan(_ window: UnsafeRawBufferPointer, windowStart: Int, inputEnded: Bool, into marks: inout [Mark]) {
        while true {
            switch position {
            case .finished:
                return
            case .header(let byte):
                guard let found = Self.header(in: window, at: byte, windowStart: windowStart) else { return }
                guard let level = found else {
                    position = .finished
                    return
                }
                position = .blocks(from: (byte + 4) * 8, level: level)
            case .trailer(let end, let level):
                let next = (end + 80 + 7) / 8
                if inputEnded && windowStart + window.count == next {
                    position = .finished
                    return
                }
                switch Self.header(in: window, at: next, windowStart: windowStart) {
                case nil where !inputEnded:
                    return
                case .some(.some):
                    if let last = marks.indices.last, marks[last].isEnd { marks[last].nextHeader = next }
                    position = .header(next)
                default:
                    // Not followed by a stream: the magic may have been data, or something else follows the stream.
                    position = .blocks(from: end + 1, level: level)
                }
            case .blocks(let from, let level):
                let windowBits = window.count * 8
                var bit = from - windowStart * 8
                guard let mark = Self.firstMagic(in: window, from: &bit, through: windowBits - 48) else {
                    position = .blocks(from: windowStart * 8 + bit, level: level)
                    return
                }
                marks.append(Mark(bit: windowStart * 8 + mark.bit, isEnd: mark.isEnd, level: level))
                position = mark.isEnd ? .trailer(end: windowStart * 8 + mark.bit, level: level) : .blocks(from: windowStart * 8 + mark.bit + 1, level: level)
            }
        }
    }

    /// For each byte value, the magic numbers whose first whole byte it can be: bit `t` for a block magic that starts
    /// `t` bits before the byte, bit `8 + t` for an end-of-stream magic.
    private static let firstWholeByte: [UInt16] = {
        var table = [UInt16](repeating: 0, count: 256)
        for lead in 0..<8 {
            table[Int((Bzip2Block.blockMagic >> UInt64(40 - lead)) & 0xFF)] |= 1 << UInt16(lead)
            table[Int((Bzip2Block.endMagic >> UInt64(40 - lead)) & 0xFF)] |= 1 << UInt16(8 + lead)
        }
        return table
    }()

    /// The first magic number starting at a bit from `bit` through `last` of `bytes`; `bit` is left where looking
    /// stopped (after `last` when none was found).
    private static func firstMagic(in bytes: UnsafeRawBufferPointer, from bit: inout Int, through last: Int) -> (bit: Int, isEnd: Bool)? {
        guard bit <= last else { return nil }
        return firstWholeByte.withUnsafeBufferPointer { table in
            // Every start from `bit` on has its first whole byte at or after `bit / 8`, in ascending order of start
            // within a byte's candidates when the lead (bits before that byte) descends.
            let end = min((last + 7) >> 3 + 1, bytes.count)
            var index = bit >> 3
            while index < end {
                let candidates = table[Int(bytes[index])]
                if candidates != 0 {
                    for lead in stride(from: 7, through: 0, by: -1) where candidates & (0x101 << UInt16(lead)) != 0 {
                        let start = index * 8 - lead
                        guard start >= bit && start <= last else { continue }
                        let word = Bzip2Block.bits(bytes, at: start, count: 48)
                        if word == Bzip2Block.blockMagic || word == Bzip2Block.endMagic {
                            bit = start + 1
                            return (start, word == Bzip2Block.endMagic)
                        }
                    }
                }
                index += 1
            }
            bit = last + 1
            return nil
        }
    }
}
