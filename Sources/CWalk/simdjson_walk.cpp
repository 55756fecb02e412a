// Walks one JSON value with simdjson On-Demand and reports it as events. Values the consumer does not want are
// skipped by simdjson itself; numbers are reported as their raw text so that every exact conversion rule applies.

#include "sluice_simdjson.h"
#include "parser_state.h"
#include "record_view.h"

#include <simdjson.h>

#include <cstring>
#include <new>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

using namespace simdjson;
using namespace sluice_tokens;

namespace {

struct walker : record_view {
    const sluice_json_events *events;
    void *context;
    size_t maximum_depth;

    /// Reports the scalar whose raw token is `token`, read from `source` (a value, or the document itself when the
    /// record is a bare scalar); `end` is set to the offset just past it.
    template <typename Source>
    sluice_walk_status scalar(Source &source, std::string_view token, ondemand::json_type type, size_t &end) {
        const uint8_t *start = reinterpret_cast<const uint8_t *>(token.data());
        size_t size = trimmed_length(token);
        end = offset(token.data()) + size;
        int keep_going = 0;
        switch (type) {
        case ondemand::json_type::number:
            if (!is_number(start, size)) return SLUICE_WALK_UNREADABLE;
            keep_going = events->number(context, start, size, end);
            break;
        case ondemand::json_type::string: {
            // The token must be the string alone, quote to quote.
            if (size < 2 || start[size - 1] != '"') return SLUICE_WALK_UNREADABLE;
            // Without escapes the input's own bytes are the string: no copy.
            if (std::memchr(start + 1, '\\', size - 2) == nullptr) {
                keep_going = events->string(context, start + 1, size - 2, end);
                break;
            }
            std::string_view text;
            if (source.get_string().get(text)) return SLUICE_WALK_UNREADABLE;
            keep_going = events->string(context, reinterpret_cast<const uint8_t *>(text.data()), text.size(), end);
            break;
        }
        case ondemand::json_type::boolean: {
            bool flag = false;
            if (source.get_bool().get(flag)) return SLUICE_WALK_UNREADABLE;
            keep_going = events->boolean(context, flag ? 1 : 0, end);
            break;
        }
        case ondemand::json_type::null: {
            bool is_null = false;
            if (source.is_null().get(is_null) || !is_null) return SLUICE_WALK_UNREADABLE;
            keep_going = events->null_value(context, end);
            break;
        }
        default:
            return SLUICE_WALK_UNREADABLE;
        }
        return keep_going ? SLUICE_WALK_OK : SLUICE_WALK_CANCELLED;
    }

    sluice_walk_status value(ondemand::value &value, size_t depth) {
        ondemand::json_type type;
        if (value.type().get(type)) return SLUICE_WALK_UNREADABLE;
        if (type == ondemand::json_type::object || type == ondemand::json_type::array) {
            if (depth >= maximum_depth) return SLUICE_WALK_UNREADABLE;
            std::string_view token = value.raw_json_token();
            size_t after_opening = offset(token.data()) + 1;
            if (type == ondemand::json_type::object) {
                ondemand::object object;
                if (value.get_object().get(object)) return SLUICE_WALK_UNREADABLE;
                if (!events->start_map(context, after_opening)) return SLUICE_WALK_CANCELLED;
                return members(object, depth + 1);
            }
            ondemand::array array;
            if (value.get_array().get(array)) return SLUICE_WALK_UNREADABLE;
            if (!events->start_array(context, after_opening)) return SLUICE_WALK_CANCELLED;
            return elements(array, depth + 1);
        }
        size_t end = 0;
        sluice_walk_status status = scalar(value, value.raw_json_token(), type, end);
        if (status == SLUICE_WALK_OK && !followed_by_separator(end)) return SLUICE_WALK_UNREADABLE;
        return status;
    }

    sluice_walk_status members(ondemand::object &object, size_t depth) {
        for (auto result : object) {
            ondemand::field field;
            if (std::move(result).get(field)) return SLUICE_WALK_UNREADABLE;
            const uint8_t *key = reinterpret_cast<const uint8_t *>(field.key().raw());
            // The key's closing quote is the first one not escaped; stage one has checked the string is closed.
            const uint8_t *quote = key;
            bool escaped = false;
            while (*quote != '"') {
                if (*quote == '\\') {
                    escaped = true;
                    quote++;
                }
                quote++;
            }
            size_t after_key = offset(reinterpret_cast<const char *>(quote)) + 1;
            int verdict;
            if (escaped) {
                std::string_view text;
                if (field.unescaped_key().get(text)) return SLUICE_WALK_UNREADABLE;
                verdict = events->map_key(context, reinterpret_cast<const uint8_t *>(text.data()), text.size(), after_key);
            } else {
                verdict = events->map_key(context, key, size_t(quote - key), after_key);
            }
            if (verdict == 0) return SLUICE_WALK_CANCELLED;
            if (verdict == 2) {
                // simdjson skips a value by counting brackets from whatever token comes first: it must at least
                // start like a value (`{"a":,"b":1}` would swallow the rest of the object).
                if (!passable(field.value().raw_json_token())) return SLUICE_WALK_UNREADABLE;
                continue;  // the iterator skips the unread value
            }
            sluice_walk_status status = value(field.value(), depth);
            if (status != SLUICE_WALK_OK) return status;
        }
        return events->end_map(context, after_closing()) ? SLUICE_WALK_OK : SLUICE_WALK_CANCELLED;
    }

    sluice_walk_status elements(ondemand::array &array, size_t depth) {
        for (auto result : array) {
            ondemand::value element;
            if (std::move(result).get(element)) return SLUICE_WALK_UNREADABLE;
            if (events->array_element(context) == 2) {
                if (!passable(element.raw_json_token())) return SLUICE_WALK_UNREADABLE;
                continue;  // the iterator skips the unread element
            }
            sluice_walk_status status = value(element, depth);
            if (status != SLUICE_WALK_OK) return status;
        }
        return events->end_array(context, after_closing()) ? SLUICE_WALK_OK : SLUICE_WALK_CANCELLED;
    }

    sluice_walk_status root() {
        ondemand::json_type type;
        if (document->type().get(type)) return SLUICE_WALK_UNREADABLE;
        sluice_walk_status status;
        switch (type) {
        case ondemand::json_type::object: {
            ondemand::object object;
            if (document->get_object().get(object)) return SLUICE_WALK_UNREADABLE;
            if (!events->start_map(context, first_byte() + 1)) return SLUICE_WALK_CANCELLED;
            status = maximum_depth == 0 ? SLUICE_WALK_UNREADABLE : members(object, 1);
            break;
        }
        case ondemand::json_type::array: {
            ondemand::array array;
            if (document->get_array().get(array)) return SLUICE_WALK_UNREADABLE;
            if (!events->start_array(context, first_byte() + 1)) return SLUICE_WALK_CANCELLED;
            status = maximum_depth == 0 ? SLUICE_WALK_UNREADABLE : elements(array, 1);
            break;
        }
        default:
            // A scalar is read where it stands, not consumed: what follows it is checked byte by byte.
            std::string_view token;
            if (document->raw_json_token().get(token)) return SLUICE_WALK_UNREADABLE;
            size_t end = 0;
            status = scalar(*document, token, type, end);
            if (status != SLUICE_WALK_OK) return status;
            while (end < length && is_whitespace(base[end])) end++;
            return end == length ? SLUICE_WALK_OK : SLUICE_WALK_UNREADABLE;
        }
        if (status != SLUICE_WALK_OK) return status;
        // A second value after the first: let the validating tokenizer say what it is.
        const char *next = nullptr;
        return document->current_location().get(next) == SUCCESS ? SLUICE_WALK_UNREADABLE : SLUICE_WALK_OK;
    }

    size_t first_byte() const {
        size_t at = 0;
        while (at < length && is_whitespace(base[at])) at++;
        return at;
    }
};

}  // namespace

extern "C" {

size_t sluice_simdjson_padding(void) { return SIMDJSON_PADDING; }

const char *sluice_simdjson_kernel(void) { return get_active_implementation()->name().c_str(); }

sluice_simdjson_parser *sluice_simdjson_parser_create(size_t maximum_depth) {
    return new (std::nothrow) sluice_simdjson_parser{ondemand::parser(), maximum_depth, {}};
}

void sluice_simdjson_parser_free(sluice_simdjson_parser *parser) { delete parser; }

sluice_walk_status sluice_simdjson_walk(sluice_simdjson_parser *parser, const uint8_t *bytes, size_t length, size_t capacity,
                                        const sluice_json_events *events, void *context) {
    if (capacity < length + SIMDJSON_PADDING) return SLUICE_WALK_UNREADABLE;
    ondemand::document document;
    error_code error = parser->parser.iterate(padded_string_view(bytes, length, capacity)).get(document);
    if (error == UTF8_ERROR) return SLUICE_WALK_INVALID_UTF8;
    if (error) return SLUICE_WALK_UNREADABLE;
    walker walk{{bytes, length, &document}, events, context, parser->maximum_depth};
    return walk.root();
}

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
