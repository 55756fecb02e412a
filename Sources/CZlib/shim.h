#include <zlib.h>

// inflateInit2 is a macro, which Swift cannot call.
static inline int czlib_inflate_init(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

// deflateInit2 is a macro too (used by tests and the fixture writer to make gzip members).
static inline int czlib_deflate_init(z_stream *stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
