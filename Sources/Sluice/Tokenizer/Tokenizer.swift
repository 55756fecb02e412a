import Foundation

/// The tokenizer a run reads its records with: a ``TokenizerChoice`` resolved once, when the run opens, so that
/// every part of the run (how elements are framed, whether a reader thread frames them, what the engines walk
/// records with) follows one answer, and each asks it what the answer means for its own job.
///
/// yajl's verdict judges what the walks hand back with either: damaged records get yajl's wording whichever runs.
enum Tokenizer: Sendable, Equatable {
    /// yajl's matched walk reads every record, checking every value.
    case yajl
    /// simdjson's matched walk reads each NDJSON line, array element and concatenated value first, passing over
    /// values no field reads by counting their brackets; yajl's reads what it hands back.
    case simdjson

    /// `choice` resolved: ``TokenizerChoice/automatic`` is what `SLUICE_TOKENIZER` names, or else simdjson where
    /// the CPU has a SIMD kernel for it.
    init(_ choice: TokenizerChoice) {
        switch choice {
        case .yajl: self = .yajl
        case .simdjson: self = .simdjson
        case .automatic: self = Self.processDefault
        }
    }

    /// What ``TokenizerChoice/automatic`` resolves to in this process. The environment is read once: a process that
    /// embeds Sluice (or a test run) is switched as a whole without a rebuild.
    static let processDefault: Tokenizer = {
        switch ProcessInfo.processInfo.environment["SLUICE_TOKENIZER"].flatMap(TokenizerChoice.init(rawValue:)) {
        case .yajl?: .yajl
        case .simdjson?: .simdjson
        case .automatic?, nil: SimdjsonTokenizer.hasSIMDKernel ? .simdjson : .yajl
        }
    }()

    /// Whether the engines walk records with simdjson first.
    var walksWithSimdjson: Bool {
        switch self {
        case .yajl: false
        case .simdjson: true
        }
    }

    /// Whether the chunk reader checks that an element's brackets pair up as it frames it. simdjson passes over a
    /// value no field reads by counting its brackets, so elements are cut the same way; yajl checks every bracket.
    var framingPairsBrackets: Bool {
        switch self {
        case .yajl: true
        case .simdjson: false
        }
    }

    /// Whether an array file's elements written one per line may be cut at line feeds: simdjson checks that each
    /// line holds one element and its comma, cheaply; yajl reads every byte anyway.
    var readsArrayLines: Bool {
        switch self {
        case .yajl: false
        case .simdjson: true
        }
    }

    /// Whether an array's elements or a stream's values, in an input of a chunk or more, are framed on a reader
    /// thread of their own even with one worker, while the worker maps on another core: next to simdjson's walk,
    /// framing is a large share of a record's cost.
    var framesElementsOnReaderThread: Bool {
        switch self {
        case .yajl: false
        case .simdjson: true
        }
    }
}
