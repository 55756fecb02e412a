#ifndef SLUICE_YAJL_H
#define SLUICE_YAJL_H

#include "sluice_match.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// yajl's matched walk: the same matching and the same tape as simdjson's, over yajl's callbacks, for a record whose
/// bytes are all at hand.
typedef struct sluice_yajl_matcher sluice_yajl_matcher;

/// A matcher whose records nest at most `maximum_depth` levels (deeper ones are unusual) and read at most `tape_limit`
/// values (more make a well-formed record SLUICE_MATCH_TOO_LARGE). NULL when memory is short.
sluice_yajl_matcher *sluice_yajl_matcher_create(size_t maximum_depth, size_t tape_limit);
void sluice_yajl_matcher_free(sluice_yajl_matcher *matcher);

/// Reads the one JSON value in `bytes[0..<length]` (its first byte is the record's), matching its keys against
/// `tables` as yajl reports them; given a header's nodes (`header_nodes`, one per column, -1 for a column no field
/// reads), an array is a row whose values are read by the header's names. On SLUICE_MATCH_OK, `*tape` and `*count`
/// give the entries, `*end` the offset just past the record, and `*known_utf8` whether the record and the text
/// unescaped from it are well-formed UTF-8 (else only as well-formed as yajl checks: mapped text is to be checked).
/// The entries are the matcher's, valid until its next record; their bytes point into `bytes` (text without escapes,
/// captured containers), which must outlive them, or into the matcher (text yajl unescaped). Anything else (not
/// well-formed, too deep, a second value) is SLUICE_MATCH_UNUSUAL, with nothing handed over; SLUICE_MATCH_NO_MEMORY
/// when yajl's parser could not be allocated.
sluice_match_status sluice_yajl_match(sluice_yajl_matcher *matcher, const uint8_t *bytes, size_t length,
                                      const sluice_plan_tables *tables, const int32_t *header_nodes, size_t header_count,
                                      const sluice_tape_entry **tape, size_t *count, size_t *end, bool *known_utf8);

/// Hands over the keys no field reads that sluice_yajl_match counted itself since the last call, and forgets them.
/// `*sightings` is owned by the matcher, valid until its next record or call.
size_t sluice_yajl_take_unmapped(sluice_yajl_matcher *matcher, const sluice_unmapped_sighting **sightings);

/// What yajl's verdict on a record is, when a matched walk could not read it whole.
typedef enum {
    /// One well-formed value, no deeper than allowed (a record passed over, which no walk reads).
    SLUICE_VERDICT_WELL_FORMED = 0,
    /// yajl refused a byte: `offset` is just past it, `message` says why.
    SLUICE_VERDICT_MALFORMED = 1,
    /// The bytes end inside a container.
    SLUICE_VERDICT_TRUNCATED = 2,
    /// A second value starts after the record's: `offset` is just past its first token.
    SLUICE_VERDICT_EXTRA_VALUE = 3,
    /// A container opens deeper than allowed: `offset` is just past its opening bracket.
    SLUICE_VERDICT_TOO_DEEP = 4,
    /// yajl's parser could not be allocated: nothing was judged.
    SLUICE_VERDICT_NO_MEMORY = 5,
} sluice_verdict_kind;

typedef struct {
    sluice_verdict_kind kind;
    /// From the first byte judged.
    size_t offset;
    /// yajl's message (SLUICE_VERDICT_MALFORMED), NUL-terminated, cut to fit.
    char message[160];
    /// SLUICE_VERDICT_MALFORMED: yajl refused the byte inside a record: in a container, or (`single_value`) after the
    /// value, which a document's record holds until the input ends; not in a value at the top level (a string, number
    /// or word, which begins a record only once it is whole), nor after a value of a stream, whose record has ended.
    bool inside_record;
} sluice_verdict;

/// Judges `bytes[0..<length]` as yajl's callback parser reads a line of values (or, `single_value`, a document of one
/// value, which yajl ends with "trailing garbage"), containers opening at most `maximum_depth` levels deep;
/// `ends_line`: a line feed is fed after them, as one ends a line that lacks its own; `ends_input`: the input ends
/// after them, as yajl is told once a stream ends (a value cut short there is SLUICE_VERDICT_TRUNCATED, a number left
/// malformed SLUICE_VERDICT_MALFORMED at `length`).
/// Form feed and vertical tab, which yajl takes for whitespace, are malformed JSON here.
sluice_verdict sluice_yajl_judge(const uint8_t *bytes, size_t length, size_t maximum_depth, bool single_value, bool ends_line, bool ends_input);

#ifdef __cplusplus
}
#endif

#endif
