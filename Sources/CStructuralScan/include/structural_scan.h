#ifndef SLUICE_STRUCTURAL_SCAN_H
#define SLUICE_STRUCTURAL_SCAN_H

#include <stddef.h>
#include <stdint.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// What `sluice_scan_element` found.
enum {
    SLUICE_SCAN_CONTINUES = 0,  /// the bytes ended inside the element (or fewer than 64 were left)
    SLUICE_SCAN_ENDED = 1,      /// the element's last bracket: *position is just past it
    SLUICE_SCAN_TOO_DEEP = 2,   /// nesting beyond the limit: *position is at the bracket
    SLUICE_SCAN_MISMATCHED = 3  /// a closing bracket that does not pair: *position is at it
};

/// The state carried from one block to the next.
typedef struct {
    size_t depth;
    /// Whether the block starts inside a string.
    int in_string;
    /// Whether the block's first byte is escaped (the previous block ended in an odd run of backslashes).
    int escaped;
} sluice_scan_state;

/// Scans the inside of a JSON value (an array element that is an object or array), 64 bytes at a time, from
/// *position while at least 64 bytes are left, tracking strings, escapes and bracket nesting; `closers` holds the
/// closing bracket expected at each depth, or is NULL to count brackets without pairing them by kind (a closing
/// bracket at depth 0 is still a mismatch). Stops at the element's end, at a problem, or when fewer than 64 bytes
/// are left (the caller goes on byte by byte). Only called with depth > 0. Runs the widest build the processor
/// has (see `sluice_scan_widest_build`).
int sluice_scan_element(const uint8_t *bytes, size_t count, size_t *position, sluice_scan_state *state,
                        uint8_t *closers, size_t maximum_depth);

/// The builds of the scan, narrowest first.
enum {
    SLUICE_SCAN_PORTABLE = 0,  /// SSE2 on x86-64, byte by byte elsewhere
    SLUICE_SCAN_AVX2 = 1,
    SLUICE_SCAN_AVX512 = 2     /// AVX-512BW
};

/// The widest build this processor runs: the one `sluice_scan_element` uses.
int sluice_scan_widest_build(void);

/// `sluice_scan_element` with the given build, or -1 when the processor cannot run it (so that tests can hold
/// every build to the same results).
int sluice_scan_element_built(int build, const uint8_t *bytes, size_t count, size_t *position, sluice_scan_state *state,
                              uint8_t *closers, size_t maximum_depth);

/// How many bytes of bytes[0..<count] equal c: with SSE2, 16 bytes per step, the matches summed per byte lane
/// (at most 255 steps before the lanes are added up).
static inline size_t sluice_count_byte(const uint8_t *bytes, size_t count, uint8_t c) {
    size_t total = 0;
    size_t position = 0;
#if defined(__SSE2__)
    const __m128i target = _mm_set1_epi8((char)c);
    const __m128i zero = _mm_setzero_si128();
    while (position + 16 <= count) {
        __m128i lanes = zero;
        for (int step = 0; step < 255 && position + 16 <= count; step++, position += 16) {
            // A match is 0xFF, that is -1: subtracting it adds one to its lane.
            lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(bytes + position)), target));
        }
        const __m128i sums = _mm_sad_epu8(lanes, zero);
        total += (size_t)_mm_cvtsi128_si32(sums) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
    }
#endif
    for (; position < count; position++) total += bytes[position] == c;
    return total;
}

#endif
