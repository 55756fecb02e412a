/// What a matched walk (simdjson's or yajl's) made of one record whose bytes are all at hand.
enum WalkStatus: Equatable {
    /// Read whole and handed to the machine.
    case read
    /// Handed to the machine, which asked to stop; it knows why.
    case cancelled
    /// Handed back untouched (damaged, nested too deep; for simdjson also too large, or with too many brackets):
    /// nothing reached the machine, and the record is for the next reader.
    case handedBack
    /// Not UTF-8, as simdjson found before handing anything over.
    case notUTF8
    /// Well-formed, but reads more values than a tape may hold (``RecordValueLimit``): nothing reached the machine.
    case tooLarge
    /// yajl's parser could not be allocated: nothing reached the machine, and nothing can be read.
    case noMemory
}
