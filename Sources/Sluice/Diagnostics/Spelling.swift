/// The known word a misspelt one most likely meant, for messages that refuse an unknown name: `twiter` → `twitter`.
public enum Spelling {
    /// The word of `known` nearest to `word` by edits (insert, delete, replace, swap two neighbours), ignoring case,
    /// when it is near enough to be a slip: at most one edit in words of up to four letters, two in longer ones; a
    /// word that is one of `known` has none.
    public static func nearest(to word: String, among known: [String]) -> String? {
        let typed = Array(word.lowercased().unicodeScalars)
        guard !typed.isEmpty, !known.contains(word) else { return nil }
        let allowed = typed.count <= 4 ? 1 : 2
        var best: (word: String, distance: Int)?
        for candidate in known {
            let distance = edits(typed, Array(candidate.lowercased().unicodeScalars))
            // Names are case-sensitive: one that differs only in case is the nearest of all.
            guard candidate != word, distance <= allowed, distance < best?.distance ?? .max else { continue }
            best = (candidate, distance)
        }
        return best?.word
    }

    /// `; did you mean 'X'?` for a message, or nothing.
    public static func suggestion(for word: String, among known: [String]) -> String {
        nearest(to: word, among: known).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// The optimal string alignment distance: Levenshtein's, with a swap of two neighbours as one edit.
    private static func edits(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], before[j - 2] + 1) }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
