import Sluice

/// Mapping-file text (YAML or JSON): it compiles or is refused with an error, never a crash or unbounded work
/// (alias bombs, deep nesting, huge key paths); what compiles maps a small record.
enum FuzzMappingFile {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let schema = try? MappingSchema(mappingText: text) else { return }
        let record = Array(#"{"id":1,"user":{"name":"a","tags":["x","y"]},"created_at":"2026-01-01T00:00:00Z","lang":"en"}"#.utf8)
        guard let reader = try? ColumnarReader(input: .bytes(record), schema: schema, options: ReaderOptions(rejectionPolicy: .collect)) else { return }
        while (try? reader.next()) ?? nil != nil {}
        let statistics = reader.statistics
        precondition(statistics.recordsRead == statistics.recordsMapped + statistics.recordsRejected, "accounting broke: \(statistics)")
    }
}
