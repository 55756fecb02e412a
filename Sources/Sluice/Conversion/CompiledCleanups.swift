import Foundation

/// A field's null spellings and cleanups, compiled to run over a string's bytes in place.
///
/// Text is never made into a `String` (but for case mapping beyond ASCII): each step narrows the bytes it was
/// given, or writes its result into one of the caller's two scratch buffers, so a run allocates nothing once the
/// buffers have grown to the longest value.
struct CompiledCleanups: @unchecked Sendable {
    // @unchecked: the pattern matchers are read-only after compiling, which PCRE2 allows threads to share.

    /// What the cleanups made of a string (or of one piece of it, after a split).
    enum Outcome {
        case string(UnsafePointer<UInt8>, Int)
        case number(UnsafePointer<UInt8>, Int)
        case null
        /// The cleanup that could not read the value, as rejections name it.
        case failed(expected: String)
        /// A split starts the value's list, before its pieces (if any) follow one by one.
        case listStarts
    }

    private enum Step {
        case trim, lowercase, uppercase, emptyAsNull
        case stripPrefix([UInt8]), stripSuffix([UInt8])
        case number(NumberTextReader, description: String)
        case capture(PatternMatcher, description: String)
        case split([UInt8])
    }

    let nullSpellings: NullSpellings?
    private let steps: [Step]
    var hasSteps: Bool { !steps.isEmpty }

    /// Compiles the cleanups; a problem for each that cannot run (an invalid pattern, an empty prefix).
    init(nullSpellings: NullSpellings?, cleanups: [ValueCleanup], problems: inout [String]) {
        self.nullSpellings = nullSpellings
        var steps: [Step] = []
        for cleanup in cleanups {
            switch cleanup {
            case .trim: steps.append(.trim)
            case .lowercase: steps.append(.lowercase)
            case .uppercase: steps.append(.uppercase)
            case .emptyAsNull: steps.append(.emptyAsNull)
            case .stripPrefix(let text), .stripSuffix(let text):
                if text.isEmpty { problems.append("\(cleanup.name) needs the text to strip"); continue }
                steps.append(cleanup.name == "stripPrefix" ? .stripPrefix(Array(text.utf8)) : .stripSuffix(Array(text.utf8)))
            case .number(let format):
                if let problem = format.problem { problems.append("number: \(problem)"); continue }
                steps.append(.number(NumberTextReader(format), description: "a number (\(format))"))
            case .capture(let pattern):
                do {
                    steps.append(.capture(try PatternMatcher(pattern), description: "a match for capture \(ValueDescription.quoted(pattern))"))
                } catch {
                    problems.append("capture \(ValueDescription.quoted(pattern)) is not a valid regular expression: \(error.message)")
                }
            case .split(let separator):
                if separator.isEmpty { problems.append("split needs a separator"); continue }
                if steps.contains(where: { if case .split = $0 { true } else { false } }) { problems.append("a field splits once"); continue }
                steps.append(.split(Array(separator.utf8)))
            }
        }
        self.steps = steps
    }

    /// Runs the cleanups over a JSON string's bytes (well-formed UTF-8) and hands `deliver` what they make of it:
    /// one outcome, or after a split ``Outcome/listStarts`` and then one outcome per piece.
    func clean(_ bytes: UnsafePointer<UInt8>, _ length: Int, scratch: CleanupScratch, deliver: (Outcome) -> Void) {
        run(from: 0, bytes, length, holder: -1, scratch: scratch, deliver: deliver)
    }

    /// The steps from `first` on. `holder` says which scratch buffer holds the text (-1: the input itself), so
    /// that a writing step uses another.
    private func run(
        from first: Int, _ bytes: UnsafePointer<UInt8>, _ length: Int, holder: Int, scratch: CleanupScratch, deliver: (Outcome) -> Void
    ) {
        var start = bytes
        var count = length
        var holder = holder
        for index in first..<steps.count {
            switch steps[index] {
            case .trim:
                while count > 0, case let width = TextWhitespace.leadingWidth(start, count), width > 0 {
                    start += width
                    count -= width
                }
                while count > 0, case let width = TextWhitespace.trailingWidth(start, count), width > 0 { count -= width }
            case .stripPrefix(let prefix):
                if count >= prefix.count, prefix.withUnsafeBufferPointer({ ShortBytes.equal($0.baseAddress ?? start, start, prefix.count) }) {
                    start += prefix.count
                    count -= prefix.count
                }
            case .stripSuffix(let suffix):
                if count >= suffix.count, suffix.withUnsafeBufferPointer({ ShortBytes.equal($0.baseAddress ?? start, start + (count - suffix.count), suffix.count) }) {
                    count -= suffix.count
                }
            case .emptyAsNull:
                if count == 0 { return deliver(.null) }
            case .lowercase, .uppercase:
                let isLower: Bool
                if case .lowercase = steps[index] { isLower = true } else { isLower = false }
                holder = holder == 0 ? 1 : 0
                count = CaseMapping.map(start, count, lower: isLower, into: scratch, buffer: holder)
                start = UnsafePointer(scratch.buffer(holder))
            case .number(let reader, let description):
                holder = holder == 0 ? 1 : 0
                let output = scratch.reserve(buffer: holder, count + 2)
                guard let written = reader.read(start, count, into: output) else { return deliver(.failed(expected: description)) }
                return deliver(.number(UnsafePointer(output), written))
            case .capture(let matcher, let description):
                switch matcher.firstCapture(UnsafeBufferPointer(start: start, count: count), matchData: scratch.matchData) {
                case .captured(let range):
                    start += range.lowerBound
                    count = range.count
                case .groupUnset:
                    return deliver(.null)
                case .noMatch:
                    return deliver(.failed(expected: description))
                case .gaveUp:
                    return deliver(.failed(expected: description + " (the pattern gave up after \(PatternMatcher.stepLimit) backtracking steps)"))
                }
            case .split(let separator):
                deliver(.listStarts)
                guard count > 0 else { return }
                // The pieces are read from a buffer of their own, which the steps after the split never write.
                if holder >= 0 {
                    let copy = scratch.reserve(buffer: CleanupScratch.splitBuffer, count)
                    copy.update(from: start, count: count)
                    start = UnsafePointer(copy)
                }
                separator.withUnsafeBufferPointer { separator in
                    var pieceStart = 0
                    for piece in SeparatedPieces(UnsafeBufferPointer(start: start, count: count), separator: separator) {
                        run(from: index + 1, start + pieceStart, piece, holder: CleanupScratch.splitBuffer, scratch: scratch, deliver: deliver)
                        pieceStart += piece + separator.count
                    }
                }
                return
            }
        }
        deliver(.string(start, count))
    }
}

/// The lengths of the pieces between separators, in order: `a,,b` by `,` gives 1, 0, 1.
struct SeparatedPieces: Sequence, IteratorProtocol {
    private let text: UnsafeBufferPointer<UInt8>
    private let separator: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var isDone = false

    init(_ text: UnsafeBufferPointer<UInt8>, separator: UnsafeBufferPointer<UInt8>) {
        self.text = text
        self.separator = separator
    }

    mutating func next() -> Int? {
        guard !isDone, let base = text.baseAddress, let separatorBase = separator.baseAddress else { return nil }
        let width = separator.count
        var scan = position
        while scan + width <= text.count {
            if base[scan] == separatorBase[0], ShortBytes.equal(base + scan, separatorBase, width) {
                defer { position = scan + width }
                return scan - position
            }
            scan += 1
        }
        isDone = true
        return text.count - position
    }
}

/// Two byte buffers that cleanups write into, kept by each state machine and grown to the longest value.
final class CleanupScratch {
    let matchData = PatternMatcher.MatchData()
    /// The buffer a split's text is read from: the other two take what the steps after it write.
    static let splitBuffer = 2
    private var buffers: [UnsafeMutablePointer<UInt8>] = [.allocate(capacity: 64), .allocate(capacity: 64), .allocate(capacity: 64)]
    private var capacities = [64, 64, 64]

    deinit { for buffer in buffers { buffer.deallocate() } }

    func buffer(_ index: Int) -> UnsafeMutablePointer<UInt8> { buffers[index] }

    /// The buffer, with room for at least `count` bytes; what it held is kept.
    func reserve(buffer index: Int, _ count: Int) -> UnsafeMutablePointer<UInt8> {
        if count > capacities[index] {
            let capacity = max(count, capacities[index] * 2)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            grown.update(from: buffers[index], count: capacities[index])
            buffers[index].deallocate()
            buffers[index] = grown
            capacities[index] = capacity
        }
        return buffers[index]
    }
}

/// Unicode's White_Space characters, at the ends of UTF-8 text.
enum TextWhitespace {
    /// The byte width of the white-space character at the start of the text, or 0.
    static func leadingWidth(_ text: UnsafePointer<UInt8>, _ count: Int) -> Int {
        let first = text[0]
        if first == 0x20 || (first >= 0x09 && first <= 0x0D) { return 1 }
        if first == 0xC2, count >= 2, text[1] == 0x85 || text[1] == 0xA0 { return 2 }
        if first >= 0xE1 && first <= 0xE3, count >= 3, isWide(text[0], text[1], text[2]) { return 3 }
        return 0
    }

    /// The byte width of the white-space character at the end of the text, or 0.
    static func trailingWidth(_ text: UnsafePointer<UInt8>, _ count: Int) -> Int {
        let last = text[count - 1]
        if last == 0x20 || (last >= 0x09 && last <= 0x0D) { return 1 }
        if count >= 2, text[count - 2] == 0xC2, last == 0x85 || last == 0xA0 { return 2 }
        if count >= 3, isWide(text[count - 3], text[count - 2], last) { return 3 }
        return 0
    }

    /// U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F and U+3000 in three bytes.
    private static func isWide(_ first: UInt8, _ second: UInt8, _ third: UInt8) -> Bool {
        switch (first, second) {
        case (0xE1, 0x9A): third == 0x80
        case (0xE2, 0x80): third <= 0x8A || third == 0xA8 || third == 0xA9 || third == 0xAF
        case (0xE2, 0x81): third == 0x9F
        case (0xE3, 0x80): third == 0x80
        default: false
        }
    }
}

/// Lowercasing and uppercasing: ASCII in place, anything else by the standard library's Unicode case mapping.
enum CaseMapping {
    /// Writes the mapped text into the scratch buffer and returns its length.
    static func map(_ text: UnsafePointer<UInt8>, _ count: Int, lower: Bool, into scratch: CleanupScratch, buffer index: Int) -> Int {
        let source = UnsafeBufferPointer(start: text, count: count)
        if !source.contains(where: { $0 >= 0x80 }) {
            let output = scratch.reserve(buffer: index, count)
            for position in 0..<count {
                let byte = text[position]
                let isUpper = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
                let isLowerLetter = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
                output[position] = lower ? (isUpper ? byte | 0x20 : byte) : (isLowerLetter ? byte & ~0x20 : byte)
            }
            return count
        }
        let decoded = String(decoding: source, as: UTF8.self)
        var mapped = lower ? decoded.lowercased() : decoded.uppercased()
        return mapped.withUTF8 { bytes in
            let output = scratch.reserve(buffer: index, bytes.count)
            if let base = bytes.baseAddress { output.update(from: base, count: bytes.count) }
            return bytes.count
        }
    }
}

/// Reads a number written for people by a ``NumberText`` format into JSON number text.
struct NumberTextReader: Sendable {
    private let currencySigns: [[UInt8]]
    private let thousands: [UInt8]?
    private let decimal: [UInt8]

    init(_ format: NumberText) {
        // Spaces around a sign are optional anyway (`" kr"` reads as `kr`); the longest sign first, so that `US$`
        // is not read as `US` and a stray `$`.
        currencySigns = format.currencySigns.map { Array($0.trimmingCharacters(in: .whitespaces).utf8) }.filter { !$0.isEmpty }.sorted { $0.count > $1.count }
        thousands = format.thousandsSeparator.map { Array($0.utf8) }
        decimal = Array(format.decimalSeparator.utf8)
    }

    /// Writes the number into `output` (room for `count + 2` bytes) and returns its length, or nil when the text
    /// does not follow the format.
    func read(_ text: UnsafePointer<UInt8>, _ count: Int, into output: UnsafeMutablePointer<UInt8>) -> Int? {
        var position = 0
        var end = count
        func at(_ bytes: [UInt8]) -> Bool {
            guard end - position >= bytes.count else { return false }
            return bytes.withUnsafeBufferPointer { ShortBytes.equal($0.baseAddress ?? text, text + position, bytes.count) }
        }
        func skipSpaces() {
            while position < end {
                if text[position] == 0x20 || text[position] == 0x09 {
                    position += 1
                } else if text[position] == 0xC2, position + 1 < end, text[position + 1] == 0xA0 {
                    position += 2
                } else {
                    return
                }
            }
        }
        while end > position, text[end - 1] == 0x20 || text[end - 1] == 0x09 || (end - position >= 2 && text[end - 2] == 0xC2 && text[end - 1] == 0xA0) {
            end -= text[end - 1] == 0xA0 ? 2 : 1
        }
        skipSpaces()
        var hasCurrency = false
        func takeCurrency() {
            guard !hasCurrency, let sign = currencySigns.first(where: at) else { return }
            position += sign.count
            hasCurrency = true
            skipSpaces()
        }
        var isNegative = false
        var hasSign = false
        func takeSign() {
            guard !hasSign, position < end, text[position] == UInt8(ascii: "-") || text[position] == UInt8(ascii: "+") else { return }
            isNegative = text[position] == UInt8(ascii: "-")
            hasSign = true
            position += 1
            skipSpaces()
        }
        takeCurrency()
        takeSign()
        takeCurrency()

        var written = 0
        if isNegative {
            output[0] = UInt8(ascii: "-")
            written = 1
        }
        let integerStart = written
        var group = 0
        var groups = 0
        var isDigit: Bool { position < end && text[position] &- 0x30 <= 9 }
        while true {
            while isDigit {
                // Leading zeros go: JSON numbers have none.
                if !(written == integerStart && text[position] == UInt8(ascii: "0")) {
                    output[written] = text[position]
                    written += 1
                }
                group += 1
                position += 1
            }
            guard let thousands, group > 0, at(thousands), position + thousands.count < end, text[position + thousands.count] &- 0x30 <= 9 else { break }
            // Groups after a separator have three digits; the first has one to three.
            if groups == 0 ? group > 3 : group != 3 { return nil }
            groups += 1
            group = 0
            position += thousands.count
        }
        if groups > 0 && group != 3 { return nil }
        let hasIntegerDigits = group > 0 || groups > 0
        if written == integerStart && hasIntegerDigits {
            output[written] = UInt8(ascii: "0")
            written += 1
        }
        if at(decimal), position + decimal.count < end, text[position + decimal.count] &- 0x30 <= 9 {
            position += decimal.count
            if written == integerStart {
                output[written] = UInt8(ascii: "0")
                written += 1
            }
            output[written] = UInt8(ascii: ".")
            written += 1
            while isDigit {
                output[written] = text[position]
                written += 1
                position += 1
            }
        } else if !hasIntegerDigits {
            return nil
        }
        skipSpaces()
        takeCurrency()
        return position == end ? written : nil
    }
}

/// The values a field reads as JSON null (`nulls: ["", "N/A", false]`): strings by their bytes, numbers by
/// their value (`0` matches `0.0` and `-0`), Booleans by theirs.
struct NullSpellings: Sendable {
    private var strings: [[UInt8]] = []
    private var integers: [NumberConversion.ExactInteger] = []
    private var doubles: [Double] = []
    private var falseIsNull = false
    private var trueIsNull = false

    /// The spellings, or a problem naming each value that cannot be one (objects, arrays, text that is no number).
    init(_ values: [JSONValue], problems: inout [String]) {
        for value in values {
            switch value {
            case .string(let text): strings.append(Array(text.utf8))
            case .bool(let flag): if flag { trueIsNull = true } else { falseIsNull = true }
            case .null: break
            case .number(let literal):
                var text = literal
                let parsed = text.withUTF8 { bytes -> (NumberConversion.ExactInteger, Double?)? in
                    guard let base = bytes.baseAddress, NumberConversion.isNumberText(base, bytes.count) else { return nil }
                    return (NumberConversion.exactInteger(base, bytes.count), NumberConversion.double(base, bytes.count))
                }
                guard let parsed, let double = parsed.1 else { problems.append("the null spelling .number(\"\(literal)\") is not a finite JSON number"); continue }
                if case .value(let negative, let magnitude) = parsed.0 {
                    integers.append(.value(negative: negative && magnitude != 0, magnitude: magnitude))
                } else {
                    doubles.append(double)
                }
            case .object, .array:
                problems.append("a null spelling is a string, number or Boolean, not an object or array")
            }
        }
    }

    var isEmpty: Bool { strings.isEmpty && integers.isEmpty && doubles.isEmpty && !falseIsNull && !trueIsNull }

    func matchesString(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        strings.contains { spelling in
            spelling.count == length && spelling.withUnsafeBufferPointer { ShortBytes.equal($0.baseAddress ?? bytes, bytes, length) }
        }
    }

    func matchesNumber(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        if !integers.isEmpty, case .value(let negative, let magnitude) = NumberConversion.exactInteger(bytes, length) {
            // Zero is zero whatever its sign.
            return integers.contains(.value(negative: negative && magnitude != 0, magnitude: magnitude))
        }
        guard !doubles.isEmpty, let value = NumberConversion.double(bytes, length) else { return false }
        return doubles.contains(value)
    }

    func matchesBool(_ value: Bool) -> Bool { value ? trueIsNull : falseIsNull }
}
