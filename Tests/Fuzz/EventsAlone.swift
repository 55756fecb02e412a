@testable import Sluice

/// What yajl's events alone read differently from the matched walks, by design: a damaged record fails for its
/// damage alone (yajl's verdict), where the events also named the fields that failed before the damage, and counted
/// the keys no field reads that they met before it.
enum EventsAlone {
    /// Whether a run read with the events alone, whose damaged records are to be shown as the walks show them.
    static func differs(_ options: ReaderOptions) -> Bool {
        !options.matchesKeysInWalk
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

    /// The error that ended a run, its rejection as the walks word it.
    static func asWalked(_ error: any Error) -> String {
        guard case SluiceError.streamEnded(let source, let rejection)? = error as? SluiceError else { return "\(error)" }
        return "\(SluiceError.streamEnded(source: source, asWalked(rejection).rejection))"
    }

    /// `input` without the `damaged` records, for the keys no field reads that the walks count: blank (lines), or
    /// cut off before the first (a stream, whose run ends there).
    static func undamaged(_ damaged: [Range<Int>], in input: [UInt8], shape: InputShape) -> [UInt8] {
        if shape != .ndjson, let first = damaged.first {
            return Array(input[..<min(first.lowerBound, input.count)])
        }
        var blanked = input
        for range in damaged where range.upperBound <= blanked.count {
            blanked.replaceSubrange(range, with: repeatElement(UInt8(ascii: " "), count: range.count))
        }
        return blanked
    }
}
