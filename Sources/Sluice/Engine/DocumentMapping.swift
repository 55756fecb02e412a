/// One document, which is one record: read whole and walked by yajl's matched walk, as an NDJSON line is, instead of
/// streamed through yajl's events. A document the walks hand back is judged by yajl: damaged, or followed by anything
/// but whitespace, it ends the run where one stream would; over `maximumRecordSize`, it is rejected as too large
/// once it is known to be so, unless damage comes first in what was read by then.
extension MappingEngine {
    /// Reads the document whole and walks or judges it; `false` when it is left to the stream (nothing of it reached
    /// the machine).
    func walkDocument() throws(SluiceError) -> Bool {
        isDocumentWalkTried = true
        // The differential tests' reference (no matched walk) streams every document through the events.
        guard shape == .document, tokenizer.matchesRecords, feedFrom == inputStart else { return false }
        var first = firstNonWhitespace(from: inputStart)
        while !input.isAtEnd {
            // Checked between reads, as a stream checks the record in progress once it has read what it holds.
            if machine.pointee.sizeLimit.isExceeded(from: first, to: input.endOffset) {
                judgeUnfinishedDocument(from: first, thenFailWith: nil)
                return true
            }
            do {
                try fillInput()
            } catch {
                // Met where the stream would meet it: after the verdict on what was held before it.
                judgeUnfinishedDocument(from: first, thenFailWith: error)
                return true
            }
            first = firstNonWhitespace(from: first)
        }
        let last = endBeforeWhitespace(from: first, to: input.endOffset)
        guard first < last else {
            feedFrom = input.endOffset
            failStream(.noValue(at: input.endOffset), end: input.endOffset)
            return true
        }
        guard !machine.pointee.sizeLimit.isExceeded(from: first, to: last) else { return judgeWholeDocument(from: first, to: last) }
        pointMachineAtBuffer()
        machine.pointee.knownRecordStart = first
        machine.pointee.knownRecordLine = 1 + NewlineCounter.count(in: UnsafeBufferPointer(start: input.pointer(at: inputStart), count: first - inputStart))
        let walked = walkRecord(from: first, to: last)
        guard walked == .read || walked == .cancelled else {
            machine.pointee.knownRecordStart = nil
            return judgeWholeDocument(from: first, to: last)
        }
        // Everything read was delivered: the input's frame checks cover it.
        machine.pointee.boundary = input.endOffset
        feedFrom = input.endOffset
        finishWalkedRecord(cancelled: walked == .cancelled, end: last)
        if !hasEnded { end(with: nil) }
        return true
    }

    /// The whole document, in `first..<last` and held to the input's end, which neither walk read: damage ends the
    /// run; a well-formed one is passed over (a record skipped, the header row) or rejected as too large. `false` when
    /// it is left to the stream (a well-formed document within the limit that the walks hand back).
    private func judgeWholeDocument(from first: Int, to last: Int) -> Bool {
        pointMachineAtBuffer()
        let verdict = tokenizer.judge(input.pointer(at: first), count: input.endOffset - first, at: first, ending: .inputEnd, isDocument: true)
        if failsStream(verdict, recordStart: first) {
            feedFrom = input.endOffset
            return true
        }
        // A record passed over is never too large: it is not read.
        if machine.pointee.passesOverNextRecord {
            feedFrom = input.endOffset
            if !machine.pointee.passOverRecord(end: last) { stopByPolicy() }
            if !hasEnded { end(with: nil) }
            return true
        }
        guard machine.pointee.sizeLimit.isExceeded(from: first, to: last) else { return false }
        rejectOversizedDocument(end: last)
        return true
    }

    /// The document read so far, from `first`, which the input goes on past: damage in it ends the run; without, the
    /// document is over the size limit (`error` is `nil`), or the read that failed ends the run.
    private func judgeUnfinishedDocument(from first: Int, thenFailWith error: SluiceError?) {
        pointMachineAtBuffer()
        feedFrom = input.endOffset
        let verdict = tokenizer.judge(input.pointer(at: first), count: input.endOffset - first, at: first, ending: .readSoFar, isDocument: true)
        switch verdict {
        case .malformed, .tooDeep:
            _ = failsStream(verdict, recordStart: first)
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
