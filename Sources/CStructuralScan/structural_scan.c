// The 64-byte block scanner, in three builds: SSE2 (every x86-64 processor), AVX2 and AVX-512BW, chosen once at run
// time, so that the package needs no processor flags. The block's four masks are the only difference between them.
#include "structural_scan.h"
#include <stdatomic.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

/// The positions of backslashes, quotes, opening and closing brackets in a 64-byte block, one bit a byte.
typedef struct {
    uint64_t backslashes, quotes, opens, closes;
} block_masks;

/// Bit i: the parity of the set bits at positions 0...i.
static inline uint64_t prefix_xor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

static inline block_masks masks_portable(const uint8_t *block) {
    block_masks m = {0, 0, 0, 0};
#if defined(__SSE2__)
    const __m128i backslash = _mm_set1_epi8('\\'), quote = _mm_set1_epi8('"');
    const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}'), fold = _mm_set1_epi8(0x20);
    for (int part = 0; part < 4; part++) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(block + 16 * part));
        // `[` and `]` are `{` and `}` with bit 5 clear: one comparison each covers both kinds.
        const __m128i folded = _mm_or_si128(v, fold);
        const int shift = 16 * part;
        m.backslashes |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)) << shift;
        m.quotes |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) << shift;
        m.opens |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(folded, open)) << shift;
        m.closes |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(folded, close)) << shift;
    }
#else
    for (int i = 0; i < 64; i++) {
        const uint8_t byte = block[i], folded = byte | 0x20;
        m.backslashes |= (uint64_t)(byte == '\\') << i;
        m.quotes |= (uint64_t)(byte == '"') << i;
        m.opens |= (uint64_t)(folded == '{') << i;
        m.closes |= (uint64_t)(folded == '}') << i;
    }
#endif
    return m;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) static inline block_masks masks_avx2(const uint8_t *block) {
    const __m256i low = _mm256_loadu_si256((const __m256i *)block);
    const __m256i high = _mm256_loadu_si256((const __m256i *)(block + 32));
    const __m256i fold = _mm256_set1_epi8(0x20);
    const __m256i low_folded = _mm256_or_si256(low, fold), high_folded = _mm256_or_si256(high, fold);
#define SLUICE_MASK(l, h, c)                                                                  \
    ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(l, _mm256_set1_epi8(c))) |   \
     (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(h, _mm256_set1_epi8(c))) << 32)
    block_masks m = {
        SLUICE_MASK(low, high, '\\'), SLUICE_MASK(low, high, '"'),
        SLUICE_MASK(low_folded, high_folded, '{'), SLUICE_MASK(low_folded, high_folded, '}'),
    };
#undef SLUICE_MASK
    return m;
}

__attribute__((target("avx512bw"))) static inline block_masks masks_avx512(const uint8_t *block) {
    const __m512i v = _mm512_loadu_si512((const void *)block);
    const __m512i folded = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    block_masks m = {
        _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\')), _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"')),
        _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('{')), _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('}')),
    };
    return m;
}
#endif

/// The scan, with the block's masks made by `masks` (inlined into each build).
__attribute__((always_inline)) static inline int scan(const uint8_t *bytes, size_t count, size_t *position,
                                                      sluice_scan_state *state, uint8_t *closers, size_t maximum_depth,
                                                      block_masks (*masks)(const uint8_t *)) {
    size_t at = *position;
    while (at + 64 <= count) {
        const uint8_t *block = bytes + at;
        const block_masks m = masks(block);
        // Escaped bytes: each backslash that is not itself escaped escapes the byte after it. A run of backslashes
        // escapes the byte after it when the run is odd; the runs are told apart by the parity of where they start,
        // which one addition finds for every run of the block at once (no loop whose length the branch predictor
        // must guess).
        const uint64_t even_bits = 0x5555555555555555ULL;
        const uint64_t carried = state->escaped ? 1 : 0;
        const uint64_t backslashes = m.backslashes & ~carried;
        const uint64_t follows_backslash = (backslashes << 1) | carried;
        const uint64_t odd_starts = backslashes & ~even_bits & ~follows_backslash;
        uint64_t even_start_runs_end;
        const int carry_out = __builtin_add_overflow(odd_starts, backslashes, &even_start_runs_end);
        const uint64_t escaped = ((even_bits ^ (even_start_runs_end << 1)) & follows_backslash) | carried;
        const uint64_t quotes = m.quotes & ~escaped;
        const uint64_t inside = prefix_xor(quotes) ^ (state->in_string ? ~(uint64_t)0 : 0);
        uint64_t brackets = (m.opens | m.closes) & ~inside & ~escaped;
        while (brackets) {
            int bit = __builtin_ctzll(brackets);
            brackets &= brackets - 1;
            uint8_t byte = block[bit];
            if ((m.opens >> bit) & 1) {
                if (state->depth >= maximum_depth) {
                    *position = at + (size_t)bit;
                    return SLUICE_SCAN_TOO_DEEP;
                }
                if (closers) closers[state->depth] = (uint8_t)(byte + 2);  // `}` and `]` sit two code points after `{` and `[`
                state->depth += 1;
            } else {
                if (state->depth == 0 || (closers && closers[state->depth - 1] != byte)) {
                    *position = at + (size_t)bit;
                    return SLUICE_SCAN_MISMATCHED;
                }
                state->depth -= 1;
                if (state->depth == 0) {
                    state->in_string = 0;
                    state->escaped = 0;
                    *position = at + (size_t)bit + 1;
                    return SLUICE_SCAN_ENDED;
                }
            }
        }
        state->in_string = (int)(inside >> 63);
        state->escaped = carry_out;
        at += 64;
    }
    *position = at;
    return SLUICE_SCAN_CONTINUES;
}

static int scan_portable(const uint8_t *bytes, size_t count, size_t *position, sluice_scan_state *state,
                         uint8_t *closers, size_t maximum_depth) {
    return scan(bytes, count, position, state, closers, maximum_depth, masks_portable);
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) static int scan_avx2(const uint8_t *bytes, size_t count, size_t *position,
                                                     sluice_scan_state *state, uint8_t *closers, size_t maximum_depth) {
    return scan(bytes, count, position, state, closers, maximum_depth, masks_avx2);
}

__attribute__((target("avx512bw"))) static int scan_avx512(const uint8_t *bytes, size_t count, size_t *position,
                                                         sluice_scan_state *state, uint8_t *closers, size_t maximum_depth) {
    return scan(bytes, count, position, state, closers, maximum_depth, masks_avx512);
}

/// The widest build the processor runs and the system saves the registers of.
static int widest_build(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX)) return SLUICE_SCAN_PORTABLE;
    unsigned low, high;
    __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    if ((low & 0x6) != 0x6 || __get_cpuid_max(0, 0) < 7) return SLUICE_SCAN_PORTABLE;  // the XMM and YMM state
    __cpuid_count(7, 0, a, b, c, d);
    if ((b & bit_AVX512BW) && (low & 0xE0) == 0xE0) return SLUICE_SCAN_AVX512;  // and the mask and ZMM state
    return (b & bit_AVX2) ? SLUICE_SCAN_AVX2 : SLUICE_SCAN_PORTABLE;
}
#endif

int sluice_scan_widest_build(void) {
#if defined(__x86_64__)
    // -1 until the first call asks the processor; every thread computes the same answer.
    static _Atomic int chosen = -1;
    int build = atomic_load_explicit(&chosen, memory_order_relaxed);
    if (build < 0) {
        build = widest_build();
        atomic_store_explicit(&chosen, build, memory_order_relaxed);
    }
    return build;
#else
    return SLUICE_SCAN_PORTABLE;
#endif
}

int sluice_scan_element_built(int build, const uint8_t *bytes, size_t count, size_t *position, sluice_scan_state *state,
                              uint8_t *closers, size_t maximum_depth) {
    if (build > sluice_scan_widest_build()) return -1;
#if defined(__x86_64__)
    if (build == SLUICE_SCAN_AVX512) return scan_avx512(bytes, count, position, state, closers, maximum_depth);
    if (build == SLUICE_SCAN_AVX2) return scan_avx2(bytes, count, position, state, closers, maximum_depth);
#endif
    return scan_portable(bytes, count, position, state, closers, maximum_depth);
}

int sluice_scan_element(const uint8_t *bytes, size_t count, size_t *position, sluice_scan_state *state,
                        uint8_t *closers, size_t maximum_depth) {
    return sluice_scan_element_built(sluice_scan_widest_build(), bytes, count, position, state, closers, maximum_depth);
}
