import Sluice

/// Reads one input under several pipelines (workers, chunk size, whether keys are matched in the walk) and requires
/// the same result from each: the fuzz targets that compare paths which must agree read through here.
enum SamePipelines {
    static func expect<Result: Equatable>(
        shape: InputShape, tokenizer: TokenizerChoice, runs: [(workers: Int, chunk: Int, matchesKeys: Bool)], _ read: (ReaderOptions) -> Result
    ) {
        var reference: Result?
        for (workers, chunk, matchesKeys) in runs {
            var options = ReaderOptions(shape: shape, readBufferSize: 4096, batchCapacity: 3, rejectionPolicy: .collect,
                                        workers: workers, chunkSize: chunk, memoryBudget: 1 << 20)
            options.tokenizer = tokenizer
            options.matchesKeysInWalk = matchesKeys
            let result = read(options)
            if let reference {
                precondition(result == reference, "\(workers) workers, chunks of \(chunk), keys matched in the walk \(matchesKeys): \(result) against \(reference)")
            } else {
                reference = result
            }
        }
    }
}
