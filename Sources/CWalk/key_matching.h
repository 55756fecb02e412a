// The matching rules both matched walks share, whatever tokenizer hands them keys: a key's child in the plan's tables
// (tried first against the key seen at the same position last time), an element's child, and the counts of keys no
// field reads, which hold only for records walked whole.

#ifndef SLUICE_KEY_MATCHING_H
#define SLUICE_KEY_MATCHING_H

#include "sluice_match.h"

#include <cstring>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sluice_matching {

/// Whether the plan's fields fail on the record's object (or row) itself: a scalar field at `$`, or a plan reading no
/// key of an object record; a json field at `$` captures the record instead.
inline bool fails_on_record(const sluice_plan_tables *tables, bool is_row) {
    const uint8_t root = tables->flags[0];
    return ((root & SLUICE_NODE_SCALAR) || (!is_row && tables->key_count[0] == 0)) && !(root & SLUICE_NODE_CAPTURES);
}

/// Records of one dump repeat their key order: the key at a node's position is guessed to be the one there last time.
constexpr size_t guessed_positions = 64;
constexpr size_t guessed_key_bytes = 32;

/// A key of at most 32 bytes, as four words with the bytes past its end zeroed, and the child it leads to (-1: none);
/// for a key no field reads, its object's node, how often records showed it since it was last taken, and how often
/// of those the record numbered `record` did (taken back should that record be handed back).
struct key_guess {
    uint64_t words[4];
    int32_t length;
    int32_t child;
    int32_t node;
    uint32_t sightings;
    uint32_t record;
    uint32_t in_record;
};

/// The key's first 32 bytes as four words, zero past its end. With `padded`, 32 bytes from the key's first may be read;
/// without, none past its end.
inline void load_words(const uint8_t *key, size_t length, uint64_t words[4], bool padded) {
    for (size_t i = 0; i < 4; i++) {
        uint64_t word = 0;
        if (i * 8 < length) {
            size_t left = length - i * 8;
            if (padded || left >= 8) {
                std::memcpy(&word, key + i * 8, 8);
                if (left < 8) word &= (uint64_t(1) << (left * 8)) - 1;
            } else {
                std::memcpy(&word, key + i * 8, left);
            }
        }
        words[i] = word;
    }
}

/// The key guesses of one plan's tables and the sightings of keys no field reads, kept by a parser from record to
/// record so that a record costs no allocation.
struct key_matcher {
    const sluice_plan_tables *tables = nullptr;
    std::vector<key_guess> guesses;
    /// The record being walked: its number, whether it is still open (neither walked whole nor abandoned), and what
    /// it saw of keys whose guesses it replaced. Its sightings count at once, for a record is rarely handed back, and
    /// are taken back if it is.
    uint32_t serial = 0;
    bool open = false;
    std::vector<sluice_unmapped_sighting> pending_evicted;
    /// The guesses the record counted a key in, so that taking its counts back costs what it saw, not every guess;
    /// past the first 64, every guess is looked at.
    static constexpr size_t touched_capacity = 64;
    uint32_t touched[touched_capacity];
    size_t touched_count = 0;
    /// Sightings of keys whose guesses were replaced, from records walked whole, until taken; and what was taken.
    std::vector<sluice_unmapped_sighting> evicted;
    std::vector<sluice_unmapped_sighting> taken;

    /// Before a record: forgets what an abandoned one saw. Guesses belong to one plan's tables; a parser walks for one
    /// plan, but they are made again should that change.
    void begin(const sluice_plan_tables *plan) {
        close_abandoned();
        open = true;
        pending_evicted.clear();
        touched_count = 0;
        if (++serial == 0) {
            // Numbers wrapped: no guess may seem to hold sightings of this record.
            for (key_guess &guess : guesses) guess.record = 0;
            serial = 1;
        }
        if (tables == plan) return;
        take_sightings(evicted);
        guesses.assign(size_t(plan->guessed_nodes) * guessed_positions, key_guess{{0, 0, 0, 0}, -1, -1, -1, 0, 0, 0});
        tables = plan;
    }

    /// After a record walked whole: the counts of the keys no field reads that it showed stand (they were made as it
    /// was walked), and so do those of keys whose guesses it replaced.
    void commit() {
        open = false;
        if (!pending_evicted.empty()) evicted.insert(evicted.end(), pending_evicted.begin(), pending_evicted.end());
    }

    /// Hands over the sightings since the last call (owned here until the next) and forgets them.
    size_t take(const sluice_unmapped_sighting **sightings) {
        close_abandoned();
        taken.swap(evicted);
        evicted.clear();
        take_sightings(taken);
        *sightings = taken.data();
        return taken.size();
    }

    /// The child of `node` whose key is `key`, -1 for none, or `escaped` for a raw key holding a backslash (to be
    /// matched unescaped): the guess for its position when it holds the same bytes (a guess never holds a raw key
    /// with escapes), else a scan, whose result becomes the guess. `raw` keys are as they stand in the input, others
    /// unescaped already; `padded`: 32 bytes from the key's first may be read.
    static constexpr int32_t escaped = -2;

    [[gnu::always_inline]] inline int32_t child(int32_t node, size_t position, const uint8_t *key, size_t key_length, bool raw, bool padded) {
        if (key_guess *guess = guess_holding(guesses_of(node), position, key, key_length, padded)) return guess->child;
        return unguessed(node, position, key, key_length, raw, padded);
    }

    /// The guess for `position` in an object of the node whose guesses are `node_guesses` (``guesses_of``), where
    /// it holds the key; else null.
    [[gnu::always_inline]] static inline key_guess *guess_holding(key_guess *node_guesses, size_t position, const uint8_t *key, size_t key_length,
                                                                  bool padded) {
        if (node_guesses == nullptr || position >= guessed_positions || !holds(node_guesses[position], key, key_length, padded)) return nullptr;
        return node_guesses + position;
    }

    /// The child of a key its guess does not hold (or that has none), which becomes the guess.
    int32_t unguessed(int32_t node, size_t position, const uint8_t *key, size_t key_length, bool raw, bool padded) {
        if (key_length > guessed_key_bytes) return raw && has_escape(key, key_length) ? escaped : scan(node, key, key_length);
        int32_t first = tables->first_guess[node];
        key_guess *guess = first >= 0 && position < guessed_positions ? &guesses[size_t(first) + position] : nullptr;
        uint64_t words[4];
        load_words(key, key_length, words, padded);
        if (raw) {
            // A backslash in any of the words: bytes past the key are zero, never one.
            constexpr uint64_t ones = 0x0101010101010101, highs = 0x8080808080808080, backslashes = 0x5C5C5C5C5C5C5C5C;
            for (uint64_t word : words) {
                uint64_t folded = word ^ backslashes;
                if ((folded - ones) & ~folded & highs) return escaped;
            }
        }
        int32_t found = scan(node, key, key_length);
        if (guess) {
            set_aside(*guess);
            std::memcpy(guess->words, words, sizeof(words));
            guess->length = int32_t(key_length);
            guess->child = found;
            guess->node = node;
            guess->sightings = 0;
            guess->record = 0;
        }
        return found;
    }

    /// The guesses for the keys of `node`'s objects, by position (`guessed_positions` of them), or null.
    key_guess *guesses_of(int32_t node) {
        const int32_t first = tables->first_guess[node];
        return first < 0 ? nullptr : guesses.data() + first;
    }

    int32_t scan(int32_t node, const uint8_t *key, size_t key_length) const {
        int32_t entry = tables->first_key[node];
        const int32_t last = entry + tables->key_count[node];
        for (; entry < last; entry++) {
            if (size_t(tables->key_length[entry]) == key_length && same(tables->key_bytes + tables->key_start[entry], key, key_length)) {
                return tables->key_child[entry];
            }
        }
        return -1;
    }

    /// The child of `node` for element `index` of an array, or -1: the entry naming it, else `*` (the last entry).
    int32_t element_child(int32_t node, int64_t index) const {
        int32_t entry = tables->first_index[node];
        const int32_t last = entry + tables->index_count[node];
        for (; entry < last; entry++) {
            const int64_t named = tables->index_value[entry];
            if (named == index || named < 0) return tables->index_child[entry];
        }
        return -1;
    }

    /// Whether a key no field reads at `node` crosses on the tape, where `guessed` tells that the guess for its
    /// position holds it (matched there, or just made from it).
    bool crosses_unmapped(int32_t node, size_t position, size_t key_length, bool guessed) {
        key_guess *node_guesses = guesses_of(node);
        const bool held = guessed && node_guesses != nullptr && position < guessed_positions && key_length <= guessed_key_bytes;
        return crosses_unmapped(held ? node_guesses + position : nullptr, tables->flags[node]);
    }

    /// Whether a key no field reads crosses on the tape, at a node with `flags`, held by `guess` (null for none):
    /// not where the node ignores such keys, nor where it is counted at its guess; where the node rejects such keys,
    /// it crosses to fail its record. Element plans' nodes never get here: their keys are ignored or rejected.
    [[gnu::always_inline]] inline bool crosses_unmapped(key_guess *guess, uint8_t flags) {
        if (flags & SLUICE_NODE_IGNORES_UNREAD_KEYS) return false;
        if (guess == nullptr || (flags & SLUICE_NODE_REJECTS_UNREAD_KEYS)) return true;
        count(*guess);
        return false;
    }

private:
    /// Counts one sighting of the key no field reads that `guess` holds, in the record being walked.
    [[gnu::always_inline]] inline void count(key_guess &guess) {
        if (guess.record != serial) {
            guess.record = serial;
            guess.in_record = 0;
            if (touched_count < touched_capacity) touched[touched_count] = uint32_t(&guess - guesses.data());
            touched_count++;
        }
        guess.in_record++;
        guess.sightings++;
    }

    /// Whether the guess holds the key's bytes (of the guess's length, at most 32): only the blocks the key reaches
    /// are compared, and its bytes past its end masked off. `padded`: 32 bytes from the key's first may be read.
    [[gnu::always_inline]] static inline bool holds(const key_guess &guess, const uint8_t *key, size_t length, bool padded) {
        // An empty guess's length is -1: no key's.
        if (int64_t(guess.length) != int64_t(length)) return false;
        if (!padded) return same(reinterpret_cast<const uint8_t *>(guess.words), key, length);
#if defined(__SSE2__)
        // Sixteen bytes at a time; the guess's bytes past its key are zero, the key's are masked off.
        const uint8_t *words = reinterpret_cast<const uint8_t *>(guess.words);
        const auto equal = [&](size_t offset) {
            const __m128i held = _mm_loadu_si128(reinterpret_cast<const __m128i *>(words + offset));
            const __m128i seen = _mm_loadu_si128(reinterpret_cast<const __m128i *>(key + offset));
            return uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(held, seen)));
        };
        if (length <= 16) {
            const uint32_t needed = (uint32_t(1) << length) - 1;
            return (equal(0) & needed) == needed;
        }
        const uint32_t needed = (uint32_t(1) << (length - 16)) - 1;
        return equal(0) == 0xFFFF && (equal(16) & needed) == needed;
#else
        size_t word = 0;
        for (; (word + 1) * 8 <= length; word++) {
            uint64_t bytes;
            std::memcpy(&bytes, key + word * 8, 8);
            if (bytes != guess.words[word]) return false;
        }
        const size_t left = length - word * 8;
        if (left == 0) return true;
        uint64_t bytes;
        std::memcpy(&bytes, key + word * 8, 8);
        return (bytes & ((uint64_t(1) << (left * 8)) - 1)) == guess.words[word];
#endif
    }

    /// Keys are short: a loop that stops at the first difference beats a call.
    static bool same(const uint8_t *a, const uint8_t *b, size_t length) {
        for (size_t i = 0; i < length; i++) {
            if (a[i] != b[i]) return false;
        }
        return true;
    }

    /// Before a guess is replaced: the sightings it holds from records walked whole, and those of the record being
    /// walked (which count only if it is walked whole), are kept apart under its key.
    void set_aside(const key_guess &guess) {
        if (guess.child != -1 || guess.length < 0) return;
        const uint32_t in_record = guess.record == serial ? guess.in_record : 0;
        if (guess.sightings > in_record) evicted.push_back(sighting(guess, guess.sightings - in_record));
        if (in_record > 0) pending_evicted.push_back(sighting(guess, in_record));
    }

    /// A record begun and never walked whole: its sightings are taken back (what it saw of keys whose guesses it
    /// replaced is forgotten when the next begins).
    void close_abandoned() {
        if (!open) return;
        open = false;
        auto take_back = [this](key_guess &guess) {
            if (guess.record != serial) return;  // replaced since: set aside with its counts
            guess.sightings -= guess.in_record;
            guess.record = 0;
        };
        if (touched_count <= touched_capacity) {
            for (size_t i = 0; i < touched_count; i++) take_back(guesses[touched[i]]);
        } else {
            for (key_guess &guess : guesses) take_back(guess);
        }
        pending_evicted.clear();
    }

    /// Moves the sightings the guesses hold (keys no field reads, from records walked whole) into `into`.
    void take_sightings(std::vector<sluice_unmapped_sighting> &into) {
        for (key_guess &guess : guesses) {
            if (guess.child == -1 && guess.sightings > 0) {
                into.push_back(sighting(guess, guess.sightings));
                guess.sightings = 0;
            }
        }
    }

    static sluice_unmapped_sighting sighting(const key_guess &guess, uint64_t count) {
        sluice_unmapped_sighting result;
        std::memcpy(result.words, guess.words, sizeof(result.words));
        result.length = guess.length;
        result.node = guess.node;
        result.count = count;
        return result;
    }

    /// Whether a long key's bytes hold a backslash: keys are short, a loop beats a call.
    static bool has_escape(const uint8_t *key, size_t key_length) {
        for (size_t i = 0; i < key_length; i++) {
            if (key[i] == '\\') return true;
        }
        return false;
    }
};

}  // namespace sluice_matching

#endif
