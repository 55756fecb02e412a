// What simdjson's two walks (over stage one's indexes, and On-Demand's) share in writing a record's tape.

#ifndef SLUICE_TAPE_WRITER_H
#define SLUICE_TAPE_WRITER_H

#include "sluice_match.h"

#include <vector>

namespace sluice_walks {

/// How a walk's step ended: read, or the record is unusual for this walk (left to the next one, or to yajl).
enum class step { ok, unusual };

/// The tape one record's walk writes. A value checked but not read (node -1) writes nothing. A tape holds at most
/// `limit` entries: past it nothing more is written, the walk goes on checking, and `overflowed` says the record
/// reads too many values to be held (SLUICE_MATCH_TOO_LARGE once it is whole).
struct tape_writer {
    std::vector<sluice_tape_entry> &tape;
    size_t limit;
    bool overflowed = false;

    /// Whether one more entry fits; noted when it does not.
    inline bool has_room() {
        if (tape.size() < limit) return true;
        overflowed = true;
        return false;
    }

    inline void push(const uint8_t *bytes, size_t size, size_t end, int32_t node, sluice_tape_kind kind) {
        if (node >= 0 && has_room()) tape.push_back(sluice_tape_entry{bytes, size, end, node, int32_t(kind)});
    }
};

}  // namespace sluice_walks

#endif
