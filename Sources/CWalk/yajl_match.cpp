// yajl's matched walk: yajl reads a record whose bytes are all at hand, and its events are matched against the plan's
// tables in C++ as they come, writing the same tape as simdjson's matched walk, so that nothing crosses into Swift
// but one tape a record. yajl checks everything it reads, so unlike simdjson's walk this one never checks a value
// itself (only a record's UTF-8, whole, so that yajl need not check each string's); what it cannot read as simply
// (damage, nesting too deep, a second value) is handed back untouched.

#include "include/sluice_simdjson.h"
#include "include/sluice_yajl.h"
#include "key_matching.h"
#include "token_checks.h"

#include <yajl/yajl_parse.h>

#include <cstring>
#include <new>
#include <vector>

namespace {

/// Records larger than this have the memory they took given back once they are read, so that one huge record does
/// not keep its copies until the run ends.
constexpr size_t kept_capacity = size_t(1) << 20;

/// One container being read: the node the plan reads it at (-1: nothing in it is read), what kind of container it is
/// to the walk, its next key position or element index, the child the next value goes to (objects), the node of a
/// json field that captures it and where it starts, and, in an array mapped element by element, the marker of the
/// element being read.
struct frame {
    enum kind_t : uint8_t { object, array, row, elements };
    int32_t node;
    kind_t kind;
    int64_t next;
    int32_t pending;
    int32_t captured;
    size_t capture_start;
    size_t marker;
};

constexpr size_t none = size_t(-1);

}  // namespace

struct sluice_yajl_matcher {
    /// The handle reading the record: `trusting` where the record is known to be UTF-8 (yajl's own check of each
    /// string's bytes then costs a tenth of its work for nothing), else `checking`.
    yajl_handle handle = nullptr;
    yajl_handle checking = nullptr;
    yajl_handle trusting = nullptr;
    /// The record is well-formed UTF-8, and so is all text unescaped from it so far (an escaped lone surrogate
    /// unescapes to bytes that are not).
    bool known_utf8 = false;
    size_t maximum_depth;
    sluice_matching::key_matcher keys;
    std::vector<sluice_tape_entry> tape;
    /// The most entries a record's tape may hold; past it nothing more is written, and the record, once whole, is
    /// too large.
    size_t tape_limit = SIZE_MAX;
    bool overflowed = false;
    std::vector<frame> frames;
    /// Containers open inside a value nothing reads (0 outside one): counted, not framed, as nothing in them is read.
    size_t skip_depth = 0;
    /// Copies of the record's unescaped strings and keys (yajl's own buffer lives only through a callback). Sized to
    /// the record before it is read: unescaped text is never longer than its JSON, so the copies never move.
    std::vector<uint8_t> arena;
    size_t arena_used = 0;

    // The record being read.
    const uint8_t *base = nullptr;
    size_t record_length = 0;
    const sluice_plan_tables *tables = nullptr;
    const int32_t *header_nodes = nullptr;
    size_t header_count = 0;
    bool unusual = false;
    bool complete = false;
    /// Set while yajl is fed a byte past the record, to end a number the record ends with.
    bool past_record = false;
    size_t end = 0;

    /// The offset just past the token yajl is delivering.
    size_t consumed() const { return yajl_get_bytes_consumed(handle); }

    /// Whether `bytes` lie in the record's own bytes, which outlive its tape: yajl hands over text without escapes
    /// where it stands, and only what it unescaped must be copied.
    bool in_record(const uint8_t *bytes, size_t length) const { return bytes >= base && bytes + length <= base + record_length; }

    /// `bytes` where they outlive the tape: as they stand in the record, else copied. Null when there is no room
    /// (which unescaped text, never longer than its JSON, cannot run out of).
    const uint8_t *kept(const uint8_t *bytes, size_t length) {
        if (in_record(bytes, length)) return bytes;
        if (arena_used + length > arena.size()) return nullptr;
        uint8_t *at = arena.data() + arena_used;
        if (length > 0) std::memcpy(at, bytes, length);
        arena_used += length;
        if (known_utf8 && !sluice_is_utf8(at, length)) known_utf8 = false;
        return at;
    }

    void push(const uint8_t *bytes, size_t length, size_t at, int32_t node, sluice_tape_kind kind) {
        if (tape.size() >= tape_limit) {
            overflowed = true;
            return;
        }
        tape.push_back(sluice_tape_entry{bytes, length, at, node, int32_t(kind)});
    }

    /// Hands the record back: the callback that calls this returns 0, and yajl stops.
    int give_up() {
        unusual = true;
        return 0;
    }

    /// What `value_node` gives besides a node: nothing reads the value; it cannot be walked (a second value after
    /// the record); it is an element of an array mapped element by element, to be read at the element plan's root.
    static constexpr int32_t unread = -1, not_walkable = -2, element = -3;

    /// The node the value starting now is read at, or one of the above.
    [[gnu::always_inline]] inline int32_t value_node() {
        if (frames.empty()) return complete ? not_walkable : 0;
        frame &top = frames.back();
        if (top.node < 0) return unread;
        int32_t node = unread;
        switch (top.kind) {
        case frame::object:
            node = top.pending;
            top.pending = unread;
            break;
        case frame::array:
            node = keys.element_child(top.node, top.next++);
            break;
        case frame::row: {
            const size_t index = size_t(top.next++);
            if (index == header_count) push(nullptr, 0, consumed(), 0, SLUICE_TAPE_EXTRA_VALUE);
            if (index < header_count) node = header_nodes[index];
            break;
        }
        case frame::elements:
            // A null is no element, but counts as one.
            top.next++;
            return element;
        }
        return node >= 0 && (tables->flags[node] & SLUICE_NODE_PASSED_OVER) ? unread : node;
    }

    /// In an array mapped element by element: before a value that is not null, its marker; the value is read at the
    /// element plan's root.
    int32_t open_element() {
        frame &top = frames.back();
        top.marker = tape.size();
        push(nullptr, 0, 0, int32_t(top.next - 1), SLUICE_TAPE_ELEMENT);
        return tables->element_root[top.node];
    }

    /// After an element's value: its marker counts its entries and says where it ends.
    void close_element(size_t at) {
        frame &top = frames.back();
        // A marker past the tape's limit was never written.
        if (top.marker < tape.size()) {
            tape[top.marker].end = at;
            tape[top.marker].length = tape.size() - top.marker - 1;
        }
        top.marker = none;
    }

    bool in_elements() const { return !frames.empty() && frames.back().node >= 0 && frames.back().kind == frame::elements; }

    /// Puts a scalar read at `node` on the tape, its text kept where it outlives the tape.
    bool write(int32_t node, sluice_tape_kind kind, const uint8_t *bytes, size_t length, size_t at) {
        if (bytes != nullptr) {
            bytes = kept(bytes, length);
            if (bytes == nullptr) return false;
        }
        push(bytes, length, at, node, kind);
        return true;
    }

    int scalar(sluice_tape_kind kind, const uint8_t *bytes, size_t length) {
        int32_t node = value_node();
        if (node == unread) return 1;
        if (node == element) {
            if (kind == SLUICE_TAPE_NULL) return 1;
            node = open_element();
            const size_t at = consumed();
            if (!write(node, kind, bytes, length, at)) return give_up();
            close_element(at);
            return 1;
        }
        if (node == not_walkable) return give_up();
        if (frames.empty()) {
            // A scalar record, read at the root. A number is delivered only once yajl saw a byte past it, maybe in
            // a buffer of its own: where it ends is found from its text, which stands in the record.
            complete = true;
            if (past_record) {
                // The record's last token: it ends where the record's text does.
                end = record_length;
                while (end > 0 && sluice_tokens::is_whitespace(base[end - 1])) end--;
            } else {
                end = in_record(bytes, length) ? size_t(bytes - base) + length + (kind == SLUICE_TAPE_STRING ? 1 : 0) : consumed();
            }
            return write(node, kind, bytes, length, end) ? 1 : give_up();
        }
        return write(node, kind, bytes, length, consumed()) ? 1 : give_up();
    }

    int start(bool is_array) {
        int32_t node = value_node();
        if (node == not_walkable || frames.size() + 1 > maximum_depth) return give_up();
        if (node == unread) {
            skip_depth = 1;
            return 1;
        }
        frame next{node, is_array ? frame::array : frame::object, 0, unread, unread, none, none};
        if (node == element) next.node = node = open_element();
        const size_t opening = consumed() - 1;
        if (frames.empty() && is_array && header_nodes != nullptr) {
            // A row, read by the header's names, where a scalar field at `$` fails and a json field at `$` captures
            // it whole (whose capture checks the scalar fields too). The record's object, or an array without a
            // header, is read below as at any node.
            const uint8_t flags = tables->flags[0];
            next.kind = frame::row;
            if (flags & SLUICE_NODE_CAPTURES) {
                next.captured = 0;
                next.capture_start = opening;
            } else if (flags & SLUICE_NODE_SCALAR) {
                push(base + opening, 1, opening + 1, 0, SLUICE_TAPE_MISMATCH);
            }
            open_lists(0, opening);
            frames.push_back(next);
            return 1;
        }
        const uint8_t flags = tables->flags[node];
        if (is_array && (flags & SLUICE_NODE_MAPS_ELEMENTS)) {
            push(nullptr, size_t(tables->element_root[node]), opening + 1, node, SLUICE_TAPE_ELEMENTS_START);
            next.kind = frame::elements;
            frames.push_back(next);
            return 1;
        }
        // Only a container the plan looks into, of the kind it looks for, is walked; a json field's other containers
        // are captured unread, and where a field reads a scalar, or the kind is the other, the fields it does not
        // fit fail on it (one of the right kind is still walked, for the fields beneath it).
        const bool looked_into = is_array ? tables->index_count[node] > 0 : tables->key_count[node] > 0;
        if (flags & SLUICE_NODE_CAPTURES) {
            next.captured = node;
            next.capture_start = opening;
        } else if (!looked_into || (flags & SLUICE_NODE_SCALAR)) {
            push(base + opening, 1, opening + 1, node, SLUICE_TAPE_MISMATCH);
        }
        if (!looked_into) next.node = unread;
        if (is_array && looked_into) open_lists(node, opening);
        frames.push_back(next);
        return 1;
    }

    /// An array at `node` opens the lists that read its elements, so that an empty one gives `[]`.
    void open_lists(int32_t node, size_t opening) {
        if (tables->flags[node] & SLUICE_NODE_STARTS_LISTS) push(nullptr, 0, opening + 1, node, SLUICE_TAPE_LIST_START);
    }

    /// Inside a value nothing reads, a container opens or closes: only the depth is kept.
    int start_skipped() { return ++skip_depth + frames.size() > maximum_depth ? give_up() : 1; }
    int finish_skipped() {
        --skip_depth;
        return 1;
    }

    int finish() {
        if (frames.empty()) return give_up();
        const frame closed = frames.back();
        frames.pop_back();
        const bool closes_element = in_elements() && frames.back().marker != none;
        const bool is_read = closed.node >= 0 || closed.captured >= 0;
        if (!is_read && !closes_element && !frames.empty()) return 1;
        const size_t at = consumed();
        if (closed.node >= 0 && closed.kind == frame::elements) push(nullptr, size_t(closed.next), at, closed.node, SLUICE_TAPE_ELEMENTS_END);
        // The capture goes after everything read inside it (the record's own, at `$`, last of all).
        if (closed.captured >= 0) push(base + closed.capture_start, at - closed.capture_start, at, closed.captured, SLUICE_TAPE_CAPTURE);
        if (frames.empty()) {
            complete = true;
            end = at;
        } else if (closes_element) {
            close_element(at);
        }
        return 1;
    }

    int key(const uint8_t *bytes, size_t length) {
        frame &top = frames.back();
        const size_t position = size_t(top.next++);
        if (top.node < 0) return 1;
        const bool padded = in_record(bytes, sluice_matching::guessed_key_bytes);
        int32_t matched = keys.child(top.node, position, bytes, length, false, padded);
        if (matched < 0 || (tables->flags[matched] & SLUICE_NODE_PASSED_OVER)) {
            if (matched < 0 && keys.crosses_unmapped(top.node, position, length, true)) {
                const uint8_t *key = kept(bytes, length);
                if (key == nullptr) return give_up();
                push(key, length, position, top.node, SLUICE_TAPE_UNMAPPED_KEY);
            }
            matched = -1;
        }
        top.pending = matched;
        return 1;
    }
};

namespace {

sluice_yajl_matcher *matcher_of(void *context) { return static_cast<sluice_yajl_matcher *>(context); }

// Inside a value nothing reads, events are passed over before any other test, as most of a record's are.
const yajl_callbacks callbacks = {
    [](void *context) {
        sluice_yajl_matcher *matcher = matcher_of(context);
        return matcher->skip_depth > 0 ? 1 : matcher->scalar(SLUICE_TAPE_NULL, nullptr, 0);
    },
    [](void *context, int value) {
        sluice_yajl_matcher *matcher = matcher_of(context);
        return matcher->skip_depth > 0 ? 1 : matcher->scalar(value ? SLUICE_TAPE_TRUE : SLUICE_TAPE_FALSE, nullptr, 0);
    },
    nullptr,
    nullptr,
    [](void *context, const char *text, size_t length) {
        sluice_yajl_matcher *matcher = matcher_of(context);
        return matcher->skip_depth > 0 ? 1 : matcher->scalar(SLUICE_TAPE_NUMBER, reinterpret_cast<const uint8_t *>(text), length);
    },
    [](void *context, const unsigned char *text, size_t length) {
        sluice_yajl_matcher *matcher = matcher_of(context);
        // An empty string's pointer may be null: the copy must still be a pointer.
        static const uint8_t empty = 0;
        return matcher->skip_depth > 0 ? 1 : matcher->scalar(SLUICE_TAPE_STRING, text != nullptr ? text : &empty, length);
    },
    [](void *context) {
        sluice_yajl_matcher *matcher = matcher_of(context);
        return matcher->skip_depth > 0 ? matcher->start_skipped() : matcher->start(false);
    },
    [](void *context, const unsigned char *key, size_t length) {
        sluice_yajl_matcher *matcher = matcher_of(context);
        return matcher->skip_depth > 0 ? 1 : matcher->key(key, length);
    },
    [](void *context) {
        sluice_yajl_matcher *matcher = matcher_of(context);
        return matcher->skip_depth > 0 ? matcher->finish_skipped() : matcher->finish();
    },
    [](void *context) {
        sluice_yajl_matcher *matcher = matcher_of(context);
        return matcher->skip_depth > 0 ? matcher->start_skipped() : matcher->start(true);
    },
    [](void *context) {
        sluice_yajl_matcher *matcher = matcher_of(context);
        return matcher->skip_depth > 0 ? matcher->finish_skipped() : matcher->finish();
    },
};

}  // namespace

extern "C" {

sluice_yajl_matcher *sluice_yajl_matcher_create(size_t maximum_depth, size_t tape_limit) {
    sluice_yajl_matcher *matcher = new (std::nothrow) sluice_yajl_matcher();
    if (matcher != nullptr) {
        matcher->maximum_depth = maximum_depth;
        matcher->tape_limit = tape_limit;
    }
    return matcher;
}

void sluice_yajl_matcher_free(sluice_yajl_matcher *matcher) {
    if (matcher == nullptr) return;
    if (matcher->checking != nullptr) yajl_free(matcher->checking);
    if (matcher->trusting != nullptr) yajl_free(matcher->trusting);
    delete matcher;
}

sluice_match_status sluice_yajl_match(sluice_yajl_matcher *matcher, const uint8_t *bytes, size_t length,
                                      const sluice_plan_tables *tables, const int32_t *header_nodes, size_t header_count,
                                      const sluice_tape_entry **tape, size_t *count, size_t *end, bool *known_utf8) {
    // yajl takes form feed and vertical tab for whitespace; JSON does not, and yajl's verdict says so.
    if (std::memchr(bytes, 0x0C, length) != nullptr || std::memchr(bytes, 0x0B, length) != nullptr) {
        return SLUICE_MATCH_UNUSUAL;
    }
    // Well-formed UTF-8 is stricter than what yajl checks, so a record that is needs no check of yajl's, nor of
    // its mapped text afterwards; one that is not is read as yajl reads any record.
    matcher->known_utf8 = sluice_is_utf8(bytes, length);
    yajl_handle &handle = matcher->known_utf8 ? matcher->trusting : matcher->checking;
    if (handle == nullptr) {
        // One handle of each kind reads record after record: it takes a value after a value, and is made again
        // after a failure.
        handle = yajl_alloc(&callbacks, nullptr, matcher);
        if (handle == nullptr) return SLUICE_MATCH_NO_MEMORY;
        yajl_config(handle, yajl_allow_multiple_values, 1);
        if (matcher->known_utf8) yajl_config(handle, yajl_dont_validate_strings, 1);
    }
    matcher->handle = handle;
    // What one huge record needed is given back before the next; the tape it filled is read until then.
    if (matcher->arena.size() > kept_capacity && length <= kept_capacity) std::vector<uint8_t>().swap(matcher->arena);
    if (matcher->tape.capacity() > kept_capacity / sizeof(sluice_tape_entry)) std::vector<sluice_tape_entry>().swap(matcher->tape);
    if (matcher->arena.size() < length) matcher->arena.resize(length);
    matcher->arena_used = 0;
    matcher->tape.clear();
    matcher->overflowed = false;
    matcher->frames.clear();
    matcher->skip_depth = 0;
    matcher->keys.begin(tables);
    matcher->base = bytes;
    matcher->record_length = length;
    matcher->tables = tables;
    matcher->header_nodes = header_nodes;
    matcher->header_count = header_count;
    matcher->unusual = false;
    matcher->complete = false;
    yajl_status status = yajl_parse(matcher->handle, bytes, length);
    if (status == yajl_status_ok && !matcher->complete && matcher->frames.empty()) {
        // A number at the record's end is delivered once yajl sees a byte past it.
        static const uint8_t space = ' ';
        matcher->past_record = true;
        status = yajl_parse(matcher->handle, &space, 1);
        matcher->past_record = false;
    }
    bool whole = status == yajl_status_ok && matcher->complete && !matcher->unusual;
    // yajl holds a bare word or number after the value until more input comes: only whitespace may follow.
    for (size_t at = matcher->end; whole && at < length; at++) whole = sluice_tokens::is_whitespace(bytes[at]);
    if (!whole) {
        yajl_free(handle);
        handle = nullptr;
        matcher->handle = nullptr;
        return SLUICE_MATCH_UNUSUAL;
    }
    if (matcher->overflowed) return SLUICE_MATCH_TOO_LARGE;
    matcher->keys.commit();
    *tape = matcher->tape.data();
    *count = matcher->tape.size();
    *end = matcher->end;
    *known_utf8 = matcher->known_utf8;
    return SLUICE_MATCH_OK;
}

size_t sluice_yajl_take_unmapped(sluice_yajl_matcher *matcher, const sluice_unmapped_sighting **sightings) {
    return matcher->keys.take(sightings);
}

}
