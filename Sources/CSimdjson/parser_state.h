// The parser behind the C interface's opaque handle, shared by the event walk and the matched walk.

#ifndef SLUICE_PARSER_STATE_H
#define SLUICE_PARSER_STATE_H

#include "sluice_match.h"

#include <simdjson.h>

#include <vector>

/// A key of at most 32 bytes, as four words with the bytes past its end zeroed, and the child it leads to (-1: none);
/// for a key no field reads, its object's node and how often records walked whole showed it since it was last taken.
struct sluice_key_guess {
    uint64_t words[4];
    int32_t length;
    int32_t child;
    int32_t node;
    uint32_t sightings;
};

struct sluice_simdjson_parser {
    simdjson::ondemand::parser parser;
    size_t maximum_depth;
    /// The matched walk's entries, kept from record to record so that a record costs no allocation.
    std::vector<sluice_tape_entry> tape;
    /// The matched walk's guesses: per node and key position, the key seen there last and what it matched.
    std::vector<sluice_key_guess> guesses;
    const sluice_plan_tables *guessed_for = nullptr;
    /// The record being walked: the guesses at which it showed a key no field reads, and what it saw of keys whose
    /// guesses it replaced; they count once the record is walked whole, and not at all if it is handed back.
    std::vector<uint32_t> pending;
    std::vector<sluice_unmapped_sighting> pending_evicted;
    /// Sightings of keys whose guesses were replaced, from records walked whole, until taken; and what was taken.
    std::vector<sluice_unmapped_sighting> evicted;
    std::vector<sluice_unmapped_sighting> taken;
};

#endif
