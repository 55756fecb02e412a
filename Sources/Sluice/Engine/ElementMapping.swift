#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A chunk's elements (an array's, or concatenated values), each walked whole where the reader found its end or the
/// chunk holds one a line, or judged by yajl; and how a run that cannot go on past a record ends.
extension MappingEngine {
    /// Reads a chunk's elements (or values) one by one, each whole (``walkRecord(from:to:)``); one that both walks
    /// hand back is judged by yajl (``judgeHandedBackElement(from:to:)``). What follows the last element, which only
    /// damage or the input's end can leave, is judged too (``judgeTail()``), and walked when it is one more value.
    func stepElements() {
        pointMachineAtBuffer()
        while !hasEnded && !batches.hasReady && nextElement < elementEnds.count {
            let first = firstNonWhitespace(from: readFrom)
            let end = elementEnds[nextElement]
            guard first < end else {
                nextElement = elementEnds.count
                return
            }
            // A record passed over (skipped, the header row), which no walk reads, is only judged.
            var walked = machine.pointee.passesOverNextRecord ? .handedBack : walkRecord(from: first, to: end)
            // yajl's walk reads past ill-formed UTF-8 in values no field reads, as yajl reads any element.
            if walked == .notUTF8 { walked = walkRecordWithYajl(from: first, to: end) }
            switch walked {
            case .read:
                readFrom = end
                nextElement += 1
            case .cancelled:
                readFrom = end
                nextElement = elementEnds.count
                stopAfterCancel(end: end)
            case .noMemory:
                self.end(with: Self.noMemoryError(source: source.name, at: first))
            case .tooLarge:
                readFrom = end
                nextElement += 1
                pointMachineAtBuffer()
                let last = endBeforeWhitespace(from: first, to: end)
                if !machine.pointee.rejectReadingTooManyValues(end: last) {
                    nextElement = elementEnds.count
                    stopAfterCancel(end: end)
                }
            case .handedBack, .notUTF8:
                // Nothing of it reached the machine (``walkRecordWithYajl(from:to:)`` never finds it not UTF-8).
                judgeHandedBackElement(from: first, to: end)
            }
        }
    }

    /// An element the walks did not read (damaged, too deep, a record passed over), judged by yajl. A damaged one
    /// ends the run, failing for its damage alone (as a damaged line does); a well-formed one is passed over.
    private func judgeHandedBackElement(from first: Int, to end: Int) {
        pointMachineAtBuffer()
        let verdict = judge(from: first, to: end, ending: .recordEnd)
        readFrom = end
        nextElement += 1
        guard !failsRun(verdict, recordStart: first) else { return }
        // A number or word ends with the whitespace after it, which is not its text.
        let last = endBeforeWhitespace(from: first, to: end)
        if machine.pointee.passesOverNextRecord {
            if !machine.pointee.passOverRecord(end: last) { endWithMachineRejection() }
        } else {
            failRun(Self.unreadFailure(at: first), end: last)
        }
    }

    /// Ends the run at the damage `verdict` found in the record starting at `recordStart`, where yajl reading the
    /// input from its start would have, but failing for the damage alone; `false` when there is none.
    func failsRun(_ verdict: YajlTokenizer.Verdict, recordStart: Int) -> Bool {
        switch verdict {
        case .malformed(let message, let offset, let insideRecord):
            // A container's record begins at its bracket; a string, number or word, only once it is whole, so an
            // error inside it comes between records, where only the byte before it is shown: never a byte before
            // `recordStart`, which a chunk of elements may not hold, so that the text is the same with any chunks.
            let shownFrom = insideRecord ? recordStart : max(offset - 1, recordStart)
            failRun(syntaxFailure(message, at: offset, within: shownFrom..<input.endOffset), end: min(offset, input.endOffset))
        case .tooDeep(let offset):
            failRun(machine.pointee.tooDeepFailure(at: offset), end: min(offset, input.endOffset))
        case .truncated:
            failRun(.truncated(at: input.endOffset), end: input.endOffset)
        case .noMemory:
            end(with: Self.noMemoryError(source: source.name, at: recordStart))
        case .extraValue(let offset):
            failRun(Rejection.Failure(keyPath: "$", kind: .extraValue, expected: "one JSON value", found: "another value after it", byteOffset: offset),
                    end: min(offset, input.endOffset))
        case .wellFormed:
            return false
        }
        return true
    }

    /// The failure of a record yajl judges well-formed that its walk handed back all the same, which no input is
    /// known to give: rejected, so that it is not lost.
    static func unreadFailure(at offset: Int) -> Rejection.Failure {
        Rejection.Failure(keyPath: "$", kind: .malformedJSON, expected: "a record yajl's walk reads",
                          found: "a well-formed record it handed back", byteOffset: offset)
    }

    /// The run cannot go on when yajl's parser cannot be allocated.
    static func noMemoryError(source: String, at offset: Int) -> SluiceError {
        .io(source: source, byteOffset: offset, message: "the JSON parser could not be allocated (out of memory)")
    }

    /// After a record the machine took and asked to stop at: the rejection policy stopped the run, or a header that
    /// is not one ended it, or the record is rejected and the run ends.
    func stopAfterCancel(end: Int) {
        if machine.pointee.stoppingRejection != nil {
            stopByPolicy()
        } else if machine.pointee.endingRejection != nil {
            endWithMachineRejection()
        } else {
            failRun(nil, end: min(end, input.endOffset))
        }
    }

    /// What follows a chunk's last whole element, which the reader ends after the damage it found (the worker's to
    /// report), or at the input's end: whitespace, or damage, which ends the run where yajl would end it, or a
    /// record the end cuts short, or one value the end ends, which is then walked as the chunk's last element.
    func judgeTail() {
        pointMachineAtBuffer()
        let first = firstNonWhitespace(from: readFrom)
        guard first < input.endOffset else {
            readFrom = input.endOffset
            end(with: nil)
            return
        }
        let verdict = judge(from: first, to: input.endOffset, ending: .inputEnd)
        if verdict == .wellFormed {
            // One value the input's end ends (the reader ends a value only where a byte after it does): an element.
            elementEnds.append(input.endOffset)
        } else {
            _ = failsRun(verdict, recordStart: first)
        }
    }

    /// Maps the chunk's lines as an array's elements, one element and its comma per line (blank lines aside).
    /// Every line before the first holds one (the reader started lines after a comma, and the earlier chunks are
    /// checked before this one is delivered), so each line starts at an element; a walk of the line up to its
    /// comma refuses anything but one value. At the first line that is not one element and its comma, or that the
    /// walks hand back, the chunk ends before it and the array is to be read exactly from there, by the framer, as if
    /// lines had never been tried.
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
            switch machine.pointee.passesOverNextRecord ? .handedBack : walkRecord(from: first, to: element.end) {
            case .read:
                finishLine(keepGoing: machine.pointee.finishDeferredRecord())
            case .cancelled:
                stopAfterCancel(end: element.end)
                machine.pointee.knownRecordStart = nil
            case .noMemory:
                self.end(with: Self.noMemoryError(source: source.name, at: first))
            case .handedBack, .notUTF8, .tooLarge:
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

    func endWithMachineRejection() {
        guard let rejection = machine.pointee.endingRejection else { return }
        end(with: .streamEnded(source: source.name, rejection))
    }

    /// Rejects the record in progress and ends the run: an array or a stream of values cannot be resynchronised.
    func failRun(_ failure: Rejection.Failure?, end recordEnd: Int) {
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
