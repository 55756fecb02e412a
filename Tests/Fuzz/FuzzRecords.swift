import Sluice

/// Input bytes through framing and mapping, checked against themselves: every worker count, chunk size and
/// tokenizer must give the same records, rejections, error and counts, and `read == mapped + rejected`.
///
/// The first byte picks the variant (shape, mapping, tokenizer); the rest is the input. The mapping reads dates,
/// enums, lists, nested paths and json, and in other variants a header, skipped records or a records path.
enum FuzzRecords {
    static let fieldMapping = """
        fields:
          - {name: id, type: int64}
          - {name: name, path: user.name, type: string, optional: true}
          - {name: tags, path: "user.tags.*", type: string, optional: true}
          - {name: when, path: created_at, type: date, optional: true}
          - {name: lang, type: enum, values: {en: 1, fr: 2}, default: 0}
          - {name: extra, type: json, optional: true}
          - {name: score, type: double, optional: true, validate: {range: [0, 100]}}
        """
    static let headerMapping = "skip: 1\nheader: true\nfields:\n  - {name: id, type: int64}\n  - {name: name, type: string, optional: true}\n"
    static let wrapperMapping = "records: data.items\nfields:\n  - {name: id, type: int64}\n  - {name: name, path: user.name, type: string, optional: true}\n"

    static let schemas: [MappingSchema] = [fieldMapping, headerMapping, wrapperMapping].compactMap { try? MappingSchema(mappingText: $0) }
    static let shapes: [InputShape] = [.automatic, .ndjson, .array, .concatenated, .document]

    static func run(_ bytes: [UInt8]) {
        guard let selector = bytes.first, schemas.count == 3 else { return }
        let input = Array(bytes.dropFirst())
        let schema = schemas[Int(selector % 3)]
        let shape = shapes[Int(selector / 3 % 5)]
        let tokenizer: TokenizerChoice = selector & 0x80 == 0 ? .simdjson : .yajl
        var reference: Transcript?
        for (workers, chunk) in [(1, 1 << 20), (2, 1), (3, 7), (2, 64)] {
            var options = ReaderOptions(shape: shape, readBufferSize: 4096, batchCapacity: 3, rejectionPolicy: .collect,
                                        workers: workers, chunkSize: chunk, memoryBudget: 1 << 20)
            options.tokenizer = tokenizer
            let transcript = Transcript(input, schema: schema, options: options)
            if let reference {
                precondition(transcript == reference, "\(workers) workers, chunks of \(chunk): \(transcript) against \(reference)")
            } else {
                reference = transcript
            }
        }
    }

    /// What a run gave: each row's location and values, each rejection, the error, the counts.
    struct Transcript: Equatable, CustomStringConvertible {
        var lines: [String] = []
        var error: String?
        var read = 0
        var mapped = 0
        var rejected = 0

        init(_ input: [UInt8], schema: MappingSchema, options: ReaderOptions) {
            // Rows and rejections in record order: where batches end depends on chunks and workers.
            var numbered: [(ordinal: Int, line: String)] = []
            do {
                let reader = try ColumnarReader(input: .bytes(input), schema: schema, options: options)
                defer {
                    let statistics = reader.statistics
                    (read, mapped, rejected) = (statistics.recordsRead, statistics.recordsMapped, statistics.recordsRejected)
                    precondition(read == mapped + rejected, "accounting broke: \(statistics)")
                }
                while let batch = try reader.next() {
                    for row in 0..<batch.count {
                        let location = batch.location(ofRow: row)
                        var line = "\(location)"
                        for index in batch.fields.indices { line += " " + Self.value(batch.column(index), row: row) }
                        numbered.append((location.ordinal, line))
                    }
                    numbered += batch.rejections.map { ($0.location.ordinal, "rejected \($0)") }
                }
            } catch {
                self.error = "\(error)"
            }
            lines = numbered.sorted { $0.ordinal < $1.ordinal }.map(\.line)
        }

        /// A value as text, through the accessor of the column's type (a list reads as its JSON text).
        static func value(_ column: ColumnarBatch.Column, row: Int) -> String {
            if column.isNull(row) { return "null" }
            let field = column.field
            switch field.isList ? .json : field.type {
            case .int64: return column.int64(row).map { String($0) } ?? "?"
            case .uint64: return column.uint64(row).map { String($0) } ?? "?"
            case .date: return column.dateNanoseconds(row).map { "date:" + String($0) } ?? "?"
            case .double: return column.double(row).map { String($0.bitPattern, radix: 16) } ?? "?"
            case .bool: return column.bool(row).map { String($0) } ?? "?"
            case .bytes: return column.bytes(row).map { $0.map { String($0) }.joined(separator: ",") } ?? "?"
            case .string, .json, .url, .enumeration: return "\"" + (column.string(row) ?? "") + "\""
            }
        }

        var description: String { (lines + [error ?? "", "\(read) = \(mapped) + \(rejected)"]).joined(separator: "\n") }
    }
}
