// The simdjson parser behind the C interface's opaque handle, and what callers ask of simdjson before they walk.

#include "sluice_simdjson.h"
#include "parser_state.h"

#include <simdjson.h>

#include <new>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

using namespace simdjson;

extern "C" {

size_t sluice_simdjson_padding(void) { return SIMDJSON_PADDING; }

const char *sluice_simdjson_kernel(void) { return get_active_implementation()->name().c_str(); }

sluice_simdjson_parser *sluice_simdjson_parser_create(size_t maximum_depth, size_t tape_limit) {
    return new (std::nothrow) sluice_simdjson_parser{ondemand::parser(), maximum_depth, {}, tape_limit};
}

void sluice_simdjson_parser_free(sluice_simdjson_parser *parser) { delete parser; }

void sluice_simdjson_parser_walk_indexes(sluice_simdjson_parser *parser, bool walks) { parser->walks_indexes = walks; }

size_t sluice_simdjson_indexed_records(const sluice_simdjson_parser *parser) { return parser->indexed_records; }

bool sluice_is_utf8(const uint8_t *bytes, size_t length) { return validate_utf8(reinterpret_cast<const char *>(bytes), length); }

size_t sluice_count_openings(const uint8_t *bytes, size_t length) {
    size_t count = 0;
    size_t i = 0;
#if defined(__SSE2__)
    // '{' and '[' differ only in bit 0x20: one comparison after setting it finds both.
    const __m128i fold = _mm_set1_epi8(0x20);
    const __m128i brace = _mm_set1_epi8('{');
    auto mask = [&](size_t at) {
        __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i *>(bytes + at));
        return uint64_t(unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_or_si128(block, fold), brace))));
    };
    for (; i + 64 <= length; i += 64) {
        count += size_t(__builtin_popcountll(mask(i) | mask(i + 16) << 16 | mask(i + 32) << 32 | mask(i + 48) << 48));
    }
#endif
    for (; i < length; i++) count += (bytes[i] | 0x20) == '{';
    return count;
}

}
