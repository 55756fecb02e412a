// The checks both walks make on the tokens simdjson hands them: simdjson's On-Demand API passes over what it is not
// asked to read, so the walks check by hand what a validating parser would.

#ifndef SLUICE_TOKEN_CHECKS_H
#define SLUICE_TOKEN_CHECKS_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string_view>

namespace sluice_tokens {

inline bool is_whitespace(uint8_t byte) { return byte == ' ' || byte == '\n' || byte == '\r' || byte == '\t'; }

/// How many of the bytes from `text` on are digits, counting no further than `limit`; reads whole words, so up to 8
/// bytes past `text + limit` must be readable (simdjson's padding guarantees it).
inline size_t digit_run(const uint8_t *text, size_t limit) {
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "a word's first byte is its lowest: the first not a digit is found by counting trailing zeros");
    size_t run = 0;
    for (;;) {
        uint64_t word;
        std::memcpy(&word, text + run, 8);
        // A byte's high bit is set unless it is a digit: digits become 0..9 after the xor, and adding 0x76 reaches
        // 0x80 from 10 on. A carry only runs towards later bytes, past the first that is not a digit.
        const uint64_t folded = word ^ 0x3030303030303030;
        const uint64_t not_digits = (folded | (folded + 0x7676767676767676)) & 0x8080808080808080;
        if (not_digits != 0) {
            run += size_t(__builtin_ctzll(not_digits)) / 8;
            return run < limit ? run : limit;
        }
        run += 8;
        if (run >= limit) return limit;
    }
}

/// JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. Reads up to 8 bytes past the text.
[[gnu::always_inline]] inline bool is_number(const uint8_t *text, size_t length) {
    size_t i = 0;
    if (length > 0 && text[0] == '-') i++;
    size_t run = digit_run(text + i, length - i);
    if (run == 0 || (run > 1 && text[i] == '0')) return false;
    i += run;
    if (i == length) return true;
    if (text[i] == '.') {
        i++;
        run = digit_run(text + i, length - i);
        if (run == 0) return false;
        i += run;
        if (i == length) return true;
    }
    if (text[i] != 'e' && text[i] != 'E') return false;
    i++;
    if (i < length && (text[i] == '+' || text[i] == '-')) i++;
    run = digit_run(text + i, length - i);
    return run > 0 && i + run == length;
}

/// Whether the `length` bytes at `text` hold a backslash; reads whole blocks, so up to 16 bytes past the text must be
/// readable. Most strings are short and hold none: a call to memchr costs more than the search.
inline bool has_backslash(const uint8_t *text, size_t length) {
#if defined(__SSE2__)
    const __m128i backslashes = _mm_set1_epi8('\\');
    for (size_t offset = 0; offset < length; offset += 16) {
        const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i *>(text + offset));
        uint32_t found = uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(block, backslashes)));
        const size_t left = length - offset;
        if (left < 16) found &= (uint32_t(1) << left) - 1;
        if (found != 0) return true;
    }
    return false;
#else
    return std::memchr(text, '\\', length) != nullptr;
#endif
}

/// The end of a token's text, without the whitespace simdjson's raw token carries.
inline size_t trimmed_length(std::string_view token) {
    size_t length = token.size();
    while (length > 0 && is_whitespace(uint8_t(token[length - 1]))) length--;
    return length;
}

/// The bytes a JSON value can start with: a table, for every member's value is checked.
inline constexpr struct value_start_table {
    bool values[256] = {};
    constexpr value_start_table() {
        for (uint8_t byte : {'{', '[', '"', '-', 't', 'f', 'n'}) values[byte] = true;
        for (uint8_t byte = '0'; byte <= '9'; byte++) values[byte] = true;
    }
} value_starts;

inline bool starts_value(uint8_t byte) { return value_starts.values[byte]; }

}  // namespace sluice_tokens

#endif
