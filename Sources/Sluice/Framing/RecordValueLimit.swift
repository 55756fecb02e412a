import CWalk

/// The one rule for records that read more values than memory should hold at once. A walk writes a record's values
/// read, and its unmapped keys, to a tape that is whole before any is mapped, at 32 bytes an entry: a record within
/// the size limit could take many times its size (a 60 MB line of small numbers read into a list is 30 million
/// entries, a gigabyte). The tape holds at most an eighth of the memory budget, and never less than 32 MiB (about a
/// million entries); a well-formed record that reads more is rejected as too large, naming the limit, and reading
/// goes on. Either tokenizer finds the same records too large; a damaged one fails for its damage.
struct RecordValueLimit: Sendable, Equatable {
    /// The most entries a record's tape holds.
    let entries: Int

    /// `share`: the memory budget's share a record's values read may take (``ReaderOptions/engineShare``).
    init(share: Int) {
        entries = max(share, 32 << 20) / MemoryLayout<sluice_tape_entry>.stride
    }

    /// The failure of a record that reads more values than the tape holds.
    var failure: Rejection.Failure {
        Rejection.Failure(
            keyPath: "$", kind: .recordTooLarge,
            expected: "at most \(CountText.grouped(entries)) values read (an eighth of the memory budget, at least 32 MiB, "
                + "\(MemoryLayout<sluice_tape_entry>.stride) bytes each)",
            found: "a record that reads more"
        )
    }
}
