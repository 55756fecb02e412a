#ifndef SLUICE_SIMDJSON_REFERENCE_H
#define SLUICE_SIMDJSON_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What the reference pass read: records, and the bench's checksum of them (`Checksum` in SluiceBench), which the
/// runner compares with every other contender's.
typedef struct {
    size_t records;
    uint64_t digest;
    /// 0, or simdjson's error code for the first record it could not read.
    int error;
} sluice_reference_result;

/// A simdjson On-Demand mapper of the NDJSON file at `path`, written by hand for the bench's generated tweets: the
/// ceiling a simdjson-based mapper is measured against, so it does the same work and reads the input the same way as
/// Sluice: the file streamed in pieces of 4 MiB (no whole-file load), each line parsed where it lies with
/// `parser.iterate`, the bench mapping's seventeen fields read in the records' order, `created_at` parsed by a
/// fixed-format parser, and the text fields copied into a column buffer reused every 4,096 records. It assumes the
/// generated records' key order and rejects nothing.
sluice_reference_result sluice_simdjson_reference_pass(const char *path);

#ifdef __cplusplus
}
#endif

#endif
