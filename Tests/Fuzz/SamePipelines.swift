import Sluice

/// Reads one input under several pipelines (workers, chunk size) and requires the same result from each: the fuzz
/// targets that compare paths which must agree read through here.
enum SamePipelines {
    /// The options of one run: small reads, batches and budget, so that their edges are met often.
    static func options(shape: InputShape, tokenizer: TokenizerChoice, workers: Int, chunk: Int) -> ReaderOptions {
        var options = ReaderOptions(shape: shape, readBufferSize: 4096, batchCapacity: 3, rejectionPolicy: .collect,
                                    workers: workers, chunkSize: chunk, memoryBudget: 1 << 20)
        options.tokenizer = tokenizer
        return options
    }

    /// The result of the first run, which every other run gave too.
    @discardableResult
    static func expect<Result: Equatable>(
        shape: InputShape, tokenizer: TokenizerChoice, runs: [(workers: Int, chunk: Int)], _ read: (ReaderOptions) -> Result
    ) -> Result? {
        var reference: Result?
        for (workers, chunk) in runs {
            let result = read(options(shape: shape, tokenizer: tokenizer, workers: workers, chunk: chunk))
            if let reference {
                precondition(result == reference, "\(workers) workers, chunks of \(chunk): \(result) against \(reference)")
            } else {
                reference = result
            }
        }
        return reference
    }

    /// Whether `rejection` says its record is no well-formed JSON value within the limits, as yajl judges it.
    static func isDamage(_ rejection: Rejection) -> Bool {
        rejection.failures.contains { [.malformedJSON, .truncated, .extraValue, .nestingTooDeep, .recordTooLarge].contains($0.kind) }
    }

    /// With yajl, which checks every record whole, a run without damage or error must read the same with simdjson,
    /// which differs only on damage no field reads and on ill-formed UTF-8 (docs/tokenizers.md), which it rejects.
    static func expectSimdjsonAgrees<Result: Equatable & CustomStringConvertible>(
        with yajl: Result?, findsDamage: (Result) -> Bool, shape: InputShape, _ read: (ReaderOptions) -> Result
    ) {
        guard let yajl, !findsDamage(yajl) else { return }
        let simdjson = read(options(shape: shape, tokenizer: .simdjson, workers: 1, chunk: 1 << 20))
        precondition(simdjson == yajl || simdjson.description.contains("well-formed UTF-8"), "simdjson: \(simdjson) against yajl: \(yajl)")
    }
}
