import CPCRE2

/// A compiled regular expression (a `pattern` validator, a `capture` cleanup): PCRE2's matcher, searched over a value's UTF-8 bytes in place, with a limit on
/// its work. A backtracking matcher can take exponential time on some patterns (`^(a+)+$` on twenty-one `a`s and a
/// `!`); with the limit, such a value costs at most a few milliseconds and is rejected with the reason, so a
/// reasonable pattern and hostile data cannot stall a run.
final class PatternMatcher: @unchecked Sendable {
    // @unchecked: compiled code and the match context are read-only after init, which PCRE2 allows many threads
    // to share; each search makes its own match data.

    /// The most backtracking steps one search may take (PCRE2's match limit).
    static let stepLimit: UInt32 = 1_000_000

    /// What one search found.
    enum Outcome { case match, noMatch, gaveUp }

    /// What one search for a capture found: the byte range of the first group (of the whole match when the
    /// pattern has no group), or why there is none.
    enum Capture: Equatable { case captured(Range<Int>), noMatch, groupUnset, gaveUp }

    private let code: OpaquePointer
    private let context: OpaquePointer?
    /// How many capture groups the pattern has.
    let groupCount: Int

    /// Compiles `pattern` (Perl syntax, UTF-8, Unicode properties for `\d`, `\w` and classes; `\C`, which could
    /// match half a character, is refused); the message says what is wrong and where when it does not compile.
    init(_ pattern: String) throws(PatternError) {
        var errorCode: Int32 = 0
        var errorOffset = 0
        let compiled = pattern.withCString { text in
            text.withMemoryRebound(to: UInt8.self, capacity: pattern.utf8.count) {
                pcre2_compile_8($0, pattern.utf8.count, UInt32(PCRE2_UTF | PCRE2_UCP | PCRE2_NEVER_BACKSLASH_C), &errorCode, &errorOffset, nil)
            }
        }
        guard let compiled else {
            var message = [UInt8](repeating: 0, count: 256)
            let length = pcre2_get_error_message_8(errorCode, &message, message.count)
            throw PatternError(message: String(decoding: message.prefix(max(Int(length), 0)), as: UTF8.self) + " at offset \(errorOffset)")
        }
        code = compiled
        // Compiled to machine code where PCRE2 can (several times faster); the interpreter runs it otherwise. The
        // step limit holds in both.
        _ = pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE))
        var groups: UInt32 = 0
        pcre2_pattern_info_8(compiled, UInt32(PCRE2_INFO_CAPTURECOUNT), &groups)
        groupCount = Int(groups)
        context = pcre2_match_context_create_8(nil)
        if let context { pcre2_set_match_limit_8(context, Self.stepLimit) }
    }

    deinit {
        pcre2_match_context_free_8(context)
        pcre2_code_free_8(code)
    }

    /// Searches `text` (well-formed UTF-8: the mapping rejects any other before validators run) for a match.
    func search(_ text: UnsafeBufferPointer<UInt8>) -> Outcome {
        guard let data = pcre2_match_data_create_8(2, nil) else { return .gaveUp }
        defer { pcre2_match_data_free_8(data) }
        switch firstCapture(text, in: data) {
        case .captured, .groupUnset: return .match
        case .noMatch: return .noMatch
        case .gaveUp: return .gaveUp
        }
    }

    /// Searches `text` (well-formed UTF-8) for the first match and returns where its first group lies.
    /// - Parameter matchData: Room for the match, reused by one thread from search to search.
    func firstCapture(_ text: UnsafeBufferPointer<UInt8>, matchData: MatchData) -> Capture {
        guard let data = matchData.pointer else { return .gaveUp }
        return firstCapture(text, in: data)
    }

    private func firstCapture(_ text: UnsafeBufferPointer<UInt8>, in data: OpaquePointer) -> Capture {
        // An empty buffer may have no address; PCRE2 takes any pointer for zero bytes.
        let start = text.baseAddress ?? UnsafePointer(bitPattern: 1)
        let status = pcre2_match_8(code, start, text.count, 0, UInt32(PCRE2_NO_UTF_CHECK), data, context)
        // 0: matched, with more groups than the two pairs of room (the first two are filled in).
        guard status >= 0 else { return status == PCRE2_ERROR_NOMATCH ? .noMatch : .gaveUp }
        guard let vector = pcre2_get_ovector_pointer_8(data) else { return .gaveUp }
        let pair = groupCount > 0 ? 2 : 0
        // A group that took no part in the match (`(a)?b` on "b") has both ends unset.
        guard status == 0 || Int(status) > pair / 2, vector[pair] != ~0, vector[pair + 1] != ~0 else { return .groupUnset }
        return .captured(Int(vector[pair])..<Int(vector[pair + 1]))
    }

    /// Room for the whole match and the first group of any pattern: one per thread, so that a search allocates
    /// nothing.
    final class MatchData {
        let pointer: OpaquePointer?
        init() { pointer = pcre2_match_data_create_8(2, nil) }
        deinit { pcre2_match_data_free_8(pointer) }
    }
}

/// Why a pattern does not compile.
struct PatternError: Error {
    var message: String
}
