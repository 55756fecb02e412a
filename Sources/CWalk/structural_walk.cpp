// Between two structural indexes there is only whitespace or the rest of the token the first one starts (stage one
// marks every bracket, colon and comma outside strings, every string's opening quote and every other scalar's first
// byte), so a token's text, a key's closing quote and what follows a value are read off the indexes without a scan.
// Where the On-Demand walk would find a record unusual, this one does too, or earlier: it is never more lenient.

#include "structural_walk.h"
#include "tape_writer.h"
#include "token_checks.h"

#include <cstring>
#include <new>

using namespace simdjson;
using namespace sluice_tokens;
using sluice_matching::key_guess;
using sluice_walks::step;

namespace sluice_structural {

namespace {

/// What a byte changes the nesting depth by: `{` and `[` open, `}` and `]` close.
constexpr struct depth_change_table {
    int8_t values[256] = {};
    constexpr depth_change_table() {
        values['{'] = values['['] = 1;
        values['}'] = values[']'] = -1;
    }
    constexpr int8_t operator[](uint8_t byte) const { return values[byte]; }
} depth_change;

inline bool opens(uint8_t byte) { return byte == '{' || byte == '['; }

struct walker : sluice_walks::tape_writer {
    const uint8_t *base;
    const uint32_t *index;
    uint32_t count;
    /// The next structural index to read.
    uint32_t at;
    const sluice_plan_tables *tables;
    sluice_matching::key_matcher &keys;
    size_t maximum_depth;
    const internal::dom_parser_implementation &stage_one;
    /// Where the next unescaped text goes in the indexer's scratch.
    uint8_t *unescaped_end;

    uint8_t byte_at(uint32_t position) const { return base[index[position]]; }

    /// The scalar at `at`: its text without the whitespace before the next index, which must be a `,` or a closing
    /// bracket (as the On-Demand walk asks of a scalar it reads or passes over).
    bool scalar_text(size_t &start, size_t &size) const {
        if (at + 1 >= count) return false;
        const uint8_t next = byte_at(at + 1);
        if (next != ',' && next != '}' && next != ']') return false;
        start = index[at];
        size_t stop = index[at + 1];
        while (stop > start && is_whitespace(base[stop - 1])) stop--;
        size = stop - start;
        return true;
    }

    /// Unescapes the string whose text follows the quote at `quote`, into the scratch; null for a bad escape.
    const uint8_t *unescaped(const uint8_t *quote, size_t &size) {
        uint8_t *start = unescaped_end;
        uint8_t *stop = stage_one.parse_string(quote + 1, start);
        if (stop == nullptr) return nullptr;
        unescaped_end = stop;
        size = size_t(stop - start);
        return start;
    }

    [[gnu::always_inline]] inline step scalar(int32_t node) {
        size_t start = 0, size = 0;
        if (!scalar_text(start, size)) return step::unusual;
        at++;
        const uint8_t *text = base + start;
        const size_t end = start + size;
        switch (text[0]) {
        case '"': {
            if (size < 2 || text[size - 1] != '"') return step::unusual;
            if (!has_backslash(text + 1, size - 2)) {
                push(text + 1, size - 2, end, node, SLUICE_TAPE_STRING);
                return step::ok;
            }
            size_t unescaped_size = 0;
            const uint8_t *value = unescaped(text, unescaped_size);
            if (value == nullptr) return step::unusual;
            push(value, unescaped_size, end, node, SLUICE_TAPE_STRING);
            return step::ok;
        }
        case 't':
            if (size != 4 || std::memcmp(text, "true", 4) != 0) return step::unusual;
            push(nullptr, 0, end, node, SLUICE_TAPE_TRUE);
            return step::ok;
        case 'f':
            if (size != 5 || std::memcmp(text, "false", 5) != 0) return step::unusual;
            push(nullptr, 0, end, node, SLUICE_TAPE_FALSE);
            return step::ok;
        case 'n':
            if (size != 4 || std::memcmp(text, "null", 4) != 0) return step::unusual;
            push(nullptr, 0, end, node, SLUICE_TAPE_NULL);
            return step::ok;
        default:
            if (!is_number(text, size)) return step::unusual;
            push(text, size, end, node, SLUICE_TAPE_NUMBER);
            return step::ok;
        }
    }

    /// Passes over the value at `at` that no field reads: a container by counting brackets, as On-Demand does; a
    /// scalar as it stands (what follows it is checked as any value's separator).
    [[gnu::always_inline]] inline step pass_over() {
        const uint32_t *cursor = index + at;
        if (!opens(base[*cursor])) {
            at++;
            return step::ok;
        }
        const uint32_t *const last = index + count;
        const uint8_t *const bytes = base;
        int64_t depth = 0;
        do {
            if (cursor == last) return step::unusual;
            depth += depth_change[bytes[*cursor++]];
        } while (depth > 0);
        at = uint32_t(cursor - index);
        return step::ok;
    }

    /// Steps into the container whose opening bracket is at `at` and calls `item` for each member or element, past
    /// the `,` between them, up to its closing bracket.
    template <typename Item>
    [[gnu::always_inline]] inline step items(uint8_t closing, Item item) {
        at++;
        if (at < count && byte_at(at) == closing) {
            at++;
            return step::ok;
        }
        for (;;) {
            if (item() != step::ok || at >= count) return step::unusual;
            const uint8_t separator = byte_at(at++);
            if (separator == closing) return step::ok;
            if (separator != ',') return step::unusual;
        }
    }

    /// The key at `at` and the colon after it, which `at` passes; its raw text in `key` and `length`.
    [[gnu::always_inline]] inline step key_text(const uint8_t *&key, size_t &length) {
        if (at + 2 >= count) return step::unusual;
        const uint32_t *const cursor = index + at;
        const uint32_t key_at = cursor[0], colon_at = cursor[1];
        at += 2;
        if (base[key_at] != '"' || base[colon_at] != ':' || !starts_value(base[cursor[2]])) return step::unusual;
        key = base + key_at + 1;
        // The key's closing quote: the colon's neighbour in most dumps, else past whitespace.
        const uint8_t *quote = base + colon_at - 1;
        if (*quote != '"') {
            while (quote >= key && is_whitespace(*quote)) quote--;
            if (quote < key || *quote != '"') return step::unusual;
        }
        length = size_t(quote - key);
        return step::ok;
    }

    /// Walks an object the plan looks into. Inside a container a json field captures (`strict`), every value no
    /// field reads is checked whole, as the captured text must be, instead of passed over.
    template <bool strict>
    step members(int32_t node, size_t depth) {
        using sluice_matching::key_matcher;
        // A node's guesses and flags are looked up once for all the keys of its object.
        key_guess *const guesses = keys.guesses_of(node);
        const uint8_t flags = tables->flags[node];
        size_t position = 0;
        return items('}', [&] {
            const uint8_t *key = nullptr;
            size_t key_length = 0;
            if (key_text(key, key_length) != step::ok) return step::unusual;
            int32_t matched;
            // Most keys are the guess at their position: matched and counted there without looking the guess up again.
            if (key_guess *guess = key_matcher::guess_holding(guesses, position, key, key_length, true)) {
                matched = guess->child;
                if (matched < 0 && keys.crosses_unmapped(guess, flags)) push(key, key_length, position, node, SLUICE_TAPE_UNMAPPED_KEY);
            } else {
                matched = keys.unguessed(node, position, key, key_length, true, true);
                bool guessed = true;
                if (matched == key_matcher::escaped) {
                    key = unescaped(key - 1, key_length);
                    if (key == nullptr) return step::unusual;
                    matched = keys.scan(node, key, key_length);
                    guessed = false;
                }
                if (matched < 0 && keys.crosses_unmapped(node, position, key_length, guessed)) {
                    push(key, key_length, position, node, SLUICE_TAPE_UNMAPPED_KEY);
                }
            }
            position++;
            return value<strict>(matched, depth);
        });
    }

    /// Walks an array the plan looks into: its elements at the nodes that name them, or `*`.
    template <bool strict>
    step elements(int32_t node, size_t depth) {
        if (tables->flags[node] & SLUICE_NODE_STARTS_LISTS) push(nullptr, 0, index[at] + 1, node, SLUICE_TAPE_LIST_START);
        int64_t element = 0;
        return items(']', [&] {
            if (at >= count || !starts_value(byte_at(at))) return step::unusual;
            return value<strict>(keys.element_child(node, element++), depth);
        });
    }

    /// The member's or element's value at `at`, for the node `matched` (-1 for none): read where a field reads it,
    /// else passed over, or checked whole inside a capture.
    template <bool strict>
    [[gnu::always_inline]] inline step value(int32_t matched, size_t depth) {
        if (matched >= 0 && !(tables->flags[matched] & SLUICE_NODE_PASSED_OVER)) return read<strict>(matched, depth);
        return strict ? checked(depth) : pass_over();
    }

    /// Reads the value at `at` for `node`: a scalar a field reads, a container a json field captures (walked on the
    /// way where fields read beneath it), or a container the plan looks into, of the kind it looks for. A container
    /// anywhere else (where a field reads a scalar, or of the other kind) is left to the On-Demand walk, which tells
    /// the fields it fails.
    template <bool strict>
    step read(int32_t node, size_t depth) {
        const uint32_t opening = index[at];
        const uint8_t first = base[opening];
        const bool is_object = first == '{';
        if (!is_object && first != '[') return scalar(node);
        const bool looked_into = is_object ? tables->key_count[node] > 0 : tables->index_count[node] > 0;
        if (tables->flags[node] & SLUICE_NODE_CAPTURES) {
            if ((looked_into ? descend<true>(node, depth, is_object) : check(depth)) != step::ok) return step::unusual;
            const size_t end = index[at - 1] + 1;
            push(base + opening, end - opening, end, node, SLUICE_TAPE_CAPTURE);
            return step::ok;
        }
        if (!looked_into || (tables->flags[node] & SLUICE_NODE_SCALAR)) return step::unusual;
        return descend<strict>(node, depth, is_object);
    }

    template <bool strict>
    step descend(int32_t node, size_t depth, bool is_object) {
        if (depth >= maximum_depth) return step::unusual;
        return is_object ? members<strict>(node, depth + 1) : elements<strict>(node, depth + 1);
    }

    /// Checks the value at `at`, everything in it, as the On-Demand walk checks what a json field captures: keys'
    /// escapes, scalars' grammar and ends, nesting.
    [[gnu::noinline]] step checked(size_t depth) {
        if (at >= count || !starts_value(byte_at(at))) return step::unusual;
        return opens(byte_at(at)) ? check(depth) : scalar(-1);
    }

    step check(size_t depth) {
        if (depth >= maximum_depth) return step::unusual;
        const bool is_object = byte_at(at) == '{';
        return items(is_object ? '}' : ']', [&] {
            if (is_object) {
                const uint8_t *key = nullptr;
                size_t key_length = 0;
                if (key_text(key, key_length) != step::ok) return step::unusual;
                if (has_backslash(key, key_length) && unescaped(key - 1, key_length) == nullptr) return step::unusual;
            }
            return checked(depth + 1);
        });
    }
};

/// Whether any node reachable from `node` maps elements by a plan of their own (a typed array of models).
bool needs_on_demand(const sluice_plan_tables *tables, int32_t node, size_t depth) {
    if (depth > 4096 || (tables->flags[node] & SLUICE_NODE_MAPS_ELEMENTS)) return true;
    for (int32_t entry = tables->first_key[node], last = entry + tables->key_count[node]; entry < last; entry++) {
        if (needs_on_demand(tables, tables->key_child[entry], depth + 1)) return true;
    }
    for (int32_t entry = tables->first_index[node], last = entry + tables->index_count[node]; entry < last; entry++) {
        if (needs_on_demand(tables, tables->index_child[entry], depth + 1)) return true;
    }
    return false;
}

}  // namespace

bool reads_plan(indexer &state, const sluice_plan_tables *tables) {
    if (state.judged != tables) {
        // A plan reading no key of the record only checks it (the On-Demand walk does, without counting its keys).
        state.readable = tables->key_count[0] > 0 && !sluice_matching::fails_on_record(tables, false) && !needs_on_demand(tables, 0, 0);
        state.judged = tables;
    }
    return state.readable;
}

outcome walk(indexer &state, const uint8_t *bytes, size_t length, const sluice_plan_tables *tables, size_t maximum_depth, size_t tape_limit,
             std::vector<sluice_tape_entry> &tape, sluice_matching::key_matcher &keys, size_t &end) {
    if (!state.stage_one || state.stage_one->capacity() < length) {
        // Grown by doubling to the largest record read (four bytes of indexes a byte); a failed allocation leaves
        // no parser behind, for simdjson sets a failed one's capacity to 0.
        size_t capacity = size_t(1) << 16;
        if (state.stage_one && state.stage_one->capacity() > capacity) capacity = state.stage_one->capacity();
        while (capacity < length) capacity *= 2;
        const error_code made = state.stage_one ? state.stage_one->set_capacity(capacity)
                                                : get_active_implementation()->create_dom_parser_implementation(capacity, maximum_depth, state.stage_one);
        if (made != SUCCESS) {
            state.stage_one.reset();
            return outcome::no_memory;
        }
    }
    if (state.scratch.size() < length + SIMDJSON_PADDING) {
        // Every string and key is unescaped at most once, each no longer than its text: the record's length, and
        // the padding simdjson's unescaping may write past the last.
        try {
            state.scratch.resize(length + SIMDJSON_PADDING);
        } catch (const std::bad_alloc &) {
            return outcome::no_memory;
        }
    }
    internal::dom_parser_implementation &stage_one = *state.stage_one;
    const error_code error = stage_one.stage1(bytes, length, stage1_mode::regular);
    if (error == UTF8_ERROR) return outcome::invalid_utf8;
    if (error) return outcome::refused;
    walker walker{{tape, tape_limit}, bytes, stage_one.structural_indexes.get(), stage_one.n_structural_indexes, 0, tables, keys,
                  maximum_depth, stage_one, state.scratch.data()};
    if (walker.count == 0 || walker.byte_at(0) != '{') return outcome::unusual;
    // A field at `$` captures the whole record: everything in it is checked, as the captured text must be.
    const bool captures_record = tables->flags[0] & SLUICE_NODE_CAPTURES;
    if ((captures_record ? walker.members<true>(0, 1) : walker.members<false>(0, 1)) != step::ok) return outcome::unusual;
    // A second value after the record: yajl says what it is.
    if (walker.at != walker.count) return outcome::unusual;
    end = walker.index[walker.at - 1] + 1;
    const size_t start = walker.index[0];
    if (captures_record) walker.push(bytes + start, end - start, end, 0, SLUICE_TAPE_CAPTURE);
    return walker.overflowed ? outcome::too_large : outcome::ok;
}

}  // namespace sluice_structural
