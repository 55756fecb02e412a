#include "simdjson_reference.h"

#include <simdjson.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

using namespace simdjson;

namespace {

/// The text fields a mapper keeps, copied as its columns would hold them: the bytes one after another and where
/// each value ends. Emptied every batch, as a mapper reuses its batch.
struct TextColumn {
    std::vector<char> bytes;
    std::vector<uint32_t> ends;

    void add(std::string_view text) {
        bytes.insert(bytes.end(), text.begin(), text.end());
        ends.push_back(uint32_t(bytes.size()));
    }
    void clear() {
        bytes.clear();
        ends.clear();
    }
};

constexpr size_t batch_records = 4096;

int64_t days_from_civil(int64_t year, int64_t month, int64_t day) {
    const int64_t y = month <= 2 ? year - 1 : year;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const int64_t year_of_era = y - era * 400;
    const int64_t day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * 146097 + day_of_era - 719468;
}

/// Twitter's `EEE MMM dd HH:mm:ss Z yyyy` by a fixed-format parser, in seconds since 1970.
bool twitter_seconds(std::string_view text, int64_t &seconds) {
    if (text.size() != 30) return false;
    auto number = [&](size_t from, size_t count, int64_t &value) {
        value = 0;
        for (size_t index = from; index < from + count; index++) {
            const unsigned digit = unsigned(text[index]) - '0';
            if (digit > 9) return false;
            value = value * 10 + digit;
        }
        return true;
    };
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    int64_t month = 0;
    for (int index = 0; index < 12; index++) {
        if (std::memcmp(months + 3 * index, text.data() + 4, 3) == 0) month = index + 1;
    }
    int64_t day, hour, minute, second, offset_hours, offset_minutes, year;
    if (month == 0 || !number(8, 2, day) || !number(11, 2, hour) || !number(14, 2, minute) || !number(17, 2, second) ||
        !number(21, 2, offset_hours) || !number(23, 2, offset_minutes) || !number(26, 4, year)) {
        return false;
    }
    const int64_t sign = text[20] == '-' ? -1 : 1;
    seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second -
              sign * (offset_hours * 3600 + offset_minutes * 60);
    return true;
}

/// Reads the bench mapping's fields in the order the generated records hold them, converts them as the mapping
/// says, keeps the text, and adds the record to the bench's checksum (`Checksum.add` in SluiceBench).
error_code read_record(ondemand::document &document, TextColumn &text_column, uint64_t &checksum) {
    int64_t id = 0, followers = 0, retweets = 0, favorites = 0, user_id = 0, user_created_ms = 0, created = 0;
    double real = 0;
    bool verified = false, favorited = false, is_null = false;
    std::string_view text;
    SIMDJSON_TRY(document.find_field("id").get_int64().get(id));
    SIMDJSON_TRY(document.find_field("id_str").get_string().get(text));
    text_column.add(text);
    SIMDJSON_TRY(document.find_field("created_at").get_string().get(text));
    if (!twitter_seconds(text, created)) return INCORRECT_TYPE;
    SIMDJSON_TRY(document.find_field("text").get_string().get(text));
    text_column.add(text);
    const uint64_t text_bytes = text.size();
    ondemand::object user;
    SIMDJSON_TRY(document.find_field("user").get_object().get(user));
    SIMDJSON_TRY(user.find_field("id").get_int64().get(user_id));
    SIMDJSON_TRY(user.find_field("screen_name").get_string().get(text));
    text_column.add(text);
    SIMDJSON_TRY(user.find_field("followers_count").get_int64().get(followers));
    SIMDJSON_TRY(user.find_field("verified").get_bool().get(verified));
    ondemand::value location;
    SIMDJSON_TRY(user.find_field("location").get(location));
    SIMDJSON_TRY(location.is_null().get(is_null));
    if (!is_null) {
        SIMDJSON_TRY(location.get_string().get(text));
        text_column.add(text);
    }
    SIMDJSON_TRY(user.find_field("created_ms").get_int64().get(user_created_ms));
    SIMDJSON_TRY(document.find_field("retweet_count").get_int64().get(retweets));
    SIMDJSON_TRY(document.find_field("favorite_count").get_int64().get(favorites));
    SIMDJSON_TRY(document.find_field("favorited").get_bool().get(favorited));
    SIMDJSON_TRY(document.find_field("lang").get_string().get(text));
    text_column.add(text);
    SIMDJSON_TRY(document.find_field("score").get_double().get(real));
    ondemand::value coordinates;
    SIMDJSON_TRY(document.find_field("coordinates").get(coordinates));
    SIMDJSON_TRY(coordinates.is_null().get(is_null));
    if (!is_null) {
        ondemand::array pair;
        SIMDJSON_TRY(coordinates.find_field("coordinates").get_array().get(pair));
        for (auto element : pair) {
            SIMDJSON_TRY(element.get_double().get(real));
            break;
        }
    }
    int64_t first_hashtag_bytes = -1;
    ondemand::array hashtags;
    SIMDJSON_TRY(document.find_field("entities").find_field("hashtags").get_array().get(hashtags));
    for (auto hashtag : hashtags) {
        SIMDJSON_TRY(hashtag.find_field("text").get_string().get(text));
        text_column.add(text);
        first_hashtag_bytes = int64_t(text.size());
        break;
    }
    // Unsigned, so that the sums wrap as the Swift side's `&+` and `&*` do.
    uint64_t record = uint64_t(id);
    record += uint64_t(followers) * 3;
    record += uint64_t(retweets) * 7;
    record += uint64_t(created) * 11;
    record += uint64_t(user_created_ms) * 5;
    record += text_bytes * 13;
    record += verified ? 17 : 0;
    record += uint64_t(first_hashtag_bytes) * 19;
    checksum += record;
    return SUCCESS;
}

}  // namespace

extern "C" sluice_reference_result sluice_simdjson_reference_pass(const char *path) {
    sluice_reference_result result{0, 0, 0};
    const int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) {
        result.error = int(IO_ERROR);
        return result;
    }
    // A piece of the file at a time, as a streaming mapper reads it; a line longer than a piece grows the buffer.
    size_t capacity = 4 << 20;
    std::unique_ptr<char[]> buffer(new char[capacity + SIMDJSON_PADDING]);
    size_t filled = 0;
    bool at_end = false;
    ondemand::parser parser;
    TextColumn text_column;
    while (!at_end || filled > 0) {
        if (!at_end) {
            const ssize_t count = read(descriptor, buffer.get() + filled, capacity - filled);
            if (count < 0) {
                result.error = int(IO_ERROR);
                break;
            }
            at_end = count == 0;
            filled += size_t(count);
        }
        const char *last_line_feed = static_cast<const char *>(memrchr(buffer.get(), '\n', filled));
        size_t complete = last_line_feed ? size_t(last_line_feed - buffer.get()) + 1 : (at_end ? filled : 0);
        if (complete == 0) {
            if (filled < capacity) continue;
            std::unique_ptr<char[]> larger(new char[2 * capacity + SIMDJSON_PADDING]);
            std::memcpy(larger.get(), buffer.get(), filled);
            buffer = std::move(larger);
            capacity *= 2;
            continue;
        }
        size_t start = 0;
        while (start < complete) {
            const char *line_feed = static_cast<const char *>(std::memchr(buffer.get() + start, '\n', complete - start));
            const size_t end = line_feed ? size_t(line_feed - buffer.get()) : complete;
            if (end > start) {
                ondemand::document document;
                // The bytes after the line (the next lines, or the padding) are its padding: nothing is copied.
                error_code error = parser.iterate(buffer.get() + start, end - start, capacity + SIMDJSON_PADDING - start).get(document);
                if (!error) error = read_record(document, text_column, result.digest);
                if (error) {
                    result.error = int(error);
                    close(descriptor);
                    return result;
                }
                if (++result.records % batch_records == 0) text_column.clear();
            }
            start = end + 1;
        }
        std::memmove(buffer.get(), buffer.get() + complete, filled - complete);
        filled -= complete;
    }
    close(descriptor);
    return result;
}
