// The parser behind the C interface's opaque handle.

#ifndef SLUICE_PARSER_STATE_H
#define SLUICE_PARSER_STATE_H

#include "key_matching.h"
#include "structural_walk.h"

#include <simdjson.h>

#include <vector>

struct sluice_simdjson_parser {
    simdjson::ondemand::parser parser;
    size_t maximum_depth;
    /// The matched walk's entries, kept from record to record so that a record costs no allocation.
    std::vector<sluice_tape_entry> tape;
    /// The most entries a record's tape may hold.
    size_t tape_limit;
    /// The matched walk's key guesses and counts of keys no field reads.
    sluice_matching::key_matcher keys;
    /// Stage one's indexes for the walk over them, which reads most records before the On-Demand walk is asked.
    sluice_structural::indexer indexing;
    bool walks_indexes = true;
    size_t indexed_records = 0;
};

#endif
