#include "simdjson_reference.h"

#include <simdjson.h>

#include <string_view>

using namespace simdjson;

namespace {

uint64_t text_digest(std::string_view text) { return text.size(); }

error_code read_record(ondemand::document_reference document, uint64_t &digest) {
    int64_t integer = 0;
    double real = 0;
    bool flag = false;
    std::string_view text;
    SIMDJSON_TRY(document["id"].get_int64().get(integer));
    digest += uint64_t(integer);
    SIMDJSON_TRY(document["id_str"].get_string().get(text));
    digest += text_digest(text);
    SIMDJSON_TRY(document["created_at"].get_string().get(text));
    digest += text_digest(text);
    SIMDJSON_TRY(document["text"].get_string().get(text));
    digest += text_digest(text);
    ondemand::object user;
    SIMDJSON_TRY(document["user"].get_object().get(user));
    SIMDJSON_TRY(user["id"].get_int64().get(integer));
    digest += uint64_t(integer);
    SIMDJSON_TRY(user["screen_name"].get_string().get(text));
    digest += text_digest(text);
    SIMDJSON_TRY(user["followers_count"].get_int64().get(integer));
    digest += uint64_t(integer);
    SIMDJSON_TRY(user["verified"].get_bool().get(flag));
    digest += flag;
    ondemand::value location;
    SIMDJSON_TRY(user["location"].get(location));
    bool is_null = false;
    SIMDJSON_TRY(location.is_null().get(is_null));
    if (!is_null) {
        SIMDJSON_TRY(location.get_string().get(text));
        digest += text_digest(text);
    }
    SIMDJSON_TRY(user["created_ms"].get_int64().get(integer));
    digest += uint64_t(integer);
    SIMDJSON_TRY(document["retweet_count"].get_int64().get(integer));
    digest += uint64_t(integer);
    SIMDJSON_TRY(document["favorite_count"].get_int64().get(integer));
    digest += uint64_t(integer);
    SIMDJSON_TRY(document["favorited"].get_bool().get(flag));
    digest += flag;
    SIMDJSON_TRY(document["lang"].get_string().get(text));
    digest += text_digest(text);
    SIMDJSON_TRY(document["score"].get_double().get(real));
    digest += uint64_t(real);
    ondemand::value coordinates;
    SIMDJSON_TRY(document["coordinates"].get(coordinates));
    SIMDJSON_TRY(coordinates.is_null().get(is_null));
    if (!is_null) {
        ondemand::array pair;
        SIMDJSON_TRY(coordinates["coordinates"].get_array().get(pair));
        for (auto element : pair) {
            SIMDJSON_TRY(element.get_double().get(real));
            digest += uint64_t(real);
            break;
        }
    }
    ondemand::array hashtags;
    SIMDJSON_TRY(document["entities"]["hashtags"].get_array().get(hashtags));
    for (auto hashtag : hashtags) {
        SIMDJSON_TRY(hashtag["text"].get_string().get(text));
        digest += text_digest(text);
        break;
    }
    return SUCCESS;
}

}  // namespace

extern "C" sluice_reference_result sluice_simdjson_reference_pass(const char *path) {
    sluice_reference_result result{0, 0, 0};
    padded_string json;
    if (error_code error = padded_string::load(path).get(json)) {
        result.error = int(error);
        return result;
    }
    ondemand::parser parser;
    ondemand::document_stream stream;
    if (error_code error = parser.iterate_many(json, 1 << 20).get(stream)) {
        result.error = int(error);
        return result;
    }
    for (auto document : stream) {
        ondemand::document_reference record;
        error_code error = std::move(document).get(record);
        if (!error) error = read_record(record, result.digest);
        if (error) {
            result.error = int(error);
            return result;
        }
        result.records++;
    }
    return result;
}
