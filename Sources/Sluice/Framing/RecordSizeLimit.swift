/// The one rule for records over the size limit (``ReaderOptions/maximumRecordSize``), for every reader: a record (an
/// NDJSON line up to its line feed, an array's element, a value of a stream) holds at most `bytes` bytes from its
/// first byte that is not whitespace. One over it is rejected the same way whether it was seen whole or noticed too
/// long while reading, so that output does not depend on buffer sizes: its first bytes are shown, its other
/// failures dropped (it was never meant to be read).
struct RecordSizeLimit: Sendable, Equatable {
    let bytes: Int

    /// Whether a record that starts at `first` and ends just before `end` is over the limit.
    func isExceeded(from first: Int, to end: Int) -> Bool { end - first > bytes }

    /// How far a reader must hold a record that starts at `first` to know it is over the limit: one byte past it.
    func proofEnd(from first: Int) -> Int { first + bytes + 1 }

    /// The failure of a record over the limit that starts at `first`; `found` says what it was (a line, a record).
    func failure(at first: Int, found: String) -> Rejection.Failure {
        Rejection.Failure(keyPath: "$", kind: .recordTooLarge, expected: "at most \(bytes) bytes", found: found, byteOffset: first)
    }

    /// Where the text its rejection shows of a record over the limit that starts at `first` ends.
    func shownEnd(from first: Int) -> Int { first + min(1024, bytes) }
}
