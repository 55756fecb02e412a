#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// NDJSON chunks: cut after the last line feed; a line past the size limit cut off there and the rest of it
/// skipped; a byte-range shard starting at its first whole line.
extension ChunkReader {
    func frameLines() -> Bool {
        if let range, (blankLineStart ?? bufferOffset) >= range.upperBound {
            // The next line starts at or past the shard's end: it belongs to the next shard.
            filled = 0
            isAtEnd = true
            return true
        }
        // A shard ends with the line that holds byte `upperBound - 1`.
        if let range, bufferOffset + filled >= range.upperBound {
            let from = max(range.upperBound - 1 - bufferOffset, 0)
            if from < filled, let found = memchr(buffer + from, 0x0A, filled - from) {
                let cut = UnsafeRawPointer(found) - UnsafeRawPointer(buffer) + 1
                isAtEnd = true
                filled = cut
                return handLines(upTo: cut)
            }
        }
        if isAtEnd {
            return filled == 0 || handLines(upTo: filled)
        }
        if let lineFeed = lastLineFeed(from: scanned, to: filled) {
            return handLines(upTo: lineFeed + 1)
        }
        scanned = filled
        // No line feed: one line is longer than a chunk.
        let first = firstNonWhitespace()
        if first == filled {
            // Nothing but whitespace so far, and no line feed among it (lines before it were handed on): dropped
            // as it streams past, so that a blank line of any length costs neither memory nor a second scan. The
            // line still starts where it started, for the shard it belongs to.
            if blankLineStart == nil { blankLineStart = bufferOffset }
            drop(filled)
            do { try readMore() } catch { pendingReadError = error; return true }
            return true
        }
        if sizeLimit.isExceeded(from: first, to: filled) {
            // The worker sees a last line over the limit and rejects it as too large; the
            // rest of the line is skipped, and its line feed starts the next chunk (so lines stay counted).
            let cut = sizeLimit.proofEnd(from: first)
            isDiscardingLine = true
            return hand(upTo: cut, failure: nil)
        }
        do { try readMore() } catch { pendingReadError = error; return true }
        return true
    }

    /// Hands out the lines in `buffer[0..<end]`, or the first `maximumRecords` of them.
    func handLines(upTo end: Int) -> Bool {
        let cut = linesCut(end)
        guard hand(upTo: cut, failure: nil) else { return false }
        // The lines carried past a limited cut still have their line feeds to be found.
        if cut < end { scanned = 0 }
        return true
    }

    /// Where a chunk of the lines in `buffer[0..<end]` ends: at `end`, or after the line that holds its
    /// `maximumRecords`th record. Blank lines are not counted: they make no rows, and counting them made a chunk
    /// (and a batch's worth of work for every column) of every few blank lines under a wide mapping.
    func linesCut(_ end: Int) -> Int {
        // A line takes a byte at least: fewer bytes than the limit cannot hold too many lines.
        let limit = maximumRecords
        guard end > limit else { return end }
        var position = 0
        var records = 0
        while position < end {
            guard let found = memchr(buffer + position, 0x0A, end - position) else { return end }
            let next = UnsafeRawPointer(found) - UnsafeRawPointer(buffer) + 1
            var first = position
            while first < next - 1, ShapeDetector.isWhitespace(buffer[first]) { first += 1 }
            if first < next - 1 {
                records += 1
                if records == limit { return next }
            }
            position = next
        }
        return end
    }

    /// Lines in `buffer[0..<end]` that hold more than whitespace: NDJSON records (the last one may lack its line
    /// feed).
    func linesWithContent(upTo end: Int) -> Int {
        var count = 0
        var isInContentLine = false
        for index in 0..<end {
            let byte = buffer[index]
            if byte == 0x0A {
                if isInContentLine { count += 1 }
                isInContentLine = false
            } else if !ShapeDetector.isWhitespace(byte) {
                isInContentLine = true
            }
        }
        return isInContentLine ? count + 1 : count
    }

    /// The last line feed in `buffer[from..<to]`; a record is short next to a chunk, so searching backwards
    /// touches few bytes.
    func lastLineFeed(from: Int, to: Int) -> Int? {
        var position = to
        while position > from {
            position -= 1
            if buffer[position] == 0x0A { return position }
        }
        return nil
    }

    func discardLine() {
        if let found = memchr(buffer, 0x0A, filled) {
            let lineFeed = UnsafeRawPointer(found) - UnsafeRawPointer(buffer)
            drop(lineFeed)
            isDiscardingLine = false
        } else {
            drop(filled)
        }
    }

    func skipToFirstLine() {
        // Reading started one byte before the shard: a line feed there means a line starts at the bound.
        if let found = memchr(buffer, 0x0A, filled) {
            drop(UnsafeRawPointer(found) - UnsafeRawPointer(buffer) + 1)
            isSkippingToFirstLine = false
        } else {
            drop(filled)
            if isAtEnd { isSkippingToFirstLine = false }
        }
    }

    /// Where the first byte that is not whitespace sits in the buffer (`filled` when there is none).
    func firstNonWhitespace() -> Int {
        var first = 0
        while first < filled, ShapeDetector.isWhitespace(buffer[first]) { first += 1 }
        return first
    }

    /// Forgets the first `count` bytes of the buffer; the next chunk counts them as read.
    func drop(_ count: Int) {
        guard count > 0 else { return }
        droppedBytes += count
        let kept = filled - count
        if kept > 0 { buffer.update(from: buffer + count, count: kept) }
        filled = kept
        bufferOffset += count
        scanned = 0
    }
}
