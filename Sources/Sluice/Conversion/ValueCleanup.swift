/// A cleanup that Sluice ships: a rule that tidies a field's input text before the field's type converts it.
///
/// A field lists cleanups in the order they apply (`clean: [trim, emptyAsNull]` in a mapping file,
/// `FieldSpec.cleanups` or `Field.cleaned(_:)` in Swift). They run after the field's null spellings, on JSON
/// strings only: numbers, Booleans and containers pass through every cleanup unchanged, and a cleanup that makes a
/// value null (or a number) ends the text cleanups for it. Every rule is exact and locale-free; docs/mapping.md
/// gives each with examples.
public enum ValueCleanup: Sendable, Hashable, CustomStringConvertible {
    /// Removes white space (Unicode's White_Space characters: ASCII space, tab, line feed, carriage return,
    /// vertical tab, form feed, and U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000)
    /// from both ends.
    case trim
    /// Lowercases by Unicode's default case mapping (`"ÉCOLE"` → `"école"`), the same in every locale.
    case lowercase
    /// Uppercases by Unicode's default case mapping (`"straße"` → `"STRASSE"`), the same in every locale.
    case uppercase
    /// Removes this text from the start when the value starts with it (compared byte for byte).
    case stripPrefix(String)
    /// Removes this text from the end when the value ends with it (compared byte for byte).
    case stripSuffix(String)
    /// Makes the empty string null (an optional field is then null; see ``FieldSpec/nullSpellings``).
    case emptyAsNull
    /// Reads text written for people as a number: `"$1,299.99"` → `1299.99`, `"-€ 5"` → `-5`. See
    /// ``NumberText`` for the exact rule; text that does not follow it rejects the record.
    case number(NumberText)
    /// Keeps the part of the text that the first capture group of a regular expression matches (the whole
    /// match when the pattern has no group): `capture: '^(\d+)'` on `"42 items"` gives `"42"`. Perl-compatible
    /// syntax (PCRE2, Unicode-aware); the first match counts. A value the pattern does not match rejects the
    /// record; a match in which the group took no part gives null (so `(?:,(\d+))?$` reads an optional part). A search stops after 1,000,000 backtracking steps, so a
    /// pattern that would take exponential time on some value rejects that record instead of stalling the run.
    case capture(String)
    /// Cuts the text at every occurrence of the separator (compared byte for byte) into a list: `split: ","` on
    /// `"red,green"` gives `["red", "green"]`. The field becomes a list (its column holds a JSON array, as a path
    /// through `*` gives), and the cleanups after this one apply to each piece: `[{split: ","}, trim,
    /// emptyAsNull]` reads `"a, b,,"` as `["a", "b"]`. The empty string is the empty list; a piece that a later
    /// cleanup makes null is dropped, as a list drops null elements. A field splits once.
    case split(String)

    /// Whether the cleanup cuts text into a list.
    public var isSplit: Bool {
        if case .split = self { true } else { false }
    }

    /// The name a mapping file uses for the cleanup, and rejections print.
    public var name: String {
        switch self {
        case .trim: "trim"
        case .lowercase: "lowercase"
        case .uppercase: "uppercase"
        case .stripPrefix: "stripPrefix"
        case .stripSuffix: "stripSuffix"
        case .emptyAsNull: "emptyAsNull"
        case .number: "number"
        case .capture: "capture"
        case .split: "split"
        }
    }

    public var description: String {
        switch self {
        case .trim, .lowercase, .uppercase, .emptyAsNull: name
        case .stripPrefix(let text), .stripSuffix(let text), .capture(let text), .split(let text): "\(name) \(ValueDescription.quoted(text))"
        case .number(let format): "number (\(format))"
        }
    }
}

/// How the ``ValueCleanup/number(_:)`` cleanup reads a number written for people.
///
/// The text, after removing spaces, tabs and no-break spaces at both ends, is: an optional sign (`-` or `+`); one
/// optional currency sign, before the sign, between sign and digits, or after the digits, with optional spaces
/// between; the integer digits, where the thousands separator may stand between groups of exactly three digits
/// (`1,299` and `12,345,678`, not `1,29` or `12,34,5`); then optionally the decimal separator and at least one
/// digit. Nothing else is allowed (no exponent, no second currency sign). The result is the JSON number without
/// currency sign, separators, `+` and leading zeros (`"$001.50"` gives `1.50`, `"-.5"` gives `-0.5`), which the
/// field's type then converts exactly as any number.
public struct NumberText: Sendable, Hashable, CustomStringConvertible {
    /// Signs that may stand before or after the number (at most one of them in a value).
    public var currencySigns: [String]
    /// The separator of thousands (`","`; `"."`, `" "`, `"'"`, U+00A0 or U+202F elsewhere), or nil for none.
    public var thousandsSeparator: String?
    /// The decimal separator (`"."`, or `","`).
    public var decimalSeparator: String

    /// The separators of English-speaking countries and the commonest currency signs: `$ € £ ¥`, thousands `,`,
    /// decimals `.`.
    public init(currencySigns: [String] = ["$", "€", "£", "¥"], thousandsSeparator: String? = ",", decimalSeparator: String = ".") {
        self.currencySigns = currencySigns
        self.thousandsSeparator = thousandsSeparator
        self.decimalSeparator = decimalSeparator
    }

    public var description: String {
        let signs = currencySigns.isEmpty ? "no currency sign" : "currency " + currencySigns.joined(separator: " ")
        let thousands = thousandsSeparator.map { "thousands \(ValueDescription.quoted($0))" } ?? "no thousands separator"
        return "\(signs), \(thousands), decimal \(ValueDescription.quoted(decimalSeparator))"
    }

    /// Why the format cannot read numbers unambiguously, if it cannot.
    var problem: String? {
        if decimalSeparator.isEmpty { return "the decimal separator is empty" }
        if thousandsSeparator == "" { return "the thousands separator is empty (null for none)" }
        if thousandsSeparator == decimalSeparator { return "the thousands and decimal separators are both \(ValueDescription.quoted(decimalSeparator))" }
        let separators = [decimalSeparator] + (thousandsSeparator.map { [$0] } ?? [])
        for sign in currencySigns {
            if sign.allSatisfy(\.isWhitespace) { return "a currency sign is empty" }
            if sign.utf8.contains(where: { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+") })
                || separators.contains(where: { sign.hasPrefix($0) }) {
                return "the currency sign \(ValueDescription.quoted(sign)) holds a digit, a sign or a separator"
            }
        }
        return nil
    }
}
