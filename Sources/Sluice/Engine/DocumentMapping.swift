/// One document, which is one record: read whole and walked by yajl's matched walk, as an NDJSON line is. A document
/// the walk hands back is judged by yajl: damaged, or followed by anything but whitespace, it ends the run where yajl
/// reading it as it arrives would; over `maximumRecordSize`, it is rejected as too large once it is known to be so,
/// unless damage comes first in what was read by then.
extension MappingEngine {
    /// Reads the document whole and walks or judges it.
    func walkDocument() throws(SluiceError) {
        var first = firstNonWhitespace(from: inputStart)
        while !input.isAtEnd {
            // Checked between reads: what was read so far tells whether the document is over the limit.
            if machine.pointee.sizeLimit.isExceeded(from: first, to: input.endOffset) {
                judgeUnfinishedDocument(from: first, thenFailWith: nil)
                return
            }
            do {
                try fillInput()
            } catch {
                // Met where yajl reading the document as it arrives would meet it: after the verdict on what was
                // held before it.
                judgeUnfinishedDocument(from: first, thenFailWith: error)
                return
            }
            first = firstNonWhitespace(from: first)
        }
        let last = endBeforeWhitespace(from: first, to: input.endOffset)
        readFrom = input.endOffset
        guard first < last else {
            failRun(.noValue(at: input.endOffset), end: input.endOffset)
            return
        }
        let fits = !machine.pointee.sizeLimit.isExceeded(from: first, to: last)
        pointMachineAtBuffer()
        machine.pointee.knownRecordStart = first
        machine.pointee.knownRecordLine = 1 + NewlineCounter.count(in: UnsafeBufferPointer(start: input.pointer(at: inputStart), count: first - inputStart))
        // A record passed over (skipped, the header row), which no walk reads, is only judged.
        let walked: WalkStatus = fits && !machine.pointee.passesOverNextRecord ? walkRecord(from: first, to: last) : .handedBack
        switch walked {
        case .read, .cancelled:
            // Everything read was delivered: the input's frame checks cover it.
            machine.pointee.boundary = input.endOffset
            finishWalkedRecord(cancelled: walked == .cancelled, end: last)
        case .noMemory:
            throw Self.noMemoryError(source: source.name, at: first)
        case .tooLarge:
            machine.pointee.boundary = input.endOffset
            finishLine(keepGoing: machine.pointee.rejectReadingTooManyValues(end: last))
        case .handedBack, .notUTF8:
            machine.pointee.knownRecordStart = nil
            judgeWholeDocument(from: first, to: last)
        }
    }

    /// The whole document, in `first..<last` and held to the input's end, which the walk did not read: damage ends
    /// the run; a well-formed one is passed over (a record skipped, the header row) or rejected as too large.
    private func judgeWholeDocument(from first: Int, to last: Int) {
        pointMachineAtBuffer()
        let verdict = judge(from: first, to: input.endOffset, ending: .inputEnd, isDocument: true)
        guard !failsRun(verdict, recordStart: first) else { return }
        // A record passed over is never too large: it is not read.
        if machine.pointee.passesOverNextRecord {
            if !machine.pointee.passOverRecord(end: last) { stopByPolicy() }
        } else if machine.pointee.sizeLimit.isExceeded(from: first, to: last) {
            rejectOversizedDocument(end: last)
        } else {
            failRun(Self.unreadFailure(at: first), end: last)
        }
    }

    /// The document read so far, from `first`, which the input goes on past: damage in it ends the run; without, the
    /// document is over the size limit (`error` is `nil`), or the read that failed ends the run.
    private func judgeUnfinishedDocument(from first: Int, thenFailWith error: SluiceError?) {
        pointMachineAtBuffer()
        readFrom = input.endOffset
        let verdict = judge(from: first, to: input.endOffset, ending: .readSoFar, isDocument: true)
        switch verdict {
        case .malformed, .tooDeep, .noMemory:
            _ = failsRun(verdict, recordStart: first)
        case .wellFormed, .truncated, .extraValue:
            if let error {
                end(with: error)
            } else {
                rejectOversizedDocument(end: input.endOffset)
            }
        }
    }

    /// Rejects the document as over the size limit (its first bytes shown) and ends the run.
    private func rejectOversizedDocument(end: Int) {
        machine.pointee.rejectOversizedRecordInProgress(end: end)
        endWithMachineRejection()
    }
}
