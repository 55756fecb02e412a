#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A chunk's NDJSON lines, mapped one by one: each whole by simdjson, or by yajl's matched walk when simdjson is not
/// chosen or cannot read it; a line neither walk reads is judged by yajl alone and rejected for its damage. A line
/// too long or not UTF-8 is rejected on its own, and the rest of the chunk read on.
extension MappingEngine {
    /// Maps the chunk's lines one by one. The chunk reader cut the chunk after a line feed, or at the input's end,
    /// or just past the size limit inside a line too long (the reader drops the rest of it), so each line is whole.
    func stepLines() {
        while !hasEnded && !batches.hasReady {
            guard lineStart < input.endOffset else {
                end(with: nil)
                return
            }
            if let found = memchr(input.pointer(at: lineStart), 0x0A, input.endOffset - lineStart) {
                let lineFeed = lineStart + (UnsafeRawPointer(found) - UnsafeRawPointer(input.pointer(at: lineStart)))
                mapLine(from: lineStart, to: lineFeed + 1, endsWithLineFeed: true)
                lineNumber += 1
                lineStart = lineFeed + 1
            } else {
                mapLine(from: lineStart, to: input.endOffset, endsWithLineFeed: false)
                lineStart = input.endOffset
            }
        }
    }

    /// The first byte from `start` that is not whitespace, or `end` (the input's end by default): a line looks no
    /// further than itself, so that a run of blank lines costs time linear in its length.
    func firstNonWhitespace(from start: Int, to end: Int? = nil) -> Int {
        let limit = min(end ?? input.endOffset, input.endOffset)
        var first = start
        while first < limit, ShapeDetector.isWhitespace(input.pointer(at: first).pointee) { first += 1 }
        return first
    }

    /// Just past the last byte before `end` that is not whitespace, looking no further back than `first`.
    func endBeforeWhitespace(from first: Int, to end: Int) -> Int {
        var last = end
        while last > first, ShapeDetector.isWhitespace(input.pointer(at: last - 1).pointee) { last -= 1 }
        return last
    }

    private func mapLine(from start: Int, to end: Int, endsWithLineFeed: Bool) {
        let first = firstNonWhitespace(from: start, to: end)
        guard first < end else { return }  // a blank line
        if machine.pointee.recordsToSkip > 0 {
            // A line passed over need not even be JSON (a title, a comment).
            machine.pointee.recordsToSkip -= 1
            return
        }
        // A line is counted up to its line feed, as the chunk reader counts one it notices too long.
        if machine.pointee.sizeLimit.isExceeded(from: first, to: endsWithLineFeed ? end - 1 : end) {
            rejectOversizedLine(first: first)
            return
        }
        let last = endBeforeWhitespace(from: first, to: end)
        pointMachineAtBuffer()
        machine.pointee.knownRecordStart = first
        machine.pointee.knownRecordLine = lineNumber
        // The header row (lines to skip are passed over above), which no walk reads, is only judged.
        var walked = machine.pointee.passesOverNextRecord ? .handedBack : walkRecord(from: first, to: last)
        // yajl's walk checks mapped text, and reads past ill-formed UTF-8 in values no field reads: a record it reads
        // whole without a failure is not UTF-8 all the same.
        let isUTF8 = walked != .notUTF8
        if !isUTF8 { walked = walkRecordWithYajl(from: first, to: last) }
        switch walked {
        case .read:
            finishLine(keepGoing: isUTF8 ? machine.pointee.finishDeferredRecord() : finishRecordNotUTF8(from: first, to: last))
            return
        case .cancelled:
            finishWalkedRecord(cancelled: true, end: last)
            return
        case .noMemory:
            self.end(with: Self.noMemoryError(source: source.name, at: first))
            return
        case .tooLarge:
            finishLine(keepGoing: machine.pointee.rejectReadingTooManyValues(end: last))
            return
        case .handedBack, .notUTF8:
            break
        }
        // yajl judges the record whatever its fields make of it: a damaged record fails for its damage alone.
        let verdict = judge(from: start, to: end, ending: endsWithLineFeed ? .lineFeed : .recordEnd)
        if verdict == .noMemory {
            self.end(with: Self.noMemoryError(source: source.name, at: first))
        } else if let failure = damage(verdict, record: first..<last) {
            finishLine(keepGoing: machine.pointee.rejectRecordInProgress(failure, end: last))
        } else if machine.pointee.passesOverNextRecord {
            finishLine(keepGoing: machine.pointee.passOverRecord(end: last))
        } else {
            finishLine(keepGoing: machine.pointee.rejectRecordInProgress(Self.unreadFailure(at: first), end: last))
        }
    }

    /// Why the line whose record is in `record` is no well-formed JSON value, by yajl's `verdict` on it; `nil` when it
    /// is one (or was not judged).
    private func damage(_ verdict: YajlTokenizer.Verdict, record: Range<Int>) -> Rejection.Failure? {
        switch verdict {
        case .wellFormed, .noMemory: nil
        case .malformed(let message, let offset, _): syntaxFailure(message, at: offset, within: record)
        case .truncated: .truncated(at: record.upperBound, found: "the end of the line")
        case .extraValue(let offset): RecordStateMachine.extraValueFailure(at: offset)
        case .tooDeep(let offset): machine.pointee.tooDeepFailure(at: offset)
        }
    }

    /// After a record a walk read whole (a line, a document): the record is finished, or where the machine asked to
    /// stop, rejected (unless the rejection policy stopped it).
    func finishWalkedRecord(cancelled: Bool, end last: Int) {
        finishLine(keepGoing: cancelled
            ? machine.pointee.stoppingRejection != nil || machine.pointee.rejectRecordInProgress(nil, end: last)
            : machine.pointee.finishDeferredRecord())
    }

    /// Finishes the record in `first..<last`, read whole by yajl, which simdjson found not UTF-8: yajl reads past
    /// ill-formed UTF-8 in values no field reads, so a record without a failure is rejected all the same.
    private func finishRecordNotUTF8(from first: Int, to last: Int) -> Bool {
        machine.pointee.holdsCleanRecord
            ? machine.pointee.rejectRecordInProgress(invalidUTF8Failure(from: first, to: last), end: last)
            : machine.pointee.finishDeferredRecord()
    }

    /// Reads the record in `first..<end` with simdjson where it is chosen, else (or where it hands the record back)
    /// with yajl's matched walk.
    func walkRecord(from first: Int, to end: Int) -> WalkStatus {
        if let simdjson {
            let walked = simdjson.walk(input.pointer(at: first), count: end - first, readable: input.readableBytes(from: first), at: first)
            // Handed back, nothing of it reached the machine.
            guard walked == .handedBack else { return walked }
        }
        return walkRecordWithYajl(from: first, to: end)
    }

    /// Reads the record in `first..<end` with yajl's matched walk, which checks mapped text only: where simdjson
    /// found the record not UTF-8, too.
    func walkRecordWithYajl(from first: Int, to end: Int) -> WalkStatus {
        yajl.matchRecord(input.pointer(at: first), count: end - first, at: first)
    }

    /// yajl's verdict on the held bytes in `first..<end`, which the walks did not read.
    func judge(from first: Int, to end: Int, ending: YajlTokenizer.JudgedEnd, isDocument: Bool = false) -> YajlTokenizer.Verdict {
        yajl.judge(input.pointer(at: first), count: end - first, at: first, ending: ending, isDocument: isDocument)
    }

    func finishLine(keepGoing: Bool) {
        machine.pointee.knownRecordStart = nil
        if !keepGoing || machine.pointee.stoppingRejection != nil { stopByPolicy() }
    }

    /// The failure of a record that holds ill-formed UTF-8 in `first..<last`, where it first goes wrong.
    private func invalidUTF8Failure(from first: Int, to last: Int) -> Rejection.Failure {
        let bytes = UnsafePointer(input.pointer(at: first))
        let offset = UTF8Validation.firstInvalidOffset(bytes, last - first) ?? 0
        return Rejection.Failure(keyPath: "$", kind: .invalidUTF8, expected: "well-formed UTF-8",
                                 found: UTF8Validation.describeSequence(bytes, last - first, at: offset), byteOffset: first + offset)
    }

    private func rejectOversizedLine(first: Int) {
        pointMachineAtBuffer()
        machine.pointee.knownRecordStart = first
        machine.pointee.knownRecordLine = lineNumber
        let limit = machine.pointee.sizeLimit
        let keepGoing = machine.pointee.rejectRecordInProgress(
            limit.failure(at: first, found: "a longer line"), end: limit.shownEnd(from: first), rawTextIsTruncated: true)
        machine.pointee.knownRecordStart = nil
        if !keepGoing { stopByPolicy() }
    }

    func stopByPolicy() {
        if let rejection = machine.pointee.stoppingRejection {
            end(with: .rejected(rejection))
        } else {
            endWithMachineRejection()
        }
    }
}
