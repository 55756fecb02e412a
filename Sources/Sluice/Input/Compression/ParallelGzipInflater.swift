import Foundation

/// Inflates a gzip input of many members on several threads at once: what `bgzip` writes (members of up to 64 KiB,
/// each giving its length in its header: BGZF), and files joined from separately compressed pieces.
///
/// Where a member ends is known before it is inflated: from its BGZF header, or guessed at the next bytes that read
/// as a gzip header (`1F 8B 08`, no reserved flags), which compressed data may also hold. Members are inflated whole
/// on the pool's threads, each from its start to its guessed end, into the length its trailer gives. A member counts
/// only when it starts where the one before it ended and inflates to exactly its guessed end with its CRC-32 and
/// length matched, so each confirms where the next one starts. A member too large to hold, or whose try failed (a
/// guess that was compressed data, or damage), is inflated as it streams, on the reading thread, by `Streaming`, as
/// on one thread: the bytes before damage are delivered and the error names it; only how far the library read into
/// damaged data before it noticed may differ, as it may between two ways of cutting the input into reads.
///
/// It reads ahead, so it is only for input whose reads do not wait (a file): on a pipe, a member would be held until
/// the next one's header arrived.
final class ParallelGzipInflater<Streaming: StreamDecoder & SendableMetatype>: StreamDecoder {
    static var unit: String { Streaming.unit }
    static var format: String { Streaming.format }

    /// Makes the inflater of one member: the streaming one, and one for each member inflated on the pool's threads.
    typealias Make = @Sendable () throws(SluiceError) -> Streaming
    /// What inflating a member ahead gave.
    enum Inflated: Sendable {
        /// Its bytes: it inflated to exactly its guessed end with its checks passed.
        case bytes([UInt8])
        /// It did not: the guess was wrong, or the member is damaged.
        case failed
    }

    /// The smallest member: a 10-byte header, 2 bytes of deflate data (an empty block) and the 8-byte trailer.
    private static var smallestMember: Int { 20 }
    /// Members inflated or being inflated ahead of the one handed out next, at most.
    private static var mostJobs: Int { 64 }

    private let make: Make
    private let streaming: Streaming
    private let pool: DecodingPool<Inflated>
    /// Compressed bytes read ahead of where the next member starts, at most.
    private let readAhead: Int
    /// Decompressed bytes of the members inflated ahead, at most.
    private let decodedAhead: Int
    /// The largest member, compressed or not, that is inflated on the pool's threads.
    private let largestMember: Int

    /// The compressed bytes from input byte `windowStart` on.
    private var window: [UInt8] = []
    private var windowStart: Int
    private var inputEnded = false
    /// Where the next member starts; while one streams, how far the streaming inflater has read.
    private var position: Int
    /// A member is being inflated by the streaming inflater.
    private var isStreaming = false
    /// Where bytes that read as a gzip header start, from `position` on, ascending.
    private var marks: [Int] = []
    /// How far the window has been looked through for marks.
    private var scannedTo: Int
    /// The members inflated or queued ahead, by where they start.
    private var jobs: [Int: (end: Int, length: Int, job: DecodingPool<Inflated>.Job)] = [:]
    /// The member inflated last, as far as it has been handed out.
    private var decoded = DecodedUnit()
    /// Members inflated on the pool's threads, for tests that they were.
    private(set) var membersInflatedAhead = 0
    /// The most compressed bytes held at once, and the most bytes of members inflated or being inflated ahead, for
    /// tests of the memory bound.
    private(set) var largestWindow = 0
    private(set) var mostInflatedAhead = 0

    /// - Parameters:
    ///   - threads: How many members may be inflated at once.
    ///   - memory: What the compressed bytes read ahead, their copies on the threads and the members inflated
    ///     ahead may hold, together; a member is inflated ahead only if it takes an eighth of it or less.
    ///   - storedOffset: The stored byte the input is read from: the start of a member.
    ///   - make: Makes an inflater of members.
    init(threads: Int, memory: Int, startingAt storedOffset: Int = 0, make: @escaping Make) throws(SluiceError) {
        self.make = make
        streaming = try make()
        pool = DecodingPool(threads: threads, name: "sluice-gzip")
        // Never so little that a member's header and trailer, 20 bytes at least, could not be read ahead.
        let memory = max(memory, 64 << 10)
        // The window holds up to twice what is read ahead (it lets go of what it passed in halves), the jobs a copy
        // of what they inflate, and the member handed out is one of the largest.
        readAhead = memory / 6
        decodedAhead = memory / 3
        largestMember = memory / 8
        windowStart = storedOffset
        position = storedOffset
        scannedTo = storedOffset
    }

    deinit {
        pool.stop()
    }

    private var windowEnd: Int { windowStart + window.count }

    var isBetweenUnits: Bool { !isStreaming && position == windowEnd && decoded.isHandedOut }

    func decode(_ input: inout UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, inputEnded: Bool) -> DecodeStep {
        if !decoded.isHandedOut { return decoded.handOut(into: output) }
        // Only as much as keeps `readAhead` bytes ahead: the rest of the read is taken by a later call.
        let taken = min(input.count, max(readAhead - (windowEnd - position), 0))
        if taken > 0 {
            window.append(contentsOf: input[..<taken])
            input = UnsafeRawBufferPointer(rebasing: input[taken...])
            largestWindow = max(largestWindow, window.count)
        }
        self.inputEnded = inputEnded && input.isEmpty
        return advance(into: output, mayWait: !input.isEmpty || self.inputEnded)
    }

    /// Hands out the next member: inflated ahead when it could be, otherwise streamed. Waits for its thread when
    /// `mayWait` (no more input can be taken, or there is none).
    private func advance(into output: UnsafeMutableRawBufferPointer, mayWait: Bool) -> DecodeStep {
        let needsInput = DecodeStep(produced: 0, outcome: .running)
        if isStreaming { return stream(into: output) }
        guard position < windowEnd else { return needsInput }
        scan()
        switch span(at: position) {
        case .needsInput:
            return needsInput
        case .streams:
            return startStreaming(into: output)
        case .member:
            dispatch()
            guard let entry = jobs[position] else { return startStreaming(into: output) }
            guard let inflated = pool.result(of: entry.job, waiting: mayWait) else { return needsInput }
            jobs[position] = nil
            guard case .bytes(let bytes) = inflated else { return startStreaming(into: output) }
            membersInflatedAhead += 1
            decoded.start(bytes, endingAt: entry.end)
            position = entry.end
            forgetBehind()
            return decoded.handOut(into: output)
        }
    }

    /// Where a member starting at `start` ends, as far as the bytes at hand tell.
    private enum Span {
        /// It ends at `end` and inflates to `length` bytes, if the guess holds; both small enough to inflate ahead.
        case member(end: Int, length: Int)
        /// More compressed bytes are needed to tell.
        case needsInput
        /// It is too large to inflate ahead, or no member starts there: the streaming inflater reads it.
        case streams
    }

    private func span(at start: Int) -> Span {
        let from = start - windowStart
        guard windowEnd - start >= Self.smallestMember else { return inputEnded ? .streams : .needsInput }
        guard GzipHeader.mayStart(window, at: from) else { return .streams }
        let end: Int
        if let size = blockSize(at: from) {
            guard size <= largestMember else { return .streams }
            guard start + size <= windowEnd else { return inputEnded ? .streams : .needsInput }
            end = start + size
        } else {
            let next = firstMark(from: start + Self.smallestMember)
            if next < marks.count {
                end = marks[next]
            } else if windowEnd - start > largestMember {
                return .streams
            } else if inputEnded {
                end = windowEnd
            } else {
                return .needsInput
            }
        }
        guard end - start <= largestMember, end - start >= Self.smallestMember else { return .streams }
        let trailer = end - windowStart - 4
        let length = (0..<4).reduce(0) { $0 | Int(window[trailer + $1]) << (8 * $1) }
        guard length <= largestMember else { return .streams }
        return .member(end: end, length: length)
    }

    /// The length a BGZF header at window index `from` gives its member (its `BC` extra subfield), if it is one.
    private func blockSize(at from: Int) -> Int? {
        guard window[from + 3] & 0x04 != 0 else { return nil }
        let extraLength = Int(window[from + 10]) | Int(window[from + 11]) << 8
        var field = from + 12
        let extraEnd = field + extraLength
        guard extraEnd <= window.count else { return nil }
        while field + 4 <= extraEnd {
            let fieldLength = Int(window[field + 2]) | Int(window[field + 3]) << 8
            if window[field] == 66 && window[field + 1] == 67 && fieldLength == 2 && field + 6 <= extraEnd {
                return (Int(window[field + 4]) | Int(window[field + 5]) << 8) + 1
            }
            field += 4 + fieldLength
        }
        return nil
    }

    /// The index of the first mark at or after `offset`.
    private func firstMark(from offset: Int) -> Int {
        var low = 0
        var high = marks.count
        while low < high {
            let middle = (low + high) / 2
            if marks[middle] < offset { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Finds the marks in the bytes not yet looked through; a mark needs four bytes.
    private func scan() {
        let from = max(scannedTo, windowStart) - windowStart
        let stop = window.count - 3
        guard from < stop else { return }
        window.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var index = from
            while index < stop, let hit = memchr(base + index, 0x1F, stop - index) {
                let at = base.distance(to: UnsafeRawPointer(hit))
                if GzipHeader.mayStart(bytes, at: at) { marks.append(windowStart + at) }
                index = at + 1
            }
        }
        scannedTo = windowStart + stop
    }

    /// Queues the members from `position` on whose ends are known, in order, while they fit in what may be held.
    private func dispatch() {
        var start = position
        var ahead = jobs.values.reduce(0) { $0 + $1.length }
        defer { mostInflatedAhead = max(mostInflatedAhead, jobs.values.reduce(0) { $0 + $1.length }) }
        for _ in 0..<Self.mostJobs {
            if let entry = jobs[start] {
                start = entry.end
                continue
            }
            guard jobs.count < Self.mostJobs, case .member(let end, let length) = span(at: start), ahead + length <= decodedAhead else { return }
            let member = Array(window[(start - windowStart)..<(end - windowStart)])
            let make = self.make
            let job = DecodingPool<Inflated>.Job { Self.inflateWhole(member, length: length, make: make) }
            jobs[start] = (end, length, job)
            pool.submit(job)
            ahead += length
            start = end
        }
    }

    /// Inflates `member`, all of one member's bytes, into the `length` bytes its trailer gives; it fails unless it
    /// ends exactly at its last byte with its checks passed.
    private static func inflateWhole(_ member: [UInt8], length: Int, make: Make) -> Inflated {
        guard let inflater = try? make() else { return .failed }
        var whole = false
        // One byte more than the trailer gives, so that a member longer than it says shows.
        let bytes = [UInt8](unsafeUninitializedCapacity: length + 1) { output, produced in
            produced = 0
            member.withUnsafeBytes { compressed in
                var input = compressed
                while produced <= length {
                    let before = input.count
                    let step = inflater.decode(&input, into: UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(output)[produced...]), inputEnded: true)
                    produced += step.produced
                    switch step.outcome {
                    case .unitEnded:
                        whole = input.isEmpty && produced == length
                        return
                    case .failed:
                        return
                    case .running:
                        if step.produced == 0 && input.count == before { return }
                    }
                }
            }
        }
        return whole ? .bytes(bytes) : .failed
    }

    /// Reads the member at `position` with the streaming inflater, to its end.
    private func startStreaming(into output: UnsafeMutableRawBufferPointer) -> DecodeStep {
        isStreaming = true
        return stream(into: output)
    }

    private func stream(into output: UnsafeMutableRawBufferPointer) -> DecodeStep {
        let from = position - windowStart
        let (step, consumed) = window.withUnsafeBytes { bytes in
            var input = UnsafeRawBufferPointer(rebasing: bytes[from...])
            let before = input.count
            let step = streaming.decode(&input, into: output, inputEnded: inputEnded)
            return (step, before - input.count)
        }
        position += consumed
        switch step.outcome {
        case .unitEnded:
            isStreaming = false
            forgetBehind()
            return DecodeStep(produced: step.produced, outcome: .unitEnded, compressedOffset: position)
        case .failed(let message):
            return DecodeStep(produced: step.produced, outcome: .failed(message), compressedOffset: position)
        case .running:
            forgetBehind()
            return DecodeStep(produced: step.produced, outcome: .running)
        }
    }

    /// Lets go of what lies before `position`: the members inflated from there (a guess that did not hold), the marks,
    /// and the compressed bytes once they are half the window.
    private func forgetBehind() {
        let stale = jobs.filter { $0.key < position }
        if !stale.isEmpty {
            pool.cancel(stale.values.map(\.job))
            for start in stale.keys { jobs[start] = nil }
        }
        let passed = firstMark(from: position)
        if passed > 0 { marks.removeFirst(passed) }
        let drop = position - windowStart
        guard drop > 0 && drop >= window.count / 2 else { return }
        window.removeFirst(drop)
        windowStart = position
    }
}
