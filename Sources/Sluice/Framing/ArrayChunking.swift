#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Chunks of an array's elements or of a stream's values: cut at their ends the framer finds byte by byte, or, for an
/// array written one element and its comma a line, at line feeds (probed on the first chunk, checked by the workers).
extension ChunkReader {
    func frameRecords() throws(SluiceError) -> Bool {
        if arrayLines == .undecided {
            arrayLines = .no
            if let start = firstLineOfElements() {
                // The framer reads up to there, as the probe did, and the chunk before it is handed on; lines follow.
                let scan = framer.scan(buffer, count: start, at: bufferOffset)
                if framer.arraysStarted > 0 { container += 1 }
                if scan.problem == nil && framer.state == .beforeElement {
                    guard hand(upTo: start, failure: nil) else { return false }
                    arrayLines = .yes
                    scanned = 0
                    return true
                }
                if let end = scan.lastElementEnd { unhandedElementsEnd = end }
                scanned = start
                if let problem = scan.problem { return handProblem(problem, lastElementEnd: unhandedElementsEnd) }
            }
        }
        var problem: RecordFramer.Problem?
        if filled > scanned {
            let arraysBefore = framer.arraysStarted
            let scan = framer.scan(buffer + scanned, count: filled - scanned, at: bufferOffset + scanned)
            if let end = scan.lastElementEnd { unhandedElementsEnd = end }
            problem = scan.problem
            scanned = filled
            if framer.arraysStarted > arraysBefore { container += 1 }
            if let next = framer.nextArrayStart {
                // Another container's records start: what comes before them is the last chunk of this one.
                guard hand(upTo: next - bufferOffset, failure: nil) else { return false }
                scanned = 0
                framer.beginNextArray()
                return true
            }
        }
        if problem == nil && isAtEnd {
            let end = framer.finish(at: bufferOffset + filled)
            if let elementEnd = end.lastElementEnd { unhandedElementsEnd = elementEnd }
            problem = end.problem
        }
        if let problem {
            if problem.kind == .misplacedToken || problem.kind == .trailingGarbage || problem.kind == .notAnArray {
                // The message points past the whole token, as yajl's does: read on until it has ended.
                let at = problem.offset - bufferOffset
                while tokenLength(at: at) == nil && !isAtEnd && !sizeLimit.isExceeded(from: at, to: filled) { try readMore() }
            }
            return handProblem(problem, lastElementEnd: unhandedElementsEnd)
        }
        if isAtEnd {
            guard filled > 0 else { return true }
            guard let limitedEnd = framer.pendingElementEnd(number: maximumRecords) else { return hand(upTo: filled, failure: nil) }
            return hand(upTo: limitedEnd - bufferOffset, failure: nil)
        }
        if let lastElementEnd = unhandedElementsEnd {
            let end = framer.pendingElementEnd(number: maximumRecords) ?? lastElementEnd
            return hand(upTo: end - bufferOffset, failure: nil)
        }
        // One element longer than a chunk.
        let first = firstNonWhitespace()
        if first == filled {
            // Nothing but whitespace since the last element (or what the framer and the records-path filter
            // blanked: punctuation, the wrapper's other members): dropped as it streams past, so that a run of any
            // length costs neither memory nor a second scan. Its line feeds still count.
            // The next step reads on, and at the end of the input lets the framer say whether the array was complete.
            droppedLineFeeds += NewlineCounter.count(in: UnsafeBufferPointer(start: buffer, count: filled))
            drop(filled)
            return true
        }
        if sizeLimit.isExceeded(from: first, to: filled) {
            let shown = Array(UnsafeBufferPointer(start: buffer + first, count: sizeLimit.shownEnd(from: first) - first))
            let failure = FramingFailure(
                byteOffset: bufferOffset + first, lineFeedsBefore: NewlineCounter.count(in: UnsafeBufferPointer(start: buffer, count: first)),
                failure: sizeLimit.failure(at: bufferOffset + first, found: "a longer record"),
                rawText: shown, isRawTextTruncated: true)
            _ = hand(upTo: 0, failure: failure)
            return false
        }
        try readMore()
        return true
    }

    /// Ends the run at a structural problem: the records before it are handed out, then the problem.
    func handProblem(_ problem: RecordFramer.Problem, lastElementEnd: Int?) -> Bool {
        let at = problem.offset - bufferOffset
        if problem.kind == .forWorker {
            // The worker's parser reports what is wrong there, in yajl's words.
            _ = hand(upTo: min(at + 1, filled), failure: nil)
            return false
        }
        let cut = lastElementEnd.map { $0 - bufferOffset } ?? 0
        // As one reader reports it: yajl says "parse error" and points just past the offending token; a record
        // starts at a value after an element, and at garbage after the array, where commas do not start one.
        var errorOffset = problem.offset
        var recordOffset = problem.offset
        var tokenEnd = min(at + 1, filled)
        var message = problem.message
        if problem.kind == .misplacedToken || problem.kind == .trailingGarbage {
            message = "parse error: " + message
            tokenEnd = at + (tokenLength(at: at) ?? 1)
            errorOffset = bufferOffset + tokenEnd
            if problem.kind == .trailingGarbage {
                var start = at
                while start < filled && buffer[start] == UInt8(ascii: ",") { start += 1 }
                recordOffset = bufferOffset + start
            }
        }
        // Only the offending byte: what else is in view depends on where reads and chunks ended.
        var rejection: Rejection.Failure = problem.kind == .endOfInput ? .truncated(at: errorOffset)
            : .malformedJSON(message, near: UnsafeBufferPointer(start: buffer + at, count: at < filled ? 1 : 0), at: errorOffset)
        if problem.kind == .notAnArray {
            // As one reader's state machine says it, once yajl has delivered the value's first token.
            tokenEnd = at + (tokenLength(at: at) ?? 1)
            rejection = Rejection.Failure(keyPath: "$", kind: .typeMismatch, expected: "a top-level array of records",
                                          found: "a value that is not an array", byteOffset: bufferOffset + tokenEnd)
        }
        let failure = FramingFailure(
            byteOffset: recordOffset,
            lineFeedsBefore: NewlineCounter.count(in: UnsafeBufferPointer(start: buffer + cut, count: max(at - cut, 0))),
            failure: rejection,
            rawText: at < filled && recordOffset == problem.offset ? Array(UnsafeBufferPointer(start: buffer + at, count: min(tokenEnd, filled) - at)) : [])
        _ = hand(upTo: cut, failure: failure)
        return false
    }

    // MARK: - An array's lines

    /// How much of the first chunk the line probe reads.
    private static let probedBytes = 1 << 20

    /// Where the array's lines start (just past a line feed, with the framer after a comma), when every whole line
    /// of the first chunk's bytes after it holds one element and its comma, or is blank: found by a framer of its
    /// own on a copy of those bytes, line by line, which leaves the buffer as it was. `nil` to frame exactly.
    private func firstLineOfElements() -> Int? {
        if let filter = recordsFilter {
            // Records in an object come with keys, which only the framer hands on.
            guard filter.containers.count == 1, filter.containers.first?.isObject == false else { return nil }
        }
        let count = min(filled, Self.probedBytes)
        let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, 1))
        copy.initialize(from: buffer, count: count)
        var probe = framer.fresh()
        defer {
            probe.deallocate()
            copy.deallocate()
        }
        var start: Int?
        var linesAfterStart = 0
        var lineStart = 0
        while lineStart < count, let found = memchr(copy + lineStart, 0x0A, count - lineStart) {
            let lineEnd = UnsafeRawPointer(found) - UnsafeRawPointer(copy) + 1
            let endedBefore = probe.pendingElementCount
            let scan = probe.scan(copy + lineStart, count: lineEnd - lineStart, at: bufferOffset + lineStart)
            guard scan.problem == nil else { return nil }
            let ended = probe.pendingElementCount - endedBefore
            if start == nil {
                // The first chunk ends there: it must not hold more records than a chunk may.
                guard probe.pendingElementCount <= maximumRecords else { return nil }
                if probe.state == .beforeElement && ended > 0 { start = lineEnd }
            } else {
                guard probe.state == .beforeElement && ended <= 1 else { return nil }
                linesAfterStart += 1
            }
            lineStart = lineEnd
        }
        return linesAfterStart > 0 ? start : nil
    }

    /// Cuts chunks at line feeds, for the workers to check. The lines end at the input's end, where the array must
    /// have ended (the workers find the line that ends it holding no comma) and where the framer is left to say so
    /// if it has not; or at a line longer than a record may be, which the framer reads after the lines before it.
    func frameArrayLines() -> Bool {
        if isAtEnd {
            let cut = linesCut(filled)
            guard hand(upTo: cut, failure: nil, exactReadingFrom: cut == filled ? bufferOffset + cut : nil) else { return false }
            if cut < filled { scanned = 0 }
            return true
        }
        if let lineFeed = lastLineFeed(from: scanned, to: filled) {
            return handLines(upTo: lineFeed + 1)
        }
        scanned = filled
        // No line feed: the line is longer than a chunk (it starts at the buffer's start). It is read again exactly.
        if sizeLimit.isExceeded(from: 0, to: filled) {
            filled = 0
            _ = hand(upTo: 0, failure: nil, exactReadingFrom: bufferOffset)
            return false
        }
        do { try readMore() } catch { pendingReadError = error; return true }
        return true
    }

    /// The length of the token at `buffer[at]`, as yajl reads it before it reports a misplaced one: a string to its
    /// closing quote, a number or a literal to its last character (or the input's end), any other byte alone. A
    /// token that runs past the bytes read so far has no length yet (`nil`).
    private func tokenLength(at: Int) -> Int? {
        guard at < filled else { return 1 }
        var end = at + 1
        switch buffer[at] {
        case UInt8(ascii: "\""):
            var escaped = false
            while end < filled {
                let byte = buffer[end]
                end += 1
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == UInt8(ascii: "\"") { return end - at }
            }
            return nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            while end < filled, RecordFramer.continuesNumber(buffer[end]) { end += 1 }
        case UInt8(ascii: "a")...UInt8(ascii: "z"):
            while end < filled, buffer[end] >= UInt8(ascii: "a") && buffer[end] <= UInt8(ascii: "z") { end += 1 }
        default:
            return 1
        }
        return end < filled || isAtEnd ? end - at : nil
    }
}
