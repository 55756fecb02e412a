@testable import Sluice

/// What yajl's events alone read differently from the matched walks, by design: a damaged NDJSON line fails for its
/// damage alone (yajl's verdict), where the events also named the fields that failed before the damage, and counted
/// the keys no field reads that they met before it.
enum EventsAlone {
    /// Whether a run read so, NDJSON with the events alone: its damaged lines are to be read as the walks read them.
    static func differs(_ options: ReaderOptions, _ statistics: ReadStatistics) -> Bool {
        !options.matchesKeysInWalk && statistics.shape == .ndjson
    }

    /// `rejection` as the walks word it (its damage alone, where its record is damaged), and where the damaged
    /// record lies.
    static func asWalked(_ rejection: Rejection) -> (rejection: Rejection, damaged: Range<Int>?) {
        let kinds: Set<Rejection.Kind> = [.malformedJSON, .truncated, .extraValue, .nestingTooDeep]
        // Damage is placed in the input; a row past its header's columns is not damage.
        guard let last = rejection.failures.last, kinds.contains(last.kind), last.byteOffset != nil else { return (rejection, nil) }
        var walked = rejection
        walked.failures = [last]
        return (walked, rejection.location.byteOffset..<rejection.location.byteOffset + rejection.rawText.count)
    }

    /// `input` with the `damaged` records blank, for the keys no field reads that the walks count.
    static func blanking(_ damaged: [Range<Int>], in input: [UInt8]) -> [UInt8] {
        var blanked = input
        for range in damaged where range.upperBound <= blanked.count {
            blanked.replaceSubrange(range, with: repeatElement(UInt8(ascii: " "), count: range.count))
        }
        return blanked
    }
}
