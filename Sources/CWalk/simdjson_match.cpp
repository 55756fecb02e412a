// Walks one record with simdjson On-Demand and matches its keys against the plan's trie as it goes, so that keys and
// values no field reads never leave C++: what crosses is one tape of the values fields read (and the keys no field
// reads, which are counted). Whatever is unusual for this simple walk is handed back untouched, for yajl's walk.

#include "parser_state.h"
#include "record_view.h"
#include "tape_writer.h"

#include <cstring>

using namespace simdjson;
using namespace sluice_tokens;
using sluice_walks::step;

namespace {

struct matcher : record_view, sluice_walks::tape_writer {
    const sluice_plan_tables *tables;
    sluice_matching::key_matcher &keys;
    size_t maximum_depth;

    /// Hands over the scalar in `value` for `node`, checked as yajl checks it; with no node (-1), only checks it.
    step scalar(ondemand::value &value, ondemand::json_type type, std::string_view token, int32_t node) {
        const uint8_t *start = reinterpret_cast<const uint8_t *>(token.data());
        size_t size = trimmed_length(token);
        size_t end = offset(token.data()) + size;
        if (!followed_by_separator(end)) return step::unusual;
        switch (type) {
        case ondemand::json_type::number:
            if (!is_number(start, size)) return step::unusual;
            push(start, size, end, node, SLUICE_TAPE_NUMBER);
            return step::ok;
        case ondemand::json_type::string: {
            if (size < 2 || start[size - 1] != '"') return step::unusual;
            if (!has_backslash(start + 1, size - 2)) {
                push(start + 1, size - 2, end, node, SLUICE_TAPE_STRING);
                return step::ok;
            }
            std::string_view text;
            if (value.get_string().get(text)) return step::unusual;
            push(reinterpret_cast<const uint8_t *>(text.data()), text.size(), end, node, SLUICE_TAPE_STRING);
            return step::ok;
        }
        case ondemand::json_type::boolean: {
            bool flag = false;
            if (value.get_bool().get(flag)) return step::unusual;
            push(nullptr, 0, end, node, flag ? SLUICE_TAPE_TRUE : SLUICE_TAPE_FALSE);
            return step::ok;
        }
        case ondemand::json_type::null: {
            bool is_null = false;
            if (value.is_null().get(is_null) || !is_null) return step::unusual;
            push(nullptr, 0, end, node, SLUICE_TAPE_NULL);
            return step::ok;
        }
        default:
            return step::unusual;
        }
    }

    /// Walks an object the plan looks into. Inside a container a json field captures (`strict`), every value no
    /// field reads is checked whole, as the captured text must be, instead of passed over.
    step members(ondemand::object &object, int32_t node, size_t depth, bool strict) {
        size_t position = 0;
        for (auto result : object) {
            ondemand::field field;
            if (std::move(result).get(field)) return step::unusual;
            ondemand::value value = field.value();
            std::string_view token = value.raw_json_token();
            if (token.empty() || !starts_value(uint8_t(token[0]))) return step::unusual;
            // The key ends at the last quote before the colon before its value: found backwards, not by scanning
            // the key for its closing quote (an escaped quote in it is never the last).
            const uint8_t *key = reinterpret_cast<const uint8_t *>(field.key().raw());
            const uint8_t *quote = reinterpret_cast<const uint8_t *>(token.data()) - 1;
            size_t colons = 0;
            while (quote > key && *quote != '"') {
                if (*quote == ':') {
                    colons++;
                } else if (!is_whitespace(*quote)) {
                    return step::unusual;
                }
                quote--;
            }
            if (colons != 1) return step::unusual;
            size_t key_length = size_t(quote - key);
            int32_t matched = keys.child(node, position, key, key_length, true, true);
            bool guessed = true;
            if (matched == sluice_matching::key_matcher::escaped) {
                // Matched unescaped, past the guesses, which compare raw bytes: Python's `json.dumps` escapes every
                // key that is not ASCII, so a dump may hold such keys in every record.
                std::string_view unescaped;
                if (field.unescaped_key().get(unescaped)) return step::unusual;
                key = reinterpret_cast<const uint8_t *>(unescaped.data());
                key_length = unescaped.size();
                matched = keys.scan(node, key, key_length);
                guessed = false;
            }
            if (matched < 0 || (tables->flags[matched] & SLUICE_NODE_PASSED_OVER)) {
                if (matched < 0 && keys.crosses_unmapped(node, position, key_length, guessed)) {
                    push(key, key_length, position, node, SLUICE_TAPE_UNMAPPED_KEY);
                }
                position++;
                if (!leaves_unread(value, token, depth, strict)) return step::unusual;
                continue;  // the iterator skips the unread value
            }
            position++;
            if (read(value, token, matched, depth, strict) != step::ok) return step::unusual;
        }
        return step::ok;
    }

    /// Reads the value at `node`: a scalar a field reads, a container a json field captures (walked on the way where
    /// fields read beneath it), or an object or array the plan looks into.
    step read(ondemand::value &value, std::string_view token, int32_t node, size_t depth, bool strict) {
        ondemand::json_type type;
        if (value.type().get(type)) return step::unusual;
        const bool is_object = type == ondemand::json_type::object, is_array = type == ondemand::json_type::array;
        if (!is_object && !is_array) return scalar(value, type, token, node);
        if (is_array && (tables->flags[node] & SLUICE_NODE_MAPS_ELEMENTS)) return element_rows(value, token, node, depth);
        // Only a container the plan looks into, of the kind it looks for, and that no field reads as a scalar, is
        // walked; a json field's other containers are checked whole.
        const bool looked_into = is_object ? tables->key_count[node] > 0 : tables->index_count[node] > 0;
        if (tables->flags[node] & SLUICE_NODE_CAPTURES) {
            // The captured text ends with the container: the fields beneath it are read on the way, checked as
            // strictly as the rest of what is captured.
            const uint8_t *start = reinterpret_cast<const uint8_t *>(token.data());
            if ((looked_into ? walk(value, token, is_object, node, depth, true) : check(value, type, depth)) != step::ok) return step::unusual;
            size_t end = after_closing();
            push(start, size_t(base + end - start), end, node, SLUICE_TAPE_CAPTURE);
            return step::ok;
        }
        if (!looked_into || (tables->flags[node] & SLUICE_NODE_SCALAR)) {
            // A container where a field reads a scalar, or of the other kind than the plan looks for: the fields it
            // does not fit fail on it. One of the other kind is checked whole and passed over, as yajl's walk reads
            // what it passes over; one of the right kind is still walked, as yajl's walk still reads beneath it.
            push(reinterpret_cast<const uint8_t *>(token.data()), 1, offset(token.data()) + 1, node, SLUICE_TAPE_MISMATCH);
            return looked_into ? walk(value, token, is_object, node, depth, strict) : check(value, type, depth);
        }
        return walk(value, token, is_object, node, depth, strict);
    }

    /// Walks into the object or array in `value` (whose text starts `token`), which the plan looks into at `node`.
    step walk(ondemand::value &value, std::string_view token, bool is_object, int32_t node, size_t depth, bool strict) {
        if (depth >= maximum_depth) return step::unusual;
        if (is_object) {
            ondemand::object inner;
            if (value.get_object().get(inner)) return step::unusual;
            return members(inner, node, depth + 1, strict);
        }
        open_lists(node, token.data());
        ondemand::array inner;
        if (value.get_array().get(inner)) return step::unusual;
        return elements(inner, depth + 1, strict, strict, [&](int64_t index, std::string_view) { return keys.element_child(node, index); });
    }

    /// Walks an array whose elements the plan at `element_root[node]` maps: each element's entries follow an element
    /// marker that counts them. Nulls are no elements. Everything inside is checked whole, as yajl's walk checks
    /// what follows an element that fails (which only Swift can tell), so that both walks agree on damage.
    step element_rows(ondemand::value &value, std::string_view token, int32_t node, size_t depth) {
        if (depth >= maximum_depth) return step::unusual;
        const int32_t root = tables->element_root[node];
        push(nullptr, size_t(root), offset(token.data()) + 1, node, SLUICE_TAPE_ELEMENTS_START);
        ondemand::array array;
        if (value.get_array().get(array)) return step::unusual;
        int32_t index = 0;
        const step walked = each_element(array, [&](ondemand::value &element, std::string_view element_token) {
            ondemand::json_type type;
            if (element.type().get(type)) return step::unusual;
            const int32_t position = index++;
            if (type == ondemand::json_type::null) return scalar(element, type, element_token, -1);
            const size_t marker = tape.size();
            // Past the tape's limit the element is still walked, and checked, writing nothing.
            if (has_room()) tape.push_back(sluice_tape_entry{nullptr, 0, 0, position, SLUICE_TAPE_ELEMENT});
            // The element is read at the element plan's root as any value is at its node: a model's object walked,
            // a scalar plan's scalar written, an array of arrays mapped in turn, and an element of the wrong kind
            // failing the fields it meets (or captured, where a json field reads the elements).
            if (read(element, element_token, root, depth + 1, true) != step::ok) return step::unusual;
            const bool is_container = type == ondemand::json_type::object || type == ondemand::json_type::array;
            if (marker < tape.size()) {
                tape[marker].end = is_container ? after_closing() : tape.back().end;
                tape[marker].length = tape.size() - marker - 1;
            }
            return step::ok;
        });
        if (walked != step::ok) return step::unusual;
        push(nullptr, size_t(index), after_closing(), node, SLUICE_TAPE_ELEMENTS_END);
        return step::ok;
    }

    /// An array at `node` (its `[` at `opening`) opens the lists that read its elements, so an empty one gives `[]`.
    [[gnu::always_inline]] inline void open_lists(int32_t node, const char *opening) {
        if (tables->flags[node] & SLUICE_NODE_STARTS_LISTS) push(nullptr, 0, offset(opening) + 1, node, SLUICE_TAPE_LIST_START);
    }

    /// Checks a value a json field captures, or one passed over (a container of the wrong kind), everything in it,
    /// as yajl's walk does: keys' escapes, scalars' grammar and ends, nesting.
    step check(ondemand::value &value, ondemand::json_type type, size_t depth) {
        if (depth >= maximum_depth) return step::unusual;
        if (type == ondemand::json_type::object) {
            ondemand::object object;
            if (value.get_object().get(object)) return step::unusual;
            return check_members(object, depth);
        }
        ondemand::array array;
        if (value.get_array().get(array)) return step::unusual;
        for (auto result : array) {
            ondemand::value element;
            if (std::move(result).get(element)) return step::unusual;
            if (checked(element, depth + 1) != step::ok) return step::unusual;
        }
        return step::ok;
    }

    /// Checks an object's keys and values whole.
    step check_members(ondemand::object &object, size_t depth) {
        for (auto result : object) {
            ondemand::field field;
            if (std::move(result).get(field)) return step::unusual;
            std::string_view key;
            if (field.unescaped_key().get(key)) return step::unusual;
            if (checked(field.value(), depth + 1) != step::ok) return step::unusual;
        }
        return step::ok;
    }

    /// Whether a value no field reads may be left unread: inside a captured container (`strict`) only once it is
    /// checked whole, as the captured text must be; elsewhere when simdjson can pass over it.
    bool leaves_unread(ondemand::value &value, std::string_view token, size_t depth, bool strict) {
        return strict ? checked(value, depth) == step::ok : passable(token);
    }

    step checked(ondemand::value value, size_t depth) {
        ondemand::json_type type;
        if (value.type().get(type)) return step::unusual;
        if (type == ondemand::json_type::object || type == ondemand::json_type::array) return check(value, type, depth);
        return scalar(value, type, value.raw_json_token(), -1);
    }

    /// Walks a row read by a header's names (an array at the root, its `[` at `opening`): its values no field reads
    /// are checked whole, as yajl's walk reads them, and the first value past the header's columns fails the
    /// record.
    step row(ondemand::array &array, const int32_t *header_nodes, size_t header_count, const char *opening) {
        open_lists(0, opening);
        return elements(array, 1, true, false, [&](int64_t index, std::string_view token) {
            if (size_t(index) == header_count) push(nullptr, 0, offset(token.data()), 0, SLUICE_TAPE_EXTRA_VALUE);
            return size_t(index) < header_count ? header_nodes[index] : -1;
        });
    }

    /// Walks an array's elements, each read at the node `child_of(index, token)` gives (-1 for none). Elements no field
    /// reads are left unread, checked whole where `strict_unread` (as inside a capture, or a row's other columns).
    template <typename ChildOf>
    step elements(ondemand::array &array, size_t depth, bool strict_unread, bool strict, ChildOf child_of) {
        int64_t index = 0;
        return each_element(array, [&](ondemand::value &element, std::string_view token) {
            int32_t matched = child_of(index++, token);
            if (matched < 0 || (tables->flags[matched] & SLUICE_NODE_PASSED_OVER)) {
                // The iterator skips the unread element.
                return leaves_unread(element, token, depth, strict_unread) ? step::ok : step::unusual;
            }
            return read(element, token, matched, depth, strict);
        });
    }

    /// Calls `visit(element, token)` for each element of `array`, whose first token must start a value.
    template <typename Visit>
    [[gnu::always_inline]] inline step each_element(ondemand::array &array, Visit visit) {
        for (auto result : array) {
            ondemand::value element;
            if (std::move(result).get(element)) return step::unusual;
            std::string_view token = element.raw_json_token();
            if (token.empty() || !starts_value(uint8_t(token[0]))) return step::unusual;
            if (visit(element, token) != step::ok) return step::unusual;
        }
        return step::ok;
    }
};

}  // namespace

extern "C" {

sluice_match_status sluice_simdjson_match(sluice_simdjson_parser *parser, const uint8_t *bytes, size_t length, size_t capacity,
                                          const sluice_plan_tables *tables, const int32_t *header_nodes, size_t header_count,
                                          const sluice_tape_entry **tape, size_t *count, size_t *end) {
    if (capacity < length + SIMDJSON_PADDING || parser->maximum_depth == 0) return SLUICE_MATCH_UNUSUAL;
    if (parser->walks_indexes && header_nodes == nullptr && sluice_structural::reads_plan(parser->indexing, tables)) {
        parser->tape.clear();
        parser->keys.begin(tables);
        switch (sluice_structural::walk(parser->indexing, bytes, length, tables, parser->maximum_depth, parser->tape_limit, parser->tape, parser->keys, *end)) {
        case sluice_structural::outcome::ok:
            *tape = parser->tape.data();
            *count = parser->tape.size();
            parser->keys.commit();
            parser->indexed_records++;
            return SLUICE_MATCH_OK;
        case sluice_structural::outcome::refused:
            return SLUICE_MATCH_UNUSUAL;
        case sluice_structural::outcome::invalid_utf8:
            return SLUICE_MATCH_INVALID_UTF8;
        case sluice_structural::outcome::no_memory:
            return SLUICE_MATCH_NO_MEMORY;
        case sluice_structural::outcome::too_large:
            return SLUICE_MATCH_TOO_LARGE;
        case sluice_structural::outcome::unusual:
            break;  // the On-Demand walk below reads it (its keys' counts of this try are taken back as it begins)
        }
    }
    ondemand::document document;
    error_code error = parser->parser.iterate(padded_string_view(bytes, length, capacity)).get(document);
    if (error == UTF8_ERROR) return SLUICE_MATCH_INVALID_UTF8;
    if (error) return SLUICE_MATCH_UNUSUAL;
    ondemand::json_type type;
    if (document.type().get(type)) return SLUICE_MATCH_UNUSUAL;
    const bool is_row = type == ondemand::json_type::array && header_nodes != nullptr;
    if (type != ondemand::json_type::object && !is_row) return SLUICE_MATCH_UNUSUAL;
    parser->tape.clear();
    parser->keys.begin(tables);
    matcher walk{{bytes, length, &document}, {parser->tape, parser->tape_limit}, tables, parser->keys, parser->maximum_depth};
    // A field at `$` captures the whole record: everything in it is checked, as the captured text must be. (A row
    // so captured is left to yajl's matched walk.)
    const bool captures_record = tables->flags[0] & SLUICE_NODE_CAPTURES;
    const char *opening = nullptr;
    if (document.current_location().get(opening)) return SLUICE_MATCH_UNUSUAL;
    if (sluice_matching::fails_on_record(tables, is_row)) {
        walk.push(reinterpret_cast<const uint8_t *>(opening), 1, walk.offset(opening) + 1, 0, SLUICE_TAPE_MISMATCH);
    }
    if (is_row) {
        ondemand::array array;
        if (captures_record || document.get_array().get(array)) return SLUICE_MATCH_UNUSUAL;
        if (walk.row(array, header_nodes, header_count, opening) != step::ok) return SLUICE_MATCH_UNUSUAL;
    } else {
        ondemand::object object;
        if (document.get_object().get(object)) return SLUICE_MATCH_UNUSUAL;
        // An object where the plan reads no key is not walked, nor are its keys counted: only checked, as yajl's
        // walk reads what it passes over.
        const step walked = tables->key_count[0] == 0 ? walk.check_members(object, 1) : walk.members(object, 0, 1, captures_record);
        if (walked != step::ok) return SLUICE_MATCH_UNUSUAL;
    }
    // A second value after the record: yajl says what it is.
    const char *next = nullptr;
    if (document.current_location().get(next) == SUCCESS) return SLUICE_MATCH_UNUSUAL;
    *end = walk.after_closing();
    if (captures_record) {
        const size_t start = walk.offset(opening);
        walk.push(reinterpret_cast<const uint8_t *>(opening), *end - start, *end, 0, SLUICE_TAPE_CAPTURE);
    }
    if (walk.overflowed) return SLUICE_MATCH_TOO_LARGE;
    *tape = parser->tape.data();
    *count = parser->tape.size();
    parser->keys.commit();
    return SLUICE_MATCH_OK;
}

size_t sluice_simdjson_take_unmapped(sluice_simdjson_parser *parser, const sluice_unmapped_sighting **sightings) {
    return parser->keys.take(sightings);
}

}
