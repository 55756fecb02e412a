#ifndef SLUICE_MATCH_H
#define SLUICE_MATCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A compiled plan's key-path trie as flat tables, for matching keys inside the walk. Node 0 is the record.
typedef struct {
    /// The number of nodes with key children, and per node its first slot among their key guesses (64 a node, one
    /// per key position) or -1 for a node without key children.
    int32_t guessed_nodes;
    const int32_t *first_guess;
    /// Per node: its first entry in the key tables and how many key children it has.
    const int32_t *first_key;
    const int32_t *key_count;
    /// Per node: SLUICE_NODE_* flags.
    const uint8_t *flags;
    /// Per key entry: where its bytes start in `key_bytes`, their length, and the child node it leads to.
    const int32_t *key_start;
    const int32_t *key_length;
    const int32_t *key_child;
    const uint8_t *key_bytes;
    /// Per node: its first entry in the index tables and how many array elements it names.
    const int32_t *first_index;
    const int32_t *index_count;
    /// Per index entry: the element's index (-1 for `*`, the node's last entry: every index before it unnamed) and
    /// the child node it leads to.
    const int64_t *index_value;
    const int32_t *index_child;
    /// Per node: for an array whose elements a plan of their own maps (a typed array of models), the node of that
    /// plan's root; -1 elsewhere. An element plan's nodes follow the record's in the same tables.
    const int32_t *element_root;
} sluice_plan_tables;

enum {
    /// Some field reads here (a scalar, or json text where SLUICE_NODE_CAPTURES is set too).
    SLUICE_NODE_SCALAR = 1,
    /// A key no field reads is not counted here: an ignored path covers it, or the node is an element plan's, whose
    /// machine keeps no report of such keys.
    SLUICE_NODE_IGNORES_UNREAD_KEYS = 2,
    /// Only an ignored path ends here: the value, whatever its shape, is passed over unread and uncounted.
    SLUICE_NODE_PASSED_OVER = 4,
    /// Only json fields read here: a container here is checked whole (walked strictly where fields read beneath) and
    /// handed over as its text.
    SLUICE_NODE_CAPTURES = 8,
    /// List fields read the elements of an array here: an array here opens their lists, so an empty one gives `[]`.
    SLUICE_NODE_STARTS_LISTS = 16,
    /// A key no field reads here fails its record (strict mode): it crosses on the tape, never counted in the walk.
    SLUICE_NODE_REJECTS_UNREAD_KEYS = 32,
    /// An array here is mapped element by element by the plan at `element_root`.
    SLUICE_NODE_MAPS_ELEMENTS = 64,
};

/// One value or key of a record, in document order, as the matched walk hands it over.
typedef enum {
    SLUICE_TAPE_NULL = 0,
    SLUICE_TAPE_FALSE = 1,
    SLUICE_TAPE_TRUE = 2,
    /// The number's text as it stands in the input.
    SLUICE_TAPE_NUMBER = 3,
    /// The string's bytes, escapes resolved (in the parser's buffer until the next walk when it had escapes).
    SLUICE_TAPE_STRING = 4,
    /// A key no field reads that the walk did not count itself (past the guesses, or failing its record where
    /// SLUICE_NODE_REJECTS_UNREAD_KEYS): `node` is the object's
    /// node, `end` the key's position among the object's keys.
    SLUICE_TAPE_UNMAPPED_KEY = 5,
    /// An object or array a json field captures: `bytes` and `length` are its text, `end` the offset just past it.
    SLUICE_TAPE_CAPTURE = 6,
    /// An array at a node that starts lists, before its elements: `end` is the offset just past its `[`.
    SLUICE_TAPE_LIST_START = 7,
    /// A row holds a value past the header's columns (the first such value): its record fails.
    SLUICE_TAPE_EXTRA_VALUE = 8,
    /// An array at a node that maps elements, before its elements: `end` is the offset just past its `[`, `length`
    /// the node of the element plan's root (which the element plan's nodes on the tape count from).
    SLUICE_TAPE_ELEMENTS_START = 9,
    /// One element of that array, before its own entries: `node` is its index in the array (nulls counted),
    /// `length` how many entries after this one are its, `end` the offset just past it. A null element has no marker.
    SLUICE_TAPE_ELEMENT = 10,
    /// The end of that array: `end` is the offset just past its `]`, `length` how many elements it held (nulls counted).
    SLUICE_TAPE_ELEMENTS_END = 11,
    /// A container where a field reads a scalar, or of the other kind than the plan looks for at `node` (its first
    /// byte at `bytes`): the fields it does not fit fail on it. Nothing in one of the other kind is read.
    SLUICE_TAPE_MISMATCH = 12,
} sluice_tape_kind;

typedef struct {
    const uint8_t *bytes;
    size_t length;
    /// The offset just past the value, from the first byte walked (for a key: its position).
    size_t end;
    int32_t node;
    int32_t kind;
} sluice_tape_entry;

typedef enum {
    /// The record was walked whole; the tape holds its mapped values and unmapped keys, and `end` is just past it.
    SLUICE_MATCH_OK = 0,
    /// The record holds something the walk leaves to the next reader (damage, nesting past the walk's depth; for
    /// simdjson's, also a row read whole as json and anything yajl's reads as simply): nothing was handed over.
    SLUICE_MATCH_UNUSUAL = 1,
    /// The walk's parser could not be allocated: nothing was handed over, and nothing can be read.
    SLUICE_MATCH_NO_MEMORY = 2,
    /// The bytes are not UTF-8.
    SLUICE_MATCH_INVALID_UTF8 = 3,
    /// The record is well-formed, but reads more values than its walk's tape may hold: nothing was handed over.
    SLUICE_MATCH_TOO_LARGE = 4,
} sluice_match_status;

/// A key no field reads, in the object at `node`, and how often records walked whole showed it: its bytes are the
/// first `length` bytes of `words`, in memory order.
typedef struct {
    uint64_t words[4];
    int32_t length;
    int32_t node;
    uint64_t count;
} sluice_unmapped_sighting;

#ifdef __cplusplus
}
#endif

#endif
