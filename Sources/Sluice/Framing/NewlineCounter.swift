import CStructuralScan

/// Counts line feeds, for the line numbers of records in streams that are not NDJSON: 64 bytes at a time with
/// SSE2 byte masks (the structural scan's), which is what keeps line numbers nearly free on array files.
enum NewlineCounter {
    static func count(in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        return sluice_count_byte(base, bytes.count, 0x0A)
    }
}
