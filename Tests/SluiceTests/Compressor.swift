import CBzip2
import CLzma
import CZlib
import CZstd

/// Compresses test inputs in process, so tests need no `gzip` or `zstd` binary.
enum Compressor {
    /// One gzip member holding `bytes`.
    static func gzip(_ bytes: [UInt8]) -> [UInt8] {
        gzip(bytes, level: 6)
    }

    /// One gzip member holding `bytes`, compressed at `level`: at 0, stored as they are.
    static func gzip(_ bytes: [UInt8], level: Int32) -> [UInt8] {
        var stream = z_stream()
        // 15 + 16: the largest window, with a gzip header.
        guard czlib_deflate_init(&stream, level, 15 + 16) == Z_OK else { return [] }
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

    /// `bytes` cut into members of the sizes given, in turn, compressed at `level`.
    static func gzipMembers(_ bytes: [UInt8], sizes: [Int], level: Int32 = 6) -> (compressed: [UInt8], count: Int) {
        var compressed: [UInt8] = []
        var start = 0
        var count = 0
        while start < bytes.count {
            let end = min(start + sizes[count % sizes.count], bytes.count)
            compressed += Compressor.gzip(Array(bytes[start..<end]), level: level)
            start = end
            count += 1
        }
        return (compressed, count)
    }

    /// `bytes` as `bgzip` writes them: members of up to `pieceSize` bytes whose headers give their lengths in a `BC`
    /// extra field, and an empty member at the end.
    static func bgzf(_ bytes: [UInt8], pieceSize: Int) -> [UInt8] {
        var compressed: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: pieceSize) + [bytes.count] {
            // zlib writes a 10-byte header; the deflate data and the trailer follow it.
            let body = Compressor.gzip(Array(bytes[start..<min(start + pieceSize, bytes.count)])).dropFirst(10)
            let size = 18 + body.count - 1
            compressed += [0x1F, 0x8B, 8, 4, 0, 0, 0, 0, 0, 0xFF, 6, 0, 66, 67, 2, 0, UInt8(size & 0xFF), UInt8(size >> 8)] + body
        }
        return compressed
    }

    /// One bzip2 stream holding `bytes`, in blocks of `blockSize` × 100 kB (1 to 9), as `bzip2 -N` writes.
    static func bzip2(_ bytes: [UInt8], blockSize: Int32 = 9) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: bytes.count + bytes.count / 100 + 600)
        var produced = UInt32(output.count)
        var input = bytes
        let status = input.withUnsafeMutableBytes { inputBuffer in
            output.withUnsafeMutableBytes { outputBuffer in
                BZ2_bzBuffToBuffCompress(outputBuffer.baseAddress?.assumingMemoryBound(to: CChar.self), &produced,
                                         inputBuffer.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(inputBuffer.count), blockSize, 0, 0)
            }
        }
        guard status == BZ_OK else { return [] }
        return Array(output[..<Int(produced)])
    }

    /// One xz stream holding `bytes`, with a CRC-64 check, as `xz -6` writes; `blockSize`: a new block every this
    /// many bytes, as `xz -T` writes (one block when `nil`).
    static func xz(_ bytes: [UInt8], blockSize: Int? = nil) -> [UInt8] {
        var stream = lzma_stream()
        var options = lzma_mt()
        options.flags = 0
        options.threads = 1
        options.block_size = UInt64(blockSize ?? 0)
        options.preset = 6
        options.check = LZMA_CHECK_CRC64
        let started = blockSize == nil ? lzma_easy_encoder(&stream, 6, LZMA_CHECK_CRC64) : lzma_stream_encoder_mt(&stream, &options)
        guard started == LZMA_OK else { return [] }
        defer { lzma_end(&stream) }
        var output = [UInt8](repeating: 0, count: Int(lzma_stream_buffer_bound(bytes.count)) + 4096)
        let produced = bytes.withUnsafeBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer -> Int in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = inputBuffer.count
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = outputBuffer.count
                while true {
                    let status = lzma_code(&stream, LZMA_FINISH)
                    if status == LZMA_STREAM_END { return outputBuffer.count - stream.avail_out }
                    if status != LZMA_OK { return 0 }
                }
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

    /// One zstd frame holding `bytes`, ending with its content checksum (as the `zstd` tool writes by default).
    static func zstdWithChecksum(_ bytes: [UInt8]) -> [UInt8] {
        guard let context = ZSTD_createCCtx() else { return [] }
        defer { ZSTD_freeCCtx(context) }
        ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
        var output = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count) + 64)
        let produced = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                ZSTD_compress2(context, out.baseAddress, out.count, input.baseAddress, input.count)
            }
        }
        guard ZSTD_isError(produced) == 0 else { return [] }
        return Array(output[..<produced])
    }

    /// One zstd frame holding `bytes` whose header asks for a window of `1 << windowLog` bytes, as
    /// `zstd --long` writes when it streams: the content size is left out, so the window is not shrunk to it.
    static func zstd(_ bytes: [UInt8], windowLog: Int32) -> [UInt8] {
        guard let context = ZSTD_createCCtx() else { return [] }
        defer { ZSTD_freeCCtx(context) }
        ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, windowLog)
        ZSTD_CCtx_setParameter(context, ZSTD_c_enableLongDistanceMatching, 1)
        var output = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count) + 64)
        let produced = bytes.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { out -> Int in
                var outBuffer = ZSTD_outBuffer(dst: out.baseAddress, size: out.count, pos: 0)
                var inBuffer = ZSTD_inBuffer(src: source.baseAddress, size: source.count, pos: 0)
                // Continue first, then end with nothing left: ending at once would record the content size.
                guard ZSTD_isError(ZSTD_compressStream2(context, &outBuffer, &inBuffer, ZSTD_e_continue)) == 0 else { return 0 }
                var empty = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
                while true {
                    let left = ZSTD_compressStream2(context, &outBuffer, &empty, ZSTD_e_end)
                    if ZSTD_isError(left) != 0 { return 0 }
                    if left == 0 { return outBuffer.pos }
                }
            }
        }
        return Array(output[..<produced])
    }
}
