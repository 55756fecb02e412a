import CLzma

/// Decompresses xz streams with liblzma, one after another, with the stream padding (NUL bytes, a multiple of four)
/// xz allows between and after them. Each block is checked against the check its stream names (CRC-32, CRC-64,
/// SHA-256, or none when written with `--check=none`) as it ends; a stream ends once its index and footer are
/// verified too. A stream written in several blocks with their sizes in their headers (`xz -T`, `pixz`) is decoded
/// on `threads` threads at once, one block each, in order; a stream of one block (plain `xz`) on one.
final class XzDecoder: StreamDecoder {
    static let unit = "stream"
    static let format = "xz"
    private let stream: UnsafeMutablePointer<lzma_stream>
    /// The most memory the decoder may use, its dictionary foremost, on all its threads.
    private let maximumMemory: Int
    /// The most memory the decoder may use to decode blocks on several threads (each thread holds its block's
    /// whole output, 24 MiB for `xz -T -6`, and a dictionary); past it, liblzma decodes on fewer threads.
    private let threadingMemory: Int
    private let threads: Int
    /// A stream has begun and not yet ended.
    private var isInStream = false
    /// NUL bytes of stream padding since the last stream ended.
    private var paddingLength = 0
    var isBetweenUnits: Bool { !isInStream && paddingLength % 4 == 0 }

    /// The part of a run's memory budget that decoding xz blocks on several threads takes: five eighths, at most
    /// `maximumMemory`, and never so much that less than the 1 MiB a budget must be is left. Two threads on
    /// `xz -T -6` blocks need about 80 MiB, five eighths of the default budget; with the pipeline's chunks and batches
    /// and the process itself, a run then stays under the budget (docs/benchmarks.md).
    static func threadingMemory(within budget: Int, maximumMemory: Int) -> Int {
        max(min(maximumMemory, budget / 8 * 5, budget - (1 << 20)), 0)
    }

    /// - Parameters:
    ///   - maximumMemory: The most memory the decoder may use: a file whose dictionary needs more ends the run with
    ///     an error saying how much it needs.
    ///   - threadingMemory: The most memory for decoding on several threads (`maximumMemory` when `nil`): blocks are
    ///     decoded on fewer threads when more would need more.
    ///   - threads: How many blocks may be decoded at once.
    init(maximumMemory: Int, threadingMemory: Int? = nil, threads: Int = 1) {
        self.maximumMemory = maximumMemory
        self.threadingMemory = threadingMemory ?? maximumMemory
        self.threads = max(threads, 1)
        stream = .allocate(capacity: 1)
        // All zeros is LZMA_STREAM_INIT.
        stream.initialize(to: lzma_stream())
    }

    deinit {
        lzma_end(stream)
        stream.deallocate()
    }

    func decode(_ input: inout UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, inputEnded: Bool) -> DecodeStep {
        if !isInStream {
            let zeros = input.prefix { $0 == 0 }.count
            paddingLength += zeros
            input = UnsafeRawBufferPointer(rebasing: input[zeros...])
            if input.isEmpty && !(inputEnded && paddingLength % 4 != 0) { return DecodeStep(produced: 0, outcome: .running) }
            guard paddingLength % 4 == 0 else {
                return DecodeStep(produced: 0, outcome: .failed("corrupt xz data: \(paddingLength) bytes of stream padding, not a multiple of four"))
            }
            // Each stream gets a decoder of its own; the padding is skipped here,
            // so that a stream's end is seen as such.
            // On one thread the direct decoder: the threaded one would hold a whole block's output (24 MiB for
            // `xz -T -6`) to no gain.
            var options = lzma_mt()
            options.threads = UInt32(threads)
            options.memlimit_threading = UInt64(max(min(threadingMemory, maximumMemory), 1))
            options.memlimit_stop = UInt64(max(maximumMemory, 1))
            // No timeout: a call returns once its output is full or its input used, as the one-thread decoder's.
            options.timeout = 0
            let status = threads == 1
                ? lzma_stream_decoder(stream, UInt64(max(maximumMemory, 1)), 0)
                : lzma_stream_decoder_mt(stream, &options)
            guard status == LZMA_OK else {
                return DecodeStep(produced: 0, outcome: .failed("cannot start xz decompression (liblzma status \(status.rawValue))"))
            }
            paddingLength = 0
            isInStream = true
        }
        stream.pointee.next_in = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_in = input.count
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = output.count
        // Once the input has ended, liblzma is told so: only then can it tell a last stream from a cut one.
        let status = lzma_code(stream, inputEnded ? LZMA_FINISH : LZMA_RUN)
        input = UnsafeRawBufferPointer(rebasing: input[(input.count - stream.pointee.avail_in)...])
        let produced = output.count - stream.pointee.avail_out
        switch status {
        case LZMA_STREAM_END:
            isInStream = false
            return DecodeStep(produced: produced, outcome: .unitEnded)
        case LZMA_OK:
            return DecodeStep(produced: produced, outcome: .running)
        default:
            return DecodeStep(produced: produced, outcome: .failed(describe(status)))
        }
    }

    private func describe(_ status: lzma_ret) -> String {
        switch status {
        case LZMA_BUF_ERROR:
            "truncated xz data: the input ends inside compressed data"
        case LZMA_MEMLIMIT_ERROR:
            // The threaded decoder reports the memory it uses, not what the block needs: only the direct one's figure
            // is the need.
            "this xz data needs \(threads == 1 ? Compression.describe(memory: Int(lzma_memusage(stream))) : "more") of memory to decompress (its dictionary), more than the \(Compression.describe(memory: maximumMemory)) allowed; "
                + "raise ReaderOptions.maximumDecompressionWindow (sluice map --max-window MiB)"
        case LZMA_FORMAT_ERROR:
            "corrupt xz data: not an xz stream where one should start"
        case LZMA_DATA_ERROR:
            "corrupt xz data: a block fails its check, or is malformed"
        case LZMA_OPTIONS_ERROR:
            "corrupt xz data: it names options liblzma does not support"
        case LZMA_MEM_ERROR:
            "not enough memory to decompress xz data"
        default:
            "corrupt xz data (liblzma status \(status.rawValue))"
        }
    }
}
