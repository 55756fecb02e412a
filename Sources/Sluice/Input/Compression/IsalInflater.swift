#if FastGzip
import CIsal

/// Inflates gzip members with Intel's ISA-L (`isal_inflate`), one after another. Sluice reads each member's header
/// (``GzipHeader``); ISA-L inflates the data and ends the member only once its trailer's CRC-32 and length matched.
final class IsalInflater: StreamDecoder {
    static let unit = "member"
    static let format = "gzip"
    /// ISA-L's state holds its Huffman tables and a 64 KiB window: one allocation for the whole input.
    private let state: UnsafeMutablePointer<inflate_state>
    /// The header of the member begun, until it is whole.
    private var header: GzipHeader?
    /// The last member ended and the next has not started.
    private(set) var isBetweenUnits = true

    init() {
        state = .allocate(capacity: 1)
        isal_inflate_init(state)
    }

    deinit {
        state.deallocate()
    }

    func decode(_ input: inout UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, inputEnded: Bool) -> DecodeStep {
        if isBetweenUnits && !input.isEmpty {
            header = GzipHeader()
            isBetweenUnits = false
        }
        if header != nil {
            switch header?.add(input) {
            case .complete(let dataStart)?:
                input = UnsafeRawBufferPointer(rebasing: input[dataStart...])
                header = nil
                isal_inflate_reset(state)
                // The deflate data, then the trailer, checked.
                state.pointee.crc_flag = UInt32(ISAL_GZIP_NO_HDR_VER)
            case .invalid(let message)?:
                return DecodeStep(produced: 0, outcome: .failed("corrupt gzip data: " + message))
            case .needsMore?, nil:
                input = UnsafeRawBufferPointer(rebasing: input[input.count...])
                return DecodeStep(produced: 0, outcome: .running)
            }
        }
        let call = ThirtyTwoBitCall(input, output)
        state.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        state.pointee.avail_in = call.inputCount
        state.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        state.pointee.avail_out = call.room
        let status = isal_inflate(state)
        let produced = call.advance(&input, inputLeft: state.pointee.avail_in, roomLeft: state.pointee.avail_out)
        if status == ISAL_INCORRECT_CHECKSUM {
            return DecodeStep(produced: produced, outcome: .failed(GzipInflater.trailerMismatch))
        }
        if status < 0 {
            return DecodeStep(produced: produced, outcome: .failed("corrupt gzip data: " + Self.describe(status)))
        }
        guard state.pointee.block_state == ISAL_BLOCK_FINISH else { return DecodeStep(produced: produced, outcome: .running) }
        isBetweenUnits = true
        return DecodeStep(produced: produced, outcome: .unitEnded)
    }

    private static func describe(_ status: Int32) -> String {
        switch status {
        case ISAL_INVALID_BLOCK: "invalid deflate block"
        case ISAL_INVALID_SYMBOL: "invalid deflate symbol"
        case ISAL_INVALID_LOOKBACK: "invalid back-reference distance"
        case ISAL_NEED_DICT: "the data needs a preset dictionary"
        default: "ISA-L status \(status)"
        }
    }
}
#endif
