#include <zlib.h>

// inflateInit2 is a macro, which Swift cannot call.
static inline int czlib_inflate_init(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
