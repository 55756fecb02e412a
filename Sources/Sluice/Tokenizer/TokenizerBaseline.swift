import CYajl

/// yajl over an input with every callback installed and empty, numbers delivered as raw text: the most any
/// mapping built on this tokenizer can reach, which benchmarks report Sluice against.
public enum TokenizerBaseline {
    /// Tokenizes the whole input (a stream of values) and returns the number of bytes read.
    /// - Throws: ``SluiceError/io(source:byteOffset:message:)``, or ``SluiceError/invalidOptions(_:)`` when the
    ///   input is not well-formed JSON (the baseline has no use for malformed input).
    public static func tokenize(_ input: Input, readBufferSize: Int = 1 << 20) throws(SluiceError) -> Int {
        var source = try input.open()
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
        return try withUnsafePointer(to: &callbacks) { (pointer) throws(SluiceError) -> Int in
            guard let handle = yajl_alloc(pointer, nil, nil) else { throw .invalidOptions("yajl_alloc failed") }
            defer { yajl_free(handle) }
            _ = cyajl_config_flag(handle, yajl_allow_multiple_values, 1)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readBufferSize, alignment: 16)
            defer { buffer.deallocate() }
            var total = 0
            while true {
                let count = try source.read(into: buffer)
                if count == 0 { break }
                total += count
                guard let base = buffer.baseAddress,
                      yajl_parse(handle, base.assumingMemoryBound(to: UInt8.self), count) == yajl_status_ok else {
                    throw .invalidOptions("\(source.name): not well-formed JSON near byte \(total)")
                }
            }
            guard yajl_complete_parse(handle) == yajl_status_ok else {
                throw .invalidOptions("\(source.name): not well-formed JSON at its end")
            }
            return total
        }
    }
}
