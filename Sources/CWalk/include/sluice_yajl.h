#ifndef SLUICE_YAJL_H
#define SLUICE_YAJL_H

#include "sluice_match.h"

#ifdef __cplusplus
extern "C" {
#endif

/// yajl's matched walk: the same matching and the same tape as simdjson's, over yajl's events, for a record whose
/// bytes are all at hand.
typedef struct sluice_yajl_matcher sluice_yajl_matcher;

/// A matcher whose records nest at most `maximum_depth` levels (deeper ones are unusual). NULL when memory is short.
sluice_yajl_matcher *sluice_yajl_matcher_create(size_t maximum_depth);
void sluice_yajl_matcher_free(sluice_yajl_matcher *matcher);

/// Reads the one JSON value in `bytes[0..<length]` (its first byte is the record's), matching its keys against
/// `tables` as yajl reports them; given a header's nodes (`header_nodes`, one per column, -1 for a column no field
/// reads), an array is a row whose values are read by the header's names. On SLUICE_MATCH_OK, `*tape` and `*count`
/// give the entries and `*end` the offset just past the record. The entries are the matcher's, valid until its next
/// record; their bytes point into `bytes` (text without escapes, captured containers), which must outlive them, or
/// into the matcher (text yajl unescaped). Anything else (not well-formed, too deep, a second value, a row read whole
/// as json) is SLUICE_MATCH_UNUSUAL, with nothing handed over.
sluice_match_status sluice_yajl_match(sluice_yajl_matcher *matcher, const uint8_t *bytes, size_t length,
                                      const sluice_plan_tables *tables, const int32_t *header_nodes, size_t header_count,
                                      const sluice_tape_entry **tape, size_t *count, size_t *end);

/// Hands over the keys no field reads that sluice_yajl_match counted itself since the last call, and forgets them.
/// `*sightings` is owned by the matcher, valid until its next record or call.
size_t sluice_yajl_take_unmapped(sluice_yajl_matcher *matcher, const sluice_unmapped_sighting **sightings);

#ifdef __cplusplus
}
#endif

#endif
