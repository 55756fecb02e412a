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

/// Bit i set where bytes[i] == c, for 64 bytes.
static inline uint64_t sluice_mask_equal(const uint8_t *bytes, uint8_t c, uint8_t fold) {
#if defined(__SSE2__)
    const __m128i target = _mm_set1_epi8((char)c);
    const __m128i folding = _mm_set1_epi8((char)fold);
    uint64_t mask = 0;
    for (int part = 0; part < 4; part++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(bytes + 16 * part));
        v = _mm_or_si128(v, folding);
        mask |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, target)) << (16 * part);
    }
    return mask;
#else
    uint64_t mask = 0;
    for (int i = 0; i < 64; i++) mask |= (uint64_t)((uint8_t)(bytes[i] | fold) == c) << i;
    return mask;
#endif
}

/// Bit i: the parity of the set bits at positions 0...i.
static inline uint64_t sluice_prefix_xor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/// Scans the inside of a JSON value (an array element that is an object or array), 64 bytes at a time, from
/// *position while at least 64 bytes are left, tracking strings, escapes and bracket nesting; `closers` holds the
/// closing bracket expected at each depth. Stops at the element's end, at a problem, or when fewer than 64 bytes
/// are left (the caller goes on byte by byte). Only called with depth > 0.
static inline int sluice_scan_element(const uint8_t *bytes, size_t count, size_t *position, sluice_scan_state *state,
                                      uint8_t *closers, size_t maximum_depth) {
    size_t at = *position;
    while (at + 64 <= count) {
        const uint8_t *block = bytes + at;
        uint64_t backslashes = sluice_mask_equal(block, '\\', 0);
        uint64_t quotes = sluice_mask_equal(block, '"', 0);
        // `[` and `]` are `{` and `}` with bit 5 clear: one comparison each covers both kinds.
        uint64_t opens = sluice_mask_equal(block, '{', 0x20);
        uint64_t closes = sluice_mask_equal(block, '}', 0x20);

        // Escaped bytes: each backslash that is not itself escaped escapes the byte after it.
        uint64_t escaped = 0;
        int carry_out = 0;
        if (state->escaped) {
            escaped |= 1;
            backslashes &= ~(uint64_t)1;
        }
        while (backslashes) {
            int bit = __builtin_ctzll(backslashes);
            backslashes &= backslashes - 1;
            if (bit == 63) {
                carry_out = 1;
            } else {
                uint64_t next = (uint64_t)1 << (bit + 1);
                escaped |= next;
                backslashes &= ~next;
            }
        }
        quotes &= ~escaped;
        uint64_t inside = sluice_prefix_xor(quotes) ^ (state->in_string ? ~(uint64_t)0 : 0);
        uint64_t brackets = (opens | closes) & ~inside & ~escaped;
        while (brackets) {
            int bit = __builtin_ctzll(brackets);
            brackets &= brackets - 1;
            uint8_t byte = block[bit];
            if ((opens >> bit) & 1) {
                if (state->depth >= maximum_depth) {
                    *position = at + (size_t)bit;
                    return SLUICE_SCAN_TOO_DEEP;
                }
                closers[state->depth] = (uint8_t)(byte + 2);  // `}` and `]` sit two code points after `{` and `[`
                state->depth += 1;
            } else {
                if (state->depth == 0 || closers[state->depth - 1] != byte) {
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
