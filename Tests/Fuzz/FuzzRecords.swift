import Sluice

/// Input bytes through framing and mapping, checked against themselves: every worker count, chunk size and
/// tokenizer must give the same records, rejections, error and counts, and `read == mapped + rejected`.
///
/// The first byte picks the variant: the mapping (dates, enums, lists, nested paths, json and the whole record as
/// json; skipped records and a header; a records path; 2,000 fields, which the small memory budget must hold; or
/// json fields read beneath), the shape, the tokenizer, and whether a long run of whitespace goes into the input (the
/// second byte says where, how long and of which characters). The rest is the input, which may also be gzip, zstd,
/// bzip2 or xz (the seeds hold each), damaged or not.
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
          - {name: price, path: score, type: decimal, precision: 6, scale: 2, rounding: half-even, optional: true}
          - {name: raw, path: $, type: json}
        """
    static let headerMapping = "skip: 1\nheader: true\nfields:\n  - {name: id, type: int64}\n  - {name: name, type: string, optional: true}\n"
    static let wrapperMapping = "records: data.items\nfields:\n  - {name: id, type: int64}\n  - {name: name, path: user.name, type: string, optional: true}\n"
    static let wideMapping = "fields:\n  - {name: id, type: int64, optional: true}\n"
        + (0..<2000).map { "  - {name: f\($0), path: \($0 % 2 == 0 ? "f\($0)" : "user.f\($0)"), type: string, optional: true}\n" }.joined()

    /// Nested keys, a named element, an ignored key, a json field alone at its node, a json field read beneath.
    static let matchedMapping = """
        ignore: [extra]
        fields:
          - {name: id, type: int64}
          - {name: name, path: user.name, type: string, optional: true}
          - {name: first, path: user.tags.0, type: string, optional: true}
          - {name: tags, path: user.tags, type: json, optional: true}
          - {name: when, path: created_at, type: date, optional: true}
          - {name: lang, type: enum, values: {en: 1, fr: 2}, default: 0}
          - {name: score, type: double, optional: true, validate: {range: [0, 100]}}
          - {name: exact, path: score, type: decimal, precision: 5, scale: 1, optional: true}
          - {name: meta, type: json, optional: true}
        """

    /// Every mapping must compile: a target that quietly lost one would fuzz less than it says.
    static let schemas: [MappingSchema] = [fieldMapping, headerMapping, wrapperMapping, wideMapping, matchedMapping].map { text in
        do {
            return try MappingSchema(mappingText: text)
        } catch {
            preconditionFailure("a fuzz mapping does not compile: \(error)")
        }
    }
    static let shapes: [InputShape] = [.automatic, .ndjson, .array, .concatenated, .document]
    static let whitespace: [[UInt8]] = [[0x20], [0x20, 0x09], [0x0A], [0x20, 0x0D, 0x0A, 0x09]]

    static func run(_ bytes: [UInt8]) {
        guard let selector = bytes.first, schemas.count == 5 else { return }
        var input = Array(bytes.dropFirst())
        let schema = schemas[Int(selector % 5)]
        let shape = shapes[Int(selector / 5 % 5)]
        let tokenizer: TokenizerChoice = selector & 0x80 == 0 ? .simdjson : .yajl
        if selector & 0x40 != 0, let layout = input.first {
            // Up to 64 KiB of whitespace, at a position the layout byte names (enough to show a scan that is not
            // linear; 256 KiB took 24 s of the sanitized build's four runs, past the time limit, though 0.6 s at most
            // in a release build).
            input.removeFirst()
            let characters = whitespace[Int(layout & 3)]
            let length = (Int(layout >> 2) + 1) << 10
            let position = input.isEmpty ? 0 : Int(layout) * 7919 % (input.count + 1)
            input.insert(contentsOf: (0..<length).map { characters[$0 % characters.count] }, at: position)
        }
        let reference = SamePipelines.expect(shape: shape, tokenizer: tokenizer, runs: [(1, 1 << 20), (2, 1), (3, 7), (2, 64)]) { options in
            Transcript(input, schema: schema, options: options)
        }
        if tokenizer == .yajl {
            SamePipelines.expectSimdjsonAgrees(with: reference, findsDamage: \.findsDamage, shape: shape) { options in
                Transcript(input, schema: schema, options: options)
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
        /// Whether a record was damaged or the run ended with an error.
        var findsDamage = false

        init(_ input: [UInt8], schema: MappingSchema, options: ReaderOptions) {
            // Rows and rejections in record order: where batches end depends on chunks and workers.
            var numbered: [(ordinal: Int, line: String)] = []
            var rejections: [Rejection] = []
            do {
                let reader = try ColumnarReader(input: .bytes(input), schema: schema, options: options)
                defer {
                    let statistics = reader.statistics
                    (read, mapped, rejected) = (statistics.recordsRead, statistics.recordsMapped, statistics.recordsRejected)
                    precondition(read == mapped + rejected, "accounting broke: \(statistics)")
                    numbered += rejections.map { ($0.location.ordinal, "rejected \($0)") }
                }
                while let batch = try reader.next() {
                    for row in 0..<batch.count {
                        let location = batch.location(ofRow: row)
                        var line = "\(location)"
                        for index in batch.fields.indices { line += " " + Self.value(batch.column(index), row: row) }
                        numbered.append((location.ordinal, line))
                    }
                    rejections += batch.rejections
                }
            } catch {
                self.error = "\(error)"
            }
            findsDamage = error != nil || rejections.contains(where: SamePipelines.isDamage)
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
            case .string, .json, .url, .enumeration, .decimal: return "\"" + (column.string(row) ?? "") + "\""
            }
        }

        var description: String { (lines + [error ?? "", "\(read) = \(mapped) + \(rejected)"]).joined(separator: "\n") }
    }
}
