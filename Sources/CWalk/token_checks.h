// The checks both walks make on the tokens simdjson hands them: simdjson's On-Demand API passes over what it is not
// asked to read, so the walks check by hand what a validating parser would.

#ifndef SLUICE_TOKEN_CHECKS_H
#define SLUICE_TOKEN_CHECKS_H

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sluice_tokens {

inline bool is_whitespace(uint8_t byte) { return byte == ' ' || byte == '\n' || byte == '\r' || byte == '\t'; }

/// JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
inline bool is_number(const uint8_t *text, size_t length) {
    size_t i = 0;
    auto digits = [&]() {
        size_t start = i;
        while (i < length && text[i] >= '0' && text[i] <= '9') i++;
        return i > start;
    };
    if (i < length && text[i] == '-') i++;
    if (i < length && text[i] == '0') {
        i++;
    } else if (!digits()) {
        return false;
    }
    if (i < length && text[i] == '.') {
        i++;
        if (!digits()) return false;
    }
    if (i < length && (text[i] == 'e' || text[i] == 'E')) {
        i++;
        if (i < length && (text[i] == '+' || text[i] == '-')) i++;
        if (!digits()) return false;
    }
    return i == length;
}

/// The end of a token's text, without the whitespace simdjson's raw token carries.
inline size_t trimmed_length(std::string_view token) {
    size_t length = token.size();
    while (length > 0 && is_whitespace(uint8_t(token[length - 1]))) length--;
    return length;
}

inline bool starts_value(uint8_t byte) {
    switch (byte) {
    case '{': case '[': case '"': case '-': case 't': case 'f': case 'n':
        return true;
    default:
        return byte >= '0' && byte <= '9';
    }
}

}  // namespace sluice_tokens

#endif
