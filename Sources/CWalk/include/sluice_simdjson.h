#ifndef SLUICE_SIMDJSON_H
#define SLUICE_SIMDJSON_H

#include "sluice_match.h"

#ifdef __cplusplus
extern "C" {
#endif

/// What a walk reports to its consumer, in document order. `end` is the offset just past the token, counted
/// from the first byte walked. Each returns 0 to stop the walk; `map_key` returns 2 to have the key's value
/// skipped (simdjson passes over it without reporting anything inside).
typedef struct {
    int (*null_value)(void *context, size_t end);
    int (*boolean)(void *context, int value, size_t end);
    /// The number's text as it stands in the input.
    int (*number)(void *context, const uint8_t *text, size_t length, size_t end);
    /// The string's bytes, escapes resolved.
    int (*string)(void *context, const uint8_t *text, size_t length, size_t end);
    int (*start_map)(void *context, size_t end);
    int (*map_key)(void *context, const uint8_t *key, size_t length, size_t end);
    int (*end_map)(void *context, size_t end);
    int (*start_array)(void *context, size_t end);
    int (*end_array)(void *context, size_t end);
    /// Before each element of an array: returns 2 to have it passed over unread (the consumer counts it as
    /// seen), 1 to have it reported.
    int (*array_element)(void *context);
} sluice_json_events;

typedef enum {
    /// One whole value was walked, and nothing but whitespace follows it.
    SLUICE_WALK_OK = 0,
    /// A callback returned 0.
    SLUICE_WALK_CANCELLED = 1,
    /// simdjson cannot read the bytes as one value (malformed, truncated, too deep, a second value): the caller
    /// asks a validating tokenizer what exactly is wrong. Events may have been reported before this.
    SLUICE_WALK_UNREADABLE = 2,
    /// The bytes are not UTF-8; nothing was reported.
    SLUICE_WALK_INVALID_UTF8 = 3,
} sluice_walk_status;

typedef struct sluice_simdjson_parser sluice_simdjson_parser;

/// Bytes simdjson may read past the end of what it parses; they must be readable, their values do not matter.
size_t sluice_simdjson_padding(void);

/// The name of the SIMD kernel simdjson chose for this CPU (its first stage).
const char *sluice_simdjson_kernel(void);

/// A parser whose walks report containers nested at most `maximum_depth` levels; deeper ones are unreadable.
/// NULL when memory is short.
sluice_simdjson_parser *sluice_simdjson_parser_create(size_t maximum_depth);
void sluice_simdjson_parser_free(sluice_simdjson_parser *parser);

/// Walks the one JSON value in `bytes[0..<length]`; `capacity` bytes from `bytes` are readable, at least
/// `length` plus the padding. A value the consumer skips is passed over by counting brackets from its first token,
/// which must start a value: what is inside it is not checked.
sluice_walk_status sluice_simdjson_walk(sluice_simdjson_parser *parser, const uint8_t *bytes, size_t length, size_t capacity,
                                        const sluice_json_events *events, void *context);

/// The number of `{` and `[` bytes in `bytes[0..<length]`, strings included: a bound on the value's nesting.
size_t sluice_count_openings(const uint8_t *bytes, size_t length);

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
