/// One document, which is one record: read whole and walked by yajl's matched walk, as an NDJSON line is, instead of
/// streamed through yajl's events. A stream holds a record whole all the same, up to the record size limit; a document over it, or one the
/// walks hand back (damaged, or more than one value), is streamed as before, from its start.
extension MappingEngine {
    /// Reads the document whole and walks it; `false` when it is left to the stream (nothing of it reached the
    /// machine).
    func walkDocument() throws(SluiceError) -> Bool {
        isDocumentWalkTried = true
        guard shape == .document, tokenizer.matchesRecords, machine.pointee.takesMatchedRecords, feedFrom == inputStart else { return false }
        while !input.isAtEnd {
            if machine.pointee.sizeLimit.isExceeded(from: inputStart, to: input.endOffset) { return false }
            do {
                try fillInput()
            } catch {
                // The stream reads what was held first (whose damage, if any, is the verdict) and meets the error
                // where it would have.
                peekError = error
                return false
            }
        }
        let first = firstNonWhitespace(from: inputStart)
        let last = endBeforeWhitespace(from: first, to: input.endOffset)
        guard first < last, !machine.pointee.sizeLimit.isExceeded(from: first, to: last) else { return false }
        pointMachineAtBuffer()
        machine.pointee.knownRecordStart = first
        machine.pointee.knownRecordLine = 1 + NewlineCounter.count(in: UnsafeBufferPointer(start: input.pointer(at: inputStart), count: first - inputStart))
        defer { machine.pointee.knownRecordStart = nil }
        let walked = walkRecord(from: first, to: last)
        guard walked == .read || walked == .cancelled else { return false }
        // Everything read was delivered: the input's frame checks cover it.
        machine.pointee.boundary = input.endOffset
        feedFrom = input.endOffset
        finishWalkedRecord(cancelled: walked == .cancelled, end: last)
        if !hasEnded { end(with: nil) }
        return true
    }
}
