// The matched walk over simdjson's stage one alone: the structural indexes it finds, read in order, matched against
// the plan's tables by the same rules as the On-Demand walk. It reads the records most plans meet (objects, scalars,
// arrays of named or listed elements, json text captured and checked) and hands everything else back, to the
// On-Demand walk, which gives the same tape wherever both read a record: this walk only saves On-Demand's bookkeeping
// per value.

#ifndef SLUICE_STRUCTURAL_WALK_H
#define SLUICE_STRUCTURAL_WALK_H

#include "key_matching.h"

#include <simdjson.h>

#include <memory>
#include <vector>

namespace sluice_structural {

/// Stage one's structural indexes of the record last indexed, the scratch its escaped text is unescaped into, and
/// whether the plan last asked about is one this walk reads.
struct indexer {
    std::unique_ptr<simdjson::internal::dom_parser_implementation> stage_one;
    std::vector<uint8_t> scratch;
    const sluice_plan_tables *judged = nullptr;
    bool readable = false;
};

/// `refused`: stage one refused the record, as it would for the On-Demand walk (yajl judges it).
enum class outcome { ok, unusual, refused, invalid_utf8, no_memory, too_large };

/// Whether this walk reads records of `tables` (and of a plan without header rows): no typed array maps elements, and
/// the record's object is looked into, not read as a scalar.
bool reads_plan(indexer &state, const sluice_plan_tables *tables);

/// Indexes the record in `bytes` (followed by at least SIMDJSON_PADDING readable bytes) and walks it, filling `tape`
/// as the On-Demand walk would.
/// `ok`: `end` is just past the record's object and `keys` counted what it saw (to be committed by the caller);
/// `unusual`: the record is left to the On-Demand walk (the tape and the keys' counts of this try are to be dropped).
/// `too_large`: the record is whole but reads more values than `tape_limit` entries hold.
outcome walk(indexer &state, const uint8_t *bytes, size_t length, const sluice_plan_tables *tables, size_t maximum_depth, size_t tape_limit,
             std::vector<sluice_tape_entry> &tape, sluice_matching::key_matcher &keys, size_t &end);

}  // namespace sluice_structural

#endif
