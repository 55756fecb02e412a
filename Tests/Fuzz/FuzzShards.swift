import Sluice

/// NDJSON cut into byte ranges at fuzzed points, with and without a byte order mark in front: the shards together
/// must give exactly the records of one whole run, each once (a record belongs to the range that holds its first
/// byte), with the same values, rejections and byte offsets.
///
/// The first byte says whether a byte order mark goes in front and how many workers read; the next up-to-7 bytes
/// (their count is the first byte's top bits) place the cuts; the rest is the input.
enum FuzzShards {
    static let schema = try? MappingSchema(mappingText: FuzzRecords.fieldMapping)

    static func run(_ bytes: [UInt8]) {
        guard let schema, let flags = bytes.first else { return }
        let cutCount = min(Int(flags >> 5), bytes.count - 1)
        var input = Array(bytes.dropFirst(1 + cutCount))
        if flags & 1 != 0 { input.insert(contentsOf: [0xEF, 0xBB, 0xBF], at: 0) }
        let workers = Int(flags >> 1 & 3) % 3 + 1
        let cuts = Set(bytes.dropFirst().prefix(cutCount).map { Int($0) * (input.count + 1) / 256 })
        let points = [0] + cuts.filter { $0 > 0 && $0 < input.count }.sorted() + [input.count]

        let whole = records(input, schema: schema, workers: workers, range: nil)
        var union: [String] = []
        for (start, end) in zip(points, points.dropFirst()) {
            union += records(input, schema: schema, workers: workers, range: start..<end)
        }
        precondition(union == whole, "shards \(points) with \(workers) workers: \(union) against \(whole)")
    }

    /// Each row and rejection as its byte offset and content (line numbers and ordinals count from a shard's start).
    static func records(_ input: [UInt8], schema: MappingSchema, workers: Int, range: Range<Int>?) -> [String] {
        var options = ReaderOptions(shape: .ndjson, readBufferSize: 4096, batchCapacity: 3, rejectionPolicy: .collect,
                                    workers: workers, chunkSize: 64, memoryBudget: 1 << 20)
        options.byteRange = range
        var numbered: [(offset: Int, text: String)] = []
        do {
            let reader = try ColumnarReader(input: .bytes(input), schema: schema, options: options)
            while let batch = try reader.next() {
                for row in 0..<batch.count {
                    let values = batch.fields.indices.map { FuzzRecords.Transcript.value(batch.column($0), row: row) }
                    numbered.append((batch.location(ofRow: row).byteOffset, values.joined(separator: " ")))
                }
                numbered += batch.rejections.map { ($0.location.byteOffset, "rejected \($0.failures) \($0.rawText)") }
            }
            let statistics = reader.statistics
            precondition(statistics.recordsRead == statistics.recordsMapped + statistics.recordsRejected, "accounting broke: \(statistics)")
        } catch {
            numbered.append((Int.max, "error \(error)"))
        }
        return numbered.sorted { $0.offset < $1.offset }.map { "@\($0.offset) \($0.text)" }
    }
}
