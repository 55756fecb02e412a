// A record as simdjson's On-Demand walk sees it: its bytes, the document simdjson iterates over them, and the
// positions and checks the walk's steps share.

#ifndef SLUICE_RECORD_VIEW_H
#define SLUICE_RECORD_VIEW_H

#include "token_checks.h"

#include <simdjson.h>

struct record_view {
    const uint8_t *base;
    size_t length;
    simdjson::ondemand::document *document;

    size_t offset(const char *at) const { return size_t(reinterpret_cast<const uint8_t *>(at) - base); }

    /// Just past the bracket that closed the container the walk has left: the last byte before the next token
    /// (or the input's end) that is not whitespace.
    size_t after_closing() {
        const char *next = nullptr;
        size_t at = document->current_location().get(next) == simdjson::SUCCESS ? offset(next) : length;
        while (at > 0 && sluice_tokens::is_whitespace(base[at - 1])) at--;
        return at;
    }

    /// Whether a separator follows the value that ends at `end`: a `,` or a closing bracket, past whitespace. The
    /// iterator does not consume a scalar that is only looked at; it skips it by counting brackets when it moves
    /// on, which would swallow `"a":{…}` after an array's string element instead of calling it malformed.
    bool followed_by_separator(size_t end) const {
        while (end < length && sluice_tokens::is_whitespace(base[end])) end++;
        return end < length && (base[end] == ',' || base[end] == ']' || base[end] == '}');
    }

    /// Whether a value no field reads may be passed over: simdjson skips it by counting brackets from its first
    /// token (which must start a value), and a scalar must end where its token does, as one that is read must.
    bool passable(std::string_view token) const {
        if (token.empty() || !sluice_tokens::starts_value(uint8_t(token[0]))) return false;
        return token[0] == '{' || token[0] == '[' || followed_by_separator(offset(token.data()) + sluice_tokens::trimmed_length(token));
    }
};

#endif
