extension InputShard {
    /// Where a shard starts in the terms of a split's targets: an offset of the stored file, which for a
    /// compressed file is where the shard's frame or block starts.
    var cutOffset: Int { decodingStart?.storedOffset ?? byteRange.lowerBound }
}

/// Where shards end: at the first record start at or after each target offset; targets that fall inside one
/// record (or one piece of an index) give no empty shards.
struct ShardCuts {
    let targets: [Int]
    /// The next target to cut at.
    private var next = 0

    init(targets: [Int]) { self.targets = targets }

    /// Whether a shard that started at `shardStart` ends before a record starting at `offset`.
    mutating func cuts(at offset: Int, after shardStart: Int) -> Bool {
        guard next < targets.count, offset >= targets[next], offset > shardStart else { return false }
        while next < targets.count && targets[next] <= offset { next += 1 }
        return true
    }
}
