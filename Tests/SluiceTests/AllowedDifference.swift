import Testing
@testable import Sluice

/// The one difference allowed between the matched walks and yajl's events, as the differential tests apply it: a
/// record that is no well-formed JSON value fails for its damage alone, by yajl's verdict, where the event walk also
/// named the fields that failed before its damage, and counted the keys no field reads that it met before it. So too
/// a document over the size limit (`isDocument`), which is never read: the event walk counted the keys it met before
/// the limit. (A line, element or value over the limit is never read by either.)
enum AllowedDifference {
    /// A run being read, whichever reader reads it.
    struct Reading {
        var next: () throws(SluiceError) -> ColumnarBatch?
        var statistics: () -> ReadStatistics
        var unmappedKeys: () -> [String: Int]
        var batchCapacity: Int
    }

    /// What `open` reads from `bytes`, shown as the walks show it where `appliesDifference` says (the events' side):
    /// its damaged records fail for their damage alone, and the keys no field reads are taken from the same input
    /// with the damaged records blank (lines), or cut off before the first (`isStream`: the run ends there).
    static func outcome(of bytes: [UInt8], appliesDifference: Bool, isStream: Bool, isDocument: Bool = false,
                        _ open: ([UInt8]) throws(SluiceError) -> Reading) throws(SluiceError) -> MatchedWalkTests.Outcome {
        let reading = try open(bytes)
        var damaged: [Range<Int>] = []
        let next = reading.next
        let transcript = transcript(batchCapacity: reading.batchCapacity, next: { () throws(SluiceError) -> ColumnarBatch? in
            do throws(SluiceError) {
                return try next()
            } catch {
                guard case .streamEnded(let source, let rejection) = error else { throw error }
                throw .streamEnded(source: source, asWalked(rejection, appliesDifference, isDocument: isDocument))
            }
        }, statistics: reading.statistics) { rejection in
            // A damaged record counts as such even where its damage was its one failure: keys before it were counted.
            guard appliesDifference, damage(of: rejection, isDocument: isDocument) != nil else { return rejection.description }
            damaged.append(rejection.location.byteOffset..<rejection.location.byteOffset + rejection.rawText.count)
            return asWalked(rejection, appliesDifference, isDocument: isDocument).description
        }
        guard !damaged.isEmpty else { return MatchedWalkTests.Outcome(transcript: transcript, unmappedKeys: reading.unmappedKeys()) }
        var undamagedInput = bytes
        if isStream, let first = damaged.first {
            undamagedInput = Array(bytes[..<first.lowerBound])
        } else {
            for range in damaged { undamagedInput.replaceSubrange(range, with: repeatElement(UInt8(ascii: " "), count: range.count)) }
        }
        let undamaged = try open(undamagedInput)
        do {
            while try undamaged.next() != nil {}
        } catch {
            // An array cut short ends with an error, after the records before the cut.
        }
        return MatchedWalkTests.Outcome(transcript: transcript, unmappedKeys: undamaged.unmappedKeys())
    }

    /// `rejection` with its damage alone, where it has damage and the difference applies.
    static func asWalked(_ rejection: Rejection, _ appliesDifference: Bool, isDocument: Bool = false) -> Rejection {
        guard appliesDifference, let damage = damage(of: rejection, isDocument: isDocument) else { return rejection }
        var shown = rejection
        shown.failures = [damage]
        return shown
    }

    /// The failure that says a rejected record is no well-formed JSON value, if it is not (or, `isDocument`, that it is
    /// a document over the size limit).
    static func damage(of rejection: Rejection, isDocument: Bool = false) -> Rejection.Failure? {
        var kinds: Set<Rejection.Kind> = [.malformedJSON, .truncated, .extraValue, .nestingTooDeep]
        if isDocument { kinds.insert(.recordTooLarge) }
        // Damage is placed in the input; a row past its header's columns is not damage.
        guard let last = rejection.failures.last, kinds.contains(last.kind) && last.byteOffset != nil else { return nil }
        return last
    }
}
