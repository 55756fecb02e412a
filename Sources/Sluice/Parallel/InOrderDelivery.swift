import Foundation

/// The consumer's side: chunk results taken in input order (or read and mapped on the caller's thread), their
/// batches handed out renumbered as by one reader, their counts and the budget they held settled, and what ended a
/// chunk raised once the records before it are delivered.
extension ParallelPipeline {
    func nextBatch() throws(SluiceError) -> ColumnarBatch? {
        if let lentBatch {
            lentBatch.engine?.recycle(lentBatch.batch)
            self.lentBatch = nil
        }
        condition.lock()
        let cancelled = isCancelled
        condition.unlock()
        if cancelled && !hasEnded && pendingError == nil { hasEnded = true }
        while true {
            if let pendingError {
                self.pendingError = nil
                throw end(with: pendingError)
            }
            if hasEnded { return nil }
            if var result = current {
                delivered.handedOut(through: result.chunk.offset + result.chunk.count)
                if currentPosition < result.outcome.batches.count {
                    let batch = result.outcome.batches[currentPosition]
                    currentPosition += 1
                    renumber(batch)
                    lentBatch = (batch, result.engine)
                    lastBatchType = currentType
                    return batch
                }
                try finish(&result)
                current = nil
                if let terminalBatch {
                    self.terminalBatch = nil
                    lentBatch = (terminalBatch, nil)
                    lastBatchType = currentType
                    return terminalBatch
                }
                continue
            }
            guard let result = try waitForNextResult() else {
                hasEnded = true
                return nil
            }
            current = result
            currentType = result.chunk.recordType
            currentPosition = 0
            lineBase += result.chunk.droppedLineFeeds
            count(result)
        }
    }

    private func waitForNextResult() throws(SluiceError) -> ChunkResult? {
        if inline != nil { return try readAndMapNextChunk() }
        condition.lock()
        awaitedIndex = nextIndex
        while results[nextIndex] == nil && !(readerFinished && nextIndex >= chunkCount) && !isCancelled {
            condition.wait(as: .consumer)
        }
        if let result = results.removeValue(forKey: nextIndex) {
            condition.unlock()
            nextIndex += 1
            return result
        }
        let error = readerError
        condition.unlock()
        if let error { throw end(with: error) }
        return nil
    }

    /// The next chunk's result, read and mapped on this thread.
    private func readAndMapNextChunk() throws(SluiceError) -> ChunkResult? {
        guard var inline else { return nil }
        defer { self.inline = inline }
        let chunk: Chunk?
        do {
            chunk = try inline.reader.nextChunk()
        } catch {
            throw end(with: error)
        }
        guard let chunk else { return nil }
        chunkCount += 1
        nextIndex += 1
        return map(chunk, engines: &inline.engines)
    }

    /// Counts a chunk's records, and the keys no field reads among them, once its batches are being delivered (as
    /// one reader counts a batch's records before it hands the batch out).
    private func count(_ result: ChunkResult) {
        if result.chunk.holdsArrayLines { arrayLineChunksDelivered += 1 }
        for (key, count) in result.unmappedKeys { deliveredUnmappedKeys[currentType][key, default: 0] += count }
        let statistics = result.outcome.statistics
        for index in [nil, currentType] as [Int?] {
            var counts = index.map { typeTotals[$0] } ?? totals
            counts.recordsRead += statistics.recordsRead
            counts.recordsMapped += statistics.recordsMapped
            counts.recordsRejected += statistics.recordsRejected
            // An array's lines count up to where reading them stopped: the rest is read again exactly.
            counts.bytesRead += result.chunk.droppedBytes + (result.outcome.exactReadingFrom.map { $0 - result.chunk.offset } ?? result.chunk.count)
            if let index { typeTotals[index] = counts } else { totals = counts }
        }
    }

    /// Accounts for a chunk whose batches are all delivered, and raises what ended it, if anything did.
    private func finish(_ result: inout ChunkResult) throws(SluiceError) {
        let statistics = result.outcome.statistics
        condition.lock()
        budgetInUse -= result.chunk.reservation
        chunksInFlight -= 1
        if let holding = readerWaitsHolding, chunksInFlight <= maximumChunksInFlight / 2 || budgetInUse <= holding {
            condition.wakeOne(.reader)
        }
        condition.unlock()
        if var error = result.outcome.error {
            renumber(&error)
            throw end(with: error)
        }
        ordinalBase += statistics.recordsRead
        lineBase += result.outcome.lineFeeds
        if let offset = result.outcome.exactReadingFrom {
            try readExactly(from: offset)
            return
        }
        if let framing = result.chunk.failure {
            ordinalBase += 1
            lineBase += framing.lineFeedsBefore
            totals.recordsRead += 1
            totals.recordsRejected += 1
            typeTotals[currentType].recordsRead += 1
            typeTotals[currentType].recordsRejected += 1
            let rejection = Rejection(
                location: RecordLocation(ordinal: ordinalBase, line: lineBase + 1, byteOffset: framing.byteOffset),
                failures: [framing.failure], rawText: framing.rawText, isRawTextTruncated: framing.isRawTextTruncated)
            // Reported like a worker's rejections: in a batch of its own, then raised on the next call.
            let batch = ColumnarBatch(fields: plans[currentType].fields, capacity: 1)
            batch.rejections = [rejection]
            // Its tables hold no rows, as any batch of a reader asked for them does.
            options.tablesToFill?.rows(ofMapping: currentType)?.fill(batch)
            terminalBatch = batch
            pendingError = .streamEnded(source: sourceName, rejection)
        }
    }

    /// Goes on from an array's lines to reading it exactly, from the line at `offset` (just after a comma, after
    /// the records delivered so far): the line reader and the workers stop, what they read or mapped past it is
    /// dropped, and a reader that frames every byte starts there, numbering on from the records before.
    private func readExactly(from offset: Int) throws(SluiceError) {
        guard let reopen = reopenForExactReading else {
            // Only a reader that may open the input again cuts lines: nothing after them may be dropped unread.
            throw end(with: .io(source: sourceName, byteOffset: offset, message: "cannot read on from here: the input cannot be opened again"))
        }
        reopenForExactReading = nil
        stopThreads(forGood: false)
        waitUntilStopped()
        condition.lock()
        // Workers that were mapping when the threads stopped left their results behind.
        for result in results.values {
            for batch in result.outcome.batches { result.engine.recycle(batch) }
        }
        results.removeAll()
        guard !isOver else {
            condition.unlock()
            return
        }
        let bytesReadAhead = max((readerBytes ?? offset) - offset, 0)
        (isCancelled, readerFinished, readerError, readerBytes, readerWaitsHolding) = (false, false, nil, nil, nil)
        (chunkCount, nextIndex, awaitedIndex, budgetInUse, chunksInFlight) = (0, 0, 0, 0, 0)
        runningWorkers = workers
        bytesBeforeReader = offset
        condition.unlock()
        let source: any ByteSource
        do {
            source = try reopen(offset, bytesReadAhead)
        } catch {
            condition.lock()
            (readerFinished, runningWorkers) = (true, 0)
            condition.unlock()
            throw end(with: error)
        }
        startThreads(reading: source, from: offset, framing: .exactAfterComma(insideWrapper: plan.recordsPath != nil))
    }

    private func end(with error: SluiceError) -> SluiceError {
        hasEnded = true
        cancel()
        return error
    }

    private func renumber(_ batch: ColumnarBatch) {
        guard ordinalBase != 0 || lineBase != 0 else { return }
        for row in 0..<batch.count {
            batch.ordinals[row] += ordinalBase
            batch.lines[row] += lineBase
        }
        if let tables = tables[currentType] { TableRows.renumber(batch, of: tables, ordinalsBy: ordinalBase, linesBy: lineBase) }
        for index in batch.rejections.indices { renumber(&batch.rejections[index]) }
    }

    private func renumber(_ rejection: inout Rejection) {
        rejection.location.ordinal += ordinalBase
        rejection.location.line += lineBase
    }

    private func renumber(_ error: inout SluiceError) {
        switch error {
        case .rejected(var rejection):
            renumber(&rejection)
            error = .rejected(rejection)
        case .streamEnded(let source, var rejection):
            renumber(&rejection)
            error = .streamEnded(source: source, rejection)
        default:
            break
        }
    }
}
