/// Which tokenizer reads records.
public enum TokenizerChoice: String, Sendable, Hashable, CaseIterable {
    /// libyajl for everything: it validates every value, mapped or not.
    case yajl
    /// simdjson On-Demand for each NDJSON record, each element of a top-level array and each of concatenated values
    /// (such a file is framed on a reader thread then, even with one worker); yajl for the rest and for records
    /// simdjson cannot read (malformed ones get yajl's verdict). Values no field reads are passed over by counting
    /// their brackets, without checking inside them.
    case simdjson
    /// The choice the `SLUICE_TOKENIZER` environment variable names (`yajl` or `simdjson`), so that a process that
    /// embeds Sluice can be switched without a rebuild; without it, simdjson where the CPU has a SIMD kernel for
    /// it (x86-64 with SSE4.2, ARM64), yajl elsewhere.
    case automatic = "auto"
}
