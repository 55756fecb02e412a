import CYajl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A chunk's elements (an array's, or concatenated values), each walked whole where the reader found its end or the
/// chunk holds one a line, or judged by yajl; and streams fed to yajl slice by slice: whatever of a chunk or document
/// a verdict does not settle.
extension MappingEngine {
    func stepStream() throws(SluiceError) {
        while !hasEnded && !batches.hasReady {
            if feedFrom == input.endOffset {
                if input.isAtEnd {
                    finishStream()
                    return
                }
                pointMachineAtBuffer()
                if machine.pointee.sizeLimit.isExceeded(from: machine.pointee.recordInProgressStart, to: input.endOffset) {
                    machine.pointee.rejectOversizedRecordInProgress(end: input.endOffset)
                    endWithMachineRejection()
                    return
                }
                machine.pointee.countLines(upTo: machine.pointee.boundary)
                input.discard(before: machine.pointee.boundary)
                try fillInput()
                continue
            }
            pointMachineAtBuffer()
            let count = input.endOffset - feedFrom
            let status = tokenizer.parse(input.pointer(at: feedFrom), count: count, at: feedFrom)
            feedFrom = input.endOffset
            handleStreamStatus(status)
        }
    }

    /// Reads a chunk's elements (or values) one by one, each whole (``walkRecord(from:to:)``); one that both walks
    /// hand back is judged by yajl (``readHandedBackElement(from:to:)``). What follows the last element, which only
    /// damage or the input's end can leave, is judged too (``judgeTail()``), and walked when it is one more value.
    func stepElements() {
        pointMachineAtBuffer()
        while !hasEnded && !batches.hasReady && nextElement < elementEnds.count {
            let first = firstNonWhitespace(from: feedFrom)
            let end = elementEnds[nextElement]
            guard first < end else {
                nextElement = elementEnds.count
                return
            }
            var walked = walkRecord(from: first, to: end)
            // yajl's walk reads past ill-formed UTF-8 in values no field reads, as yajl reads any element.
            if walked == .notUTF8 { walked = walkRecordWithYajl(from: first, to: end) }
            switch walked {
            case .read:
                feedFrom = end
                nextElement += 1
            case .cancelled:
                feedFrom = end
                nextElement = elementEnds.count
                handleStreamStatus(.cancelled)
            case .handedBack, .notUTF8, .notWalked:
                // Nothing of it reached the machine (``walkRecordWithYajl(from:to:)`` never finds it not UTF-8).
                readHandedBackElement(from: first, to: end)
            }
        }
    }

    /// An element the walks did not read (damaged, too deep, a record passed over), judged by yajl
    /// as its stream would read it. A damaged one ends the run where the stream would, failing for its damage
    /// alone (as a damaged line does); a well-formed one is passed over (a record skipped, the header row), or read
    /// by yajl's events, alone.
    private func readHandedBackElement(from first: Int, to end: Int) {
        pointMachineAtBuffer()
        let verdict = tokenizer.judge(input.pointer(at: first), count: end - first, at: first, ending: .recordEnd)
        switch verdict {
        case .malformed, .tooDeep:
            _ = failsStream(verdict, recordStart: first)
            return
        case .wellFormed where machine.pointee.passesOverNextRecord:
            // A number or word ends with the whitespace after it, which is not its text.
            if !machine.pointee.passOverRecord(end: endBeforeWhitespace(from: first, to: end)) { endWithMachineRejection() }
            feedFrom = end
            nextElement += 1
            return
        default:
            break
        }
        let status = tokenizer.parse(input.pointer(at: feedFrom), count: end - feedFrom, at: feedFrom)
        feedFrom = end
        handleStreamStatus(status)
        nextElement += 1
        // A number or word the element ends with, with no byte after it in the element, is still open in yajl:
        // the stream reads on from here, to the chunk's end.
        let last = input.pointer(at: end - 1).pointee
        if machine.pointee.inRecord || Self.endsNumberOrWord(last) && !ShapeDetector.isWhitespace(last) {
            nextElement = elementEnds.count
            streamReadsRest = true
        }
    }

    /// Ends the run at the damage `verdict` found in the record starting at `recordStart`, as one stream of the
    /// input would have (``handleStreamStatus(_:)``), but failing for the damage alone; `false` when there is none.
    func failsStream(_ verdict: YajlTokenizer.Verdict, recordStart: Int) -> Bool {
        switch verdict {
        case .malformed(let message, let offset, let insideRecord):
            // A container's record begins at its bracket; a string, number or word, only once it is whole, so an
            // error inside it comes between records, where the stream shows only the byte before it.
            let shownFrom = insideRecord ? recordStart : max(offset - 1, input.baseOffset)
            failStream(syntaxFailure(message, at: offset, within: shownFrom..<input.endOffset), end: min(offset, input.endOffset))
        case .tooDeep(let offset):
            failStream(machine.pointee.tooDeepFailure(at: offset), end: min(offset, input.endOffset))
        case .truncated:
            failStream(.truncated(at: input.endOffset), end: input.endOffset)
        case .wellFormed, .extraValue:
            return false
        }
        return true
    }

    /// What follows a chunk's last whole element, which the reader ends after the damage it found (the worker's to
    /// report), or at the input's end: whitespace, or damage, which ends the run as one stream would end it, or a
    /// record the end cuts short, or one value the end ends, which is then walked as the chunk's last element. yajl
    /// judges it; its events read only what its verdict does not settle. `false` when the events are to read it.
    func judgeTail() -> Bool {
        pointMachineAtBuffer()
        let first = firstNonWhitespace(from: feedFrom)
        guard first < input.endOffset else {
            feedFrom = input.endOffset
            end(with: nil)
            return true
        }
        let verdict = tokenizer.judge(input.pointer(at: first), count: input.endOffset - first, at: first, ending: .inputEnd)
        if verdict == .wellFormed {
            // One value the input's end ends (the reader ends a value only where a byte after it does): an element.
            elementEnds.append(input.endOffset)
            return true
        }
        return failsStream(verdict, recordStart: first)
    }

    /// Maps the chunk's lines as an array's elements, one element and its comma per line (blank lines aside).
    /// Every line before the first holds one (the reader started lines after a comma, and the earlier chunks are
    /// checked before this one is delivered), so each line starts at an element; a walk of the line up to its
    /// comma refuses anything but one value. At the first line that is not one element and its comma, or that the
    /// walks hand back, the chunk ends before it and the array is to be read exactly from there: by the framer and,
    /// where the walks cannot, by yajl's events, as if lines had never been tried.
    func stepArrayLines(endingAt readerEnd: Int?) {
        while !hasEnded && !batches.hasReady {
            guard lineStart < input.endOffset else {
                exactReadingFrom = readerEnd
                end(with: nil)
                return
            }
            var lineEnd = input.endOffset
            if let found = memchr(input.pointer(at: lineStart), 0x0A, input.endOffset - lineStart) {
                lineEnd = lineStart + (UnsafeRawPointer(found) - UnsafeRawPointer(input.pointer(at: lineStart)))
            }
            let next = min(lineEnd + 1, input.endOffset)
            let first = firstNonWhitespace(from: lineStart, to: lineEnd)
            if first == lineEnd {
                lineNumber += lineEnd < input.endOffset ? 1 : 0
                lineStart = next
                continue
            }
            guard let element = elementOnLine(first: first, lineEnd: lineEnd) else {
                readExactly(from: lineStart)
                return
            }
            // Blanked, as the framer blanks the array's punctuation: the element's bytes are the same either way.
            input.pointer(at: element.comma).pointee = 0x20
            pointMachineAtBuffer()
            machine.pointee.knownRecordStart = first
            machine.pointee.knownRecordLine = lineNumber
            switch walkRecord(from: first, to: element.end) {
            case .read:
                finishLine(keepGoing: machine.pointee.finishDeferredRecord())
            case .cancelled:
                feedFrom = element.end
                handleStreamStatus(.cancelled)
                machine.pointee.knownRecordStart = nil
            case .handedBack, .notUTF8, .notWalked:
                // Nothing of it reached the machine: the array is read exactly from its line.
                machine.pointee.knownRecordStart = nil
                readExactly(from: lineStart)
                return
            }
            lineNumber += lineEnd < input.endOffset ? 1 : 0
            lineStart = next
        }
    }

    /// The element on the line from `first` (not whitespace) to `lineEnd`, when the line ends with a comma: where
    /// the element ends as the framer ends it (just past a container or string, past the byte after a bare number
    /// or literal), and where the comma is. `nil` when the line does not end with a comma after something, or
    /// holds more than a record may.
    private func elementOnLine(first: Int, lineEnd: Int) -> (end: Int, comma: Int)? {
        let comma = endBeforeWhitespace(from: first, to: lineEnd) - 1
        guard comma > first && input.pointer(at: comma).pointee == UInt8(ascii: ",") else { return nil }
        let valueEnd = endBeforeWhitespace(from: first, to: comma)
        let end = Self.endsNumberOrWord(input.pointer(at: valueEnd - 1).pointee) ? valueEnd + 1 : valueEnd
        guard !machine.pointee.sizeLimit.isExceeded(from: first, to: end) else { return nil }
        return (end, comma)
    }

    /// Whether a value whose last byte is `byte` (not whitespace) is a number or word, which yajl ends only at the
    /// byte after it, rather than a container or string, which end with their last byte.
    private static func endsNumberOrWord(_ byte: UInt8) -> Bool {
        byte != UInt8(ascii: "}") && byte != UInt8(ascii: "]") && byte != UInt8(ascii: "\"")
    }

    /// Ends the chunk's lines before the one at `offset`, from which the array is to be read exactly.
    private func readExactly(from offset: Int) {
        exactReadingFrom = offset
        end(with: nil)
    }

    private func finishStream() {
        pointMachineAtBuffer()
        if shape == .document && machine.pointee.ordinal == 0 && machine.pointee.recordInProgressStart >= input.endOffset {
            failStream(.noValue(at: input.endOffset), end: input.endOffset)
            return
        }
        // Only whitespace after the last value: nothing for yajl to complete (it would call an input without a
        // value malformed, though an empty stream of values is not). So too an array input that held only
        // whitespace: an empty input holds no records, as the parallel pipeline reads it.
        let onlyWhitespaceLeft = shape == .concatenated && !machine.pointee.inRecord
            && machine.pointee.recordInProgressStart >= input.endOffset
            || shape == .array && !machine.pointee.isOuterOpen && !machine.pointee.isOuterClosed && isBlankSinceStart()
        let status = onlyWhitespaceLeft ? .ok : tokenizer.finish()
        handleStreamStatus(status)
        guard !hasEnded else { return }
        if shape == .concatenated && !onlyWhitespaceLeft && !machine.pointee.inRecord && machine.pointee.recordInProgressStart < input.endOffset {
            // yajl holds a value cut short outside any container (a string, a literal) without a word at the end
            // of a stream of values: the last record was cut off.
            failStream(.truncated(at: input.endOffset), end: input.endOffset)
            return
        }
        if machine.pointee.inRecord || machine.pointee.isOuterOpen {
            failStream(Rejection.Failure(keyPath: "$", kind: .truncated, expected: "the rest of the input", found: "the end of the input", byteOffset: input.endOffset), end: input.endOffset)
            return
        }
        if shape == .document {
            if machine.pointee.hasDeferredRecord {
                if !machine.pointee.finishDeferredRecord() { stopByPolicy() }
            }
        }
        if !hasEnded { end(with: nil) }
    }

    private func handleStreamStatus(_ status: YajlTokenizer.Status) {
        switch status {
        case .ok:
            return
        case .cancelled:
            if machine.pointee.stoppingRejection != nil {
                stopByPolicy()
            } else if machine.pointee.endingRejection != nil {
                endWithMachineRejection()
            } else {
                failStream(nil, end: min(machine.pointee.lastTokenEnd, input.endOffset))
            }
        case .malformed(let message, let offset):
            let recordStart = machine.pointee.isBetweenRecords ? max(offset - 1, input.baseOffset) : machine.pointee.boundary
            failStream(syntaxFailure(message, at: offset, within: recordStart..<input.endOffset), end: min(offset, input.endOffset))
        case .truncated(let offset):
            failStream(.truncated(at: offset), end: min(offset, input.endOffset))
        }
    }

    func endWithMachineRejection() {
        guard let rejection = machine.pointee.endingRejection else { return }
        end(with: .streamEnded(source: source.name, rejection))
    }

    /// Rejects the record in progress and ends the run: a stream cannot be resynchronised.
    func failStream(_ failure: Rejection.Failure?, end recordEnd: Int) {
        pointMachineAtBuffer()
        _ = machine.pointee.rejectRecordInProgress(failure, end: recordEnd)
        // A header that is not one ends the run with a rejection of its own, counted nowhere.
        let rejection = machine.pointee.stoppingRejection ?? machine.pointee.endingRejection ?? machine.pointee.batches.lastRejectionInCurrent
        if let rejection {
            end(with: .streamEnded(source: source.name, rejection))
        } else {
            end(with: nil)
        }
    }

    private static let bytesShownPastAProblem = 8

    /// yajl's message, with the bytes around the offset (which is just past the offending byte) to show where.
    func syntaxFailure(_ message: String, at offset: Int, within record: Range<Int>) -> Rejection.Failure {
        // Never the whitespace before the record's first byte: how much of it a reader holds depends on where its
        // chunk began.
        var start = max(record.lowerBound, input.baseOffset)
        if record.lowerBound >= input.baseOffset {
            while start < min(offset, input.endOffset) && ShapeDetector.isWhitespace(input.pointer(at: start).pointee) { start += 1 }
        }
        let from = max(offset - 16, start)
        // A line shows a few bytes past the problem, up to its end. Elsewhere a chunk or a read ends where its size
        // says, so only what leads up to the problem is shown, whatever was read past it.
        let to = shape == .ndjson ? min(offset + Self.bytesShownPastAProblem, min(record.upperBound, input.endOffset))
            : min(offset, input.endOffset)
        return .malformedJSON(message, near: UnsafeBufferPointer(start: input.pointer(at: from), count: max(to - from, 0)), at: offset)
    }
}
