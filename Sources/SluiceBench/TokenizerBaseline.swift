import CYajl
import Foundation

/// yajl over an input with every callback installed and empty, numbers delivered as raw text: the most any
/// mapping built on this tokenizer can reach, which benchmarks report Sluice against.
public enum TokenizerBaseline {
    /// Tokenizes the file at `path` (a stream of values) in reads of `readBufferSize` bytes and returns the number
    /// of bytes read.
    /// - Throws: ``BenchError`` when the file cannot be read or is not well-formed JSON (the baseline has no use for
    ///   malformed input).
    public static func tokenize(file path: String, readBufferSize: Int = 1 << 20) throws -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw BenchError("cannot open \(path)") }
        defer { try? handle.close() }
        return try tokenize(name: path) { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            let count = read(handle.fileDescriptor, base, min(buffer.count, readBufferSize))
            guard count >= 0 else { throw BenchError("\(path): read failed (errno \(errno))") }
            return count
        }
    }

    /// Tokenizes `bytes` (a stream of values) and returns their count.
    public static func tokenize(bytes: [UInt8]) throws -> Int {
        var offset = 0
        return try tokenize(name: "<memory>") { buffer in
            let count = min(buffer.count, bytes.count - offset)
            bytes.withUnsafeBytes { source in
                if count > 0, let from = source.baseAddress { buffer.baseAddress?.copyMemory(from: from + offset, byteCount: count) }
            }
            offset += count
            return count
        }
    }

    private static func tokenize(name: String, readBufferSize: Int = 1 << 20, read: (UnsafeMutableRawBufferPointer) throws -> Int) throws -> Int {
        var callbacks = yajl_callbacks()
        callbacks.yajl_null = { _ in 1 }
        callbacks.yajl_boolean = { _, _ in 1 }
        callbacks.yajl_number = { _, _, _ in 1 }
        callbacks.yajl_string = { _, _, _ in 1 }
        callbacks.yajl_start_map = { _ in 1 }
        callbacks.yajl_map_key = { _, _, _ in 1 }
        callbacks.yajl_end_map = { _ in 1 }
        callbacks.yajl_start_array = { _ in 1 }
        callbacks.yajl_end_array = { _ in 1 }
        return try withUnsafePointer(to: &callbacks) { pointer in
            guard let handle = yajl_alloc(pointer, nil, nil) else { throw BenchError("yajl_alloc failed") }
            defer { yajl_free(handle) }
            _ = cyajl_config_flag(handle, yajl_allow_multiple_values, 1)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readBufferSize, alignment: 16)
            defer { buffer.deallocate() }
            var total = 0
            while true {
                let count = try read(buffer)
                if count == 0 { break }
                total += count
                guard let base = buffer.baseAddress,
                      yajl_parse(handle, base.assumingMemoryBound(to: UInt8.self), count) == yajl_status_ok else {
                    throw BenchError("\(name): not well-formed JSON near byte \(total)")
                }
            }
            guard yajl_complete_parse(handle) == yajl_status_ok else { throw BenchError("\(name): not well-formed JSON at its end") }
            return total
        }
    }
}
