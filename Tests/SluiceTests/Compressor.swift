import CZlib
import CZstd

/// Compresses test inputs in process, so tests need no `gzip` or `zstd` binary.
enum Compressor {
    /// One gzip member holding `bytes`.
    static func gzip(_ bytes: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        // 15 + 16: the largest window, with a gzip header.
        guard czlib_deflate_init(&stream, 6, 15 + 16) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 64)
        var input = bytes
        let produced = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer -> Int in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = UInt32(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = UInt32(outputBuffer.count)
                guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { return 0 }
                return outputBuffer.count - Int(stream.avail_out)
            }
        }
        return Array(output[..<produced])
    }

    /// One zstd frame holding `bytes`.
    static func zstd(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count))
        let produced = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                ZSTD_compress(out.baseAddress, out.count, input.baseAddress, input.count, 3)
            }
        }
        guard ZSTD_isError(produced) == 0 else { return [] }
        return Array(output[..<produced])
    }
}
