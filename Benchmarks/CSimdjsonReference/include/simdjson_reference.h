#ifndef SLUICE_SIMDJSON_REFERENCE_H
#define SLUICE_SIMDJSON_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What the reference pass read: records, and a sum over the fields so that no read can be optimised away.
typedef struct {
    size_t records;
    uint64_t digest;
    /// 0, or simdjson's error code for the first record it could not read.
    int error;
} sluice_reference_result;

/// A plain simdjson On-Demand pass over the NDJSON file at `path`, written by hand for the bench's generated
/// tweets: it reads the bench mapping's seventeen fields from each record and nothing else (no conversion to
/// columns, no dates parsed, no rejections). The ceiling a simdjson-based mapper is measured against.
sluice_reference_result sluice_simdjson_reference_pass(const char *path);

#ifdef __cplusplus
}
#endif

#endif
