// yajl's verdict on a record a matched walk could not read whole: whether it is one well-formed value within the
// depth allowed, and if not, where and why, found as yajl's callback parser would find it on the record's line. Only
// records a walk hands back come here, so it is built for being right, not fast: a handle a call.

#include "include/sluice_yajl.h"

#include <yajl/yajl_parse.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace {

struct judge {
    yajl_handle handle = nullptr;
    size_t maximum_depth = 0;
    bool single_value = false;
    size_t depth = 0;
    bool complete = false;
    /// Where the slice being parsed starts, from the first byte judged.
    size_t slice_start = 0;
    sluice_verdict verdict{};

    bool inside_record() const { return depth > 0 || (single_value && complete); }

    size_t offset() const { return slice_start + yajl_get_bytes_consumed(handle); }

    int stop(sluice_verdict_kind kind) {
        verdict.kind = kind;
        verdict.offset = offset();
        return 0;
    }

    /// yajl's error, at `at` from the first byte judged.
    void refuse(size_t at) {
        verdict.kind = SLUICE_VERDICT_MALFORMED;
        verdict.offset = at;
        verdict.inside_record = inside_record();
        unsigned char *text = yajl_get_error(handle, 0, nullptr, 0);
        std::snprintf(verdict.message, sizeof verdict.message, "%s", text != nullptr ? reinterpret_cast<const char *>(text) : "malformed JSON");
        if (text != nullptr) yajl_free_error(handle, text);
    }

    int value() {
        if (depth == 0 && complete) return stop(SLUICE_VERDICT_EXTRA_VALUE);
        if (depth == 0) complete = true;
        return 1;
    }

    int open() {
        if (value() == 0) return 0;
        complete = false;
        return ++depth > maximum_depth ? stop(SLUICE_VERDICT_TOO_DEEP) : 1;
    }

    int close() {
        if (--depth == 0) complete = true;
        return 1;
    }

    /// yajl's status after a parse call: `true` where the verdict is made.
    bool judged(yajl_status status) {
        if (status == yajl_status_ok) return false;
        if (status == yajl_status_client_canceled) return true;
        refuse(offset());
        return true;
    }

    bool parse(const uint8_t *bytes, size_t length, size_t start) {
        slice_start = start;
        return judged(yajl_parse(handle, bytes, length));
    }
};

judge &judge_of(void *context) { return *static_cast<judge *>(context); }

const yajl_callbacks callbacks = {
    [](void *context) { return judge_of(context).value(); },
    [](void *context, int) { return judge_of(context).value(); },
    nullptr,
    nullptr,
    [](void *context, const char *, size_t) { return judge_of(context).value(); },
    [](void *context, const unsigned char *, size_t) { return judge_of(context).value(); },
    [](void *context) { return judge_of(context).open(); },
    [](void *, const unsigned char *, size_t) { return 1; },
    [](void *context) { return judge_of(context).close(); },
    [](void *context) { return judge_of(context).open(); },
    [](void *context) { return judge_of(context).close(); },
};

}  // namespace

extern "C" sluice_verdict sluice_yajl_judge(const uint8_t *bytes, size_t length, size_t maximum_depth, bool single_value, bool ends_line,
                                            bool ends_input) {
    judge state;
    state.maximum_depth = maximum_depth;
    state.single_value = single_value;
    state.verdict.kind = SLUICE_VERDICT_WELL_FORMED;
    state.handle = yajl_alloc(&callbacks, nullptr, &state);
    if (state.handle == nullptr) {
        state.verdict.kind = SLUICE_VERDICT_NO_MEMORY;
        return state.verdict;
    }
    yajl_config(state.handle, yajl_allow_multiple_values, single_value ? 0 : 1);
    // The first form feed or vertical tab ends the input, wherever it is: inside a string yajl rejects it anyway.
    const uint8_t *stop = std::find_if(bytes, bytes + length, [](uint8_t byte) { return byte == 0x0C || byte == 0x0B; });
    const size_t before = size_t(stop - bytes);
    if (before < length) {
        if (before > 0 && state.judged(yajl_parse(state.handle, bytes, before))) {
            yajl_free(state.handle);
            return state.verdict;
        }
        state.verdict.kind = SLUICE_VERDICT_MALFORMED;
        state.verdict.offset = before + 1;
        state.verdict.inside_record = state.inside_record();
        std::snprintf(state.verdict.message, sizeof state.verdict.message, "lexical error: %s (a control character that is not JSON whitespace)",
                      *stop == 0x0C ? "form feed" : "vertical tab");
        yajl_free(state.handle);
        return state.verdict;
    }
    static const uint8_t line_feed = '\n';
    bool judged = state.parse(bytes, length, 0) || (ends_line && state.parse(&line_feed, 1, length));
    const yajl_status finished = !judged && ends_input ? yajl_complete_parse(state.handle) : yajl_status_ok;
    if (finished == yajl_status_client_canceled) {
        // The end completed a number that is a second value: the callback has said so.
        judged = true;
    } else if (finished != yajl_status_ok) {
        // Any refusal at the end is of a number the end left malformed, placed where the input ends, unless it says
        // a value was cut short (yajl says so only in its message).
        state.refuse(length);
        if (std::strstr(state.verdict.message, "premature EOF") != nullptr) state.verdict.kind = SLUICE_VERDICT_TRUNCATED;
        judged = true;
    }
    // A line feed ends any number or word, and no string may hold one: only a container can still be open. (At the
    // input's end yajl has said so already.)
    if (!judged && state.depth > 0) state.verdict.kind = SLUICE_VERDICT_TRUNCATED;
    yajl_free(state.handle);
    return state.verdict;
}
