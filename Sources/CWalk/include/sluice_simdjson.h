#ifndef SLUICE_SIMDJSON_H
#define SLUICE_SIMDJSON_H

#include "sluice_match.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sluice_simdjson_parser sluice_simdjson_parser;

/// Bytes simdjson may read past the end of what it parses; they must be readable, their values do not matter.
size_t sluice_simdjson_padding(void);

/// The name of the SIMD kernel simdjson chose for this CPU (its first stage).
const char *sluice_simdjson_kernel(void);

/// A parser whose walks read containers nested at most `maximum_depth` levels (deeper ones are unusual), and at most
/// `tape_limit` values of a record (more make it too large). NULL when memory is short.
sluice_simdjson_parser *sluice_simdjson_parser_create(size_t maximum_depth, size_t tape_limit);
void sluice_simdjson_parser_free(sluice_simdjson_parser *parser);

/// Whether sluice_simdjson_match first reads a record over simdjson's first stage alone (on by default), leaving to
/// its On-Demand walk only what that walk does not read. Off, the On-Demand walk reads every record: the two walks
/// are compared so.
void sluice_simdjson_parser_walk_indexes(sluice_simdjson_parser *parser, bool walks);

/// How many records the walk over the first stage's indexes read whole since the parser was made.
size_t sluice_simdjson_indexed_records(const sluice_simdjson_parser *parser);

/// The number of `{` and `[` bytes in `bytes[0..<length]`, strings included: a bound on the value's nesting.
size_t sluice_count_openings(const uint8_t *bytes, size_t length);

/// Whether `bytes[0..<length]` are well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF), by
/// simdjson's validator on the processor's widest kernel.
bool sluice_is_utf8(const uint8_t *bytes, size_t length);

/// Hands over the keys no field reads that sluice_simdjson_match counted itself since the last call, and forgets
/// them. `*sightings` is owned by the parser, valid until its next walk or call.
size_t sluice_simdjson_take_unmapped(sluice_simdjson_parser *parser, const sluice_unmapped_sighting **sightings);

/// Walks the one JSON object in `bytes[0..<length]` (`capacity` readable, at least `length` plus the padding),
/// matching its keys against `tables` as it goes; or, given a header's nodes (`header_nodes`, one per column, -1
/// for a column no field reads), the one array, a row whose values are read by the header's names. On
/// SLUICE_MATCH_OK, `*tape` and `*count` give the entries (owned by the parser, valid until its next walk) and
/// `*end` the offset just past the record.
sluice_match_status sluice_simdjson_match(sluice_simdjson_parser *parser, const uint8_t *bytes, size_t length, size_t capacity,
                                          const sluice_plan_tables *tables, const int32_t *header_nodes, size_t header_count,
                                          const sluice_tape_entry **tape, size_t *count, size_t *end);

#ifdef __cplusplus
}
#endif

#endif
