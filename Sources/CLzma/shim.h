#include <lzma.h>

// xz input is decoded on several threads by lzma_stream_decoder_mt, which liblzma has from 5.4.0 (Debian 12,
// Ubuntu 23.04): an older one fails here, by name, instead of at a missing symbol.
#if LZMA_VERSION < 50040002
#error "Sluice needs liblzma 5.4.0 or newer (lzma_stream_decoder_mt): install liblzma-dev from Debian 12 or later"
#endif
