import CStructuralScan

/// Finds where the records of a top-level JSON array, or of a stream of concatenated values, end without parsing
/// them, so that the parallel pipeline can cut such files into chunks as it cuts NDJSON at line feeds.
///
/// It tracks strings, escapes and bracket nesting, byte by byte, across calls (a chunk may end anywhere). In an
/// array it rewrites the array's own punctuation — `[`, the commas between elements, `]` — into spaces, in place,
/// which turns a chunk of elements into concatenated JSON values that a worker maps on its own; every element
/// keeps its byte offsets. What yajl would have checked about that punctuation, the framer checks: a missing or
/// doubled comma, a trailing comma, content after the array. A stream of values has no punctuation: anything
/// between them but whitespace is left for the worker's parser to report. Inside records it checks only that
/// brackets pair up (so that boundaries cannot drift); the worker's parser checks the rest. For workers that read
/// with simdjson it only counts them, as simdjson does when it passes over a value no field reads: a record is then
/// cut where simdjson would end it, and one with brackets of the wrong kind in such a value is mapped, as the same
/// record on a line of NDJSON, or of an array read by lines, is.
struct RecordFramer {
    enum State: Equatable {
        /// Before the `[`.
        case beforeArray
        /// After `[`, before the first element or `]`.
        case beforeFirstElement
        /// Inside an element.
        case inElement
        /// After an element, before `,` or `]`.
        case afterElement
        /// After a comma, before an element.
        case beforeElement
        /// After `]`: only whitespace may follow.
        case afterArray
        /// A problem was found; nothing more is framed.
        case failed
    }

    /// A problem with the array's structure, at an absolute offset.
    struct Problem: Equatable {
        var offset: Int
        var message: String
        var kind: Kind

        /// Who reports a problem, and how, so that it reads as one reader would report it.
        enum Kind: Equatable {
            /// A worker's parser (inside an element, or a byte yajl cannot read): the chunk ends just past it.
            case forWorker
            /// A token that is wrong only inside the array: yajl's parse error, a record starting at the token.
            case misplacedToken
            /// Content after the array: yajl's parse error, a record starting past the offending byte.
            case trailingGarbage
            /// The input ends outside an element before the array does.
            case endOfInput
            /// The input is not an array.
            case notAnArray
        }
    }

    private(set) var state = State.beforeArray
    /// Closing brackets expected inside the current element, innermost last (`depth` of them).
    private let closers: UnsafeMutablePointer<UInt8>
    private var depth = 0
    private var inString = false
    private var escaped = false
    /// The element is a scalar outside a string (a number or literal), which ends where yajl's lexer ends it.
    private var inBareScalar = false
    private var scalar = ScalarTokenScan()
    private let maximumDepth: Int
    /// Whether a closing bracket must be of the kind that was opened.
    private let pairsBrackets: Bool

    /// Framing a stream of concatenated values rather than an array: records follow one another at the top level,
    /// and the input may end between any two.
    private let readsValues: Bool
    /// Reading a shard of the array's elements (a plan's, see `ShardPlan`): the input ends where the shard does, after
    /// a comma, which is no premature end.
    private let readsShard: Bool
    /// Where the last array's `[` was read, and just past its `]`.
    private(set) var lastArrayStart: Int?
    private(set) var lastArrayEnd: Int?

    /// - Parameters:
    ///   - shardStartsAtArray: For a shard of the array's elements, whether it starts at the array's `[`
    ///     (the first shard) or at an element after a comma.
    ///   - startsAfterComma: The input starts after a comma between the array's elements (reading resumes
    ///     there), and runs to the array's end.
    ///   - pairsBrackets: Whether closing brackets must pair by kind with opening ones, or are only counted.
    ///   - readsValues: The input is a stream of concatenated values, each a record, not an array.
    init(maximumDepth: Int, shardStartsAtArray: Bool? = nil, startsAfterComma: Bool = false, pairsBrackets: Bool = true, readsValues: Bool = false) {
        self.maximumDepth = maximumDepth
        self.pairsBrackets = pairsBrackets
        self.readsValues = readsValues
        closers = .allocate(capacity: maximumDepth + 1)
        readsShard = shardStartsAtArray != nil
        if shardStartsAtArray == false || startsAfterComma || readsValues { state = .beforeElement }
    }

    /// A framer with the same limit and bracket rule, before the array (its own bracket stack: deallocate it too).
    func fresh() -> RecordFramer {
        var framer = RecordFramer(maximumDepth: maximumDepth, pairsBrackets: pairsBrackets, readsValues: readsValues)
        framer.blanksTrailingContent = blanksTrailingContent
        return framer
    }

    /// Frees the bracket stack; call once, when framing is done.
    func deallocate() {
        closers.deallocate()
    }

    private enum ElementScan {
        case continues, ended, tooDeep, mismatched
    }

    /// Scans inside an element from `index` until it ends (`index` then points past its last byte), a problem
    /// (`index` at the offending byte), or the end of the bytes. The state lives in locals meanwhile: this loop
    /// is the reader thread's whole cost on array files.
    private mutating func scanElement(_ bytes: UnsafeMutablePointer<UInt8>, _ index: inout Int, _ count: Int) -> ElementScan {
        var position = index
        var depth = self.depth
        var inString = self.inString
        var escaped = self.escaped
        defer {
            index = position
            self.depth = depth
            self.inString = inString
            self.escaped = escaped
        }
        while position < count {
            // Inside a container: 64 bytes at a time; the last few bytes of a call go byte by byte.
            if depth > 0 && count - position >= 64 {
                var blockState = sluice_scan_state(depth: depth, in_string: inString ? 1 : 0, escaped: escaped ? 1 : 0)
                var blockPosition = position
                let outcome = sluice_scan_element(bytes, count, &blockPosition, &blockState, pairsBrackets ? closers : nil, maximumDepth)
                position = blockPosition
                depth = blockState.depth
                inString = blockState.in_string != 0
                escaped = blockState.escaped != 0
                switch Int(outcome) {
                case Int(SLUICE_SCAN_ENDED): return .ended
                case Int(SLUICE_SCAN_TOO_DEEP): return .tooDeep
                case Int(SLUICE_SCAN_MISMATCHED): return .mismatched
                default: break
                }
                guard position < count else { return .continues }
            }
            if escaped {
                escaped = false
                position += 1
                continue
            }
            if inString {
                position = Self.nextQuoteOrBackslash(bytes, from: position, to: count)
                guard position < count else { return .continues }
                if bytes[position] == UInt8(ascii: "\\") {
                    escaped = true
                } else {
                    inString = false
                    if depth == 0 {
                        position += 1
                        return .ended
                    }
                }
                position += 1
                continue
            }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "\\"):
                // Outside a string too, as the 64-byte blocks read it (they cannot tell where strings are before
                // knowing what is escaped): the input is malformed either way, but every chunk size must cut it
                // in the same place.
                escaped = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < maximumDepth else { return .tooDeep }
                closers[depth] = byte &+ 2  // `}` and `]` sit two code points after `{` and `[`
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard depth > 0, !pairsBrackets || closers[depth - 1] == byte else { return .mismatched }
                depth -= 1
                if depth == 0 {
                    position += 1
                    return .ended
                }
            default:
                break
            }
            position += 1
        }
        return .continues
    }

    /// After the array: blank whatever follows instead of calling it trailing garbage (the array is the records of
    /// a wrapper document, whose rest the records-path filter left as it was).
    var blanksTrailingContent = false
    /// After the array: stop at the next `[` (the next records container of several, see ``RecordsPathFilter``)
    /// and report it in ``nextArrayStart``; ``beginNextArray()`` goes on with it.
    var stopsAtNextArray = false
    /// Where the next array starts, once the scan stopped there.
    private(set) var nextArrayStart: Int?
    /// Arrays whose `[` has been read.
    private(set) var arraysStarted = 0

    /// Frames the array that starts at ``nextArrayStart``, scanning again from its `[`.
    mutating func beginNextArray() {
        nextArrayStart = nil
        state = .beforeArray
    }

    /// The absolute offsets just past the elements ended and not yet taken (``takeElementEnds(upTo:)``), so that a
    /// worker can read the elements one by one without finding their ends again.
    private var elementEnds: [Int] = []

    /// The end of the `number`th element not yet taken (from 1), if that many have ended and more after it.
    func pendingElementEnd(number: Int) -> Int? {
        number < elementEnds.count ? elementEnds[number - 1] : nil
    }

    /// The end of the last element not yet taken.
    var lastPendingElementEnd: Int? { elementEnds.last }

    /// Elements ended and not yet taken.
    var pendingElementCount: Int { elementEnds.count }

    /// The ends of the elements that end at or before absolute offset `end`, in order, forgotten here.
    mutating func takeElementEnds(upTo end: Int) -> [Int] {
        let count = elementEnds.firstIndex { $0 > end } ?? elementEnds.count
        let taken = Array(elementEnds[..<count])
        elementEnds.removeFirst(count)
        return taken
    }

    /// Scans `count` bytes at `bytes`, whose first byte sits at absolute `offset`, and rewrites the outer array's
    /// punctuation into spaces. Returns the absolute offset just past the last element that ended in these bytes
    /// (`nil` if none did), and the first problem found, after which the rest is not scanned.
    mutating func scan(_ bytes: UnsafeMutablePointer<UInt8>, count: Int, at offset: Int) -> (lastElementEnd: Int?, problem: Problem?) {
        var lastElementEnd: Int?
        var index = 0
        while index < count {
            let byte = bytes[index]
            switch state {
            case .inElement:
                if inBareScalar {
                    switch scalar.step(byte) {
                    case .continues:
                        index += 1
                    case .ended where byte == 0x0C || byte == 0x0B:
                        // yajl takes form feed and vertical tab for whitespace and would end the token there; JSON
                        // does not, and the worker's parser stops at them (the token still open, its record not read).
                        return (lastElementEnd, fail(offset + index, "form feed or vertical tab", .forWorker))
                    case .ended:
                        inBareScalar = false
                        state = readsValues ? .beforeElement : .afterElement
                        // A terminator goes with the element, so that a worker's parser sees the number end; any
                        // other byte is judged after the element, as yajl judges the token after the number (in a
                        // stream, `0` then `1` are two values, as `01` is to yajl's lexer).
                        let isTerminator = ShapeDetector.isWhitespace(byte)
                            || !readsValues && (byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]"))
                        let end = offset + index + (isTerminator ? 1 : 0)
                        lastElementEnd = end
                        elementEnds.append(end)
                    case .malformed:
                        // The worker's parser reports the lexical error as one reader's would.
                        return (lastElementEnd, fail(offset + index, "malformed number or literal", .forWorker))
                    }
                    continue
                }
                switch scanElement(bytes, &index, count) {
                case .continues:
                    break
                case .ended:
                    // A stream's next value may follow at once (`{}{}`): there is no separator to wait for.
                    state = readsValues ? .beforeElement : .afterElement
                    lastElementEnd = offset + index
                    elementEnds.append(offset + index)
                case .tooDeep:
                    return (lastElementEnd, fail(offset + index, "nesting too deep", .forWorker))
                case .mismatched:
                    return (lastElementEnd, fail(offset + index, "mismatched bracket", .forWorker))
                }
            case .beforeArray:
                if byte == UInt8(ascii: "[") {
                    bytes[index] = 0x20
                    arraysStarted += 1
                    lastArrayStart = offset + index
                    state = .beforeFirstElement
                } else if !ShapeDetector.isWhitespace(byte) {
                    return (lastElementEnd, fail(offset + index, "expected a top-level array of records", .notAnArray))
                }
                index += 1
            case .beforeFirstElement, .beforeElement:
                if ShapeDetector.isWhitespace(byte) {
                    index += 1
                } else if byte == UInt8(ascii: "]") && state == .beforeFirstElement {
                    bytes[index] = 0x20
                    state = .afterArray
                    lastArrayEnd = offset + index + 1
                    index += 1
                } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: ":") {
                    return (lastElementEnd, fail(offset + index, "unallowed token at this point in JSON text", .forWorker))
                } else if !Self.startsValue(byte) {
                    // No value starts so: the worker's parser reports the byte as one reader's would.
                    return (lastElementEnd, fail(offset + index, "invalid element", .forWorker))
                } else {
                    state = .inElement
                    inBareScalar = false
                    // The element's first byte is handled by the element rules.
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { continue }
                    inBareScalar = true
                    scalar.start(byte)
                    index += 1
                }
            case .afterElement:
                if ShapeDetector.isWhitespace(byte) {
                    index += 1
                } else if byte == UInt8(ascii: ",") {
                    bytes[index] = 0x20
                    state = .beforeElement
                    index += 1
                } else if byte == UInt8(ascii: "]") {
                    bytes[index] = 0x20
                    state = .afterArray
                    lastArrayEnd = offset + index + 1
                    index += 1
                } else {
                    // A token here (a second value, `}`, `:`) is an error only inside an array, which a worker's parser,
                    // reading the elements as a stream of values, would not see: the framer says it as yajl would. A
                    // byte yajl cannot read at all the worker's parser reports as one reader's would.
                    let isToken = Self.startsValue(byte) || byte == UInt8(ascii: "}") || byte == UInt8(ascii: ":")
                    return (lastElementEnd, fail(offset + index, "after array element, I expect ',' or ']'", isToken ? .misplacedToken : .forWorker))
                }
            case .afterArray:
                if stopsAtNextArray && byte == UInt8(ascii: "[") {
                    nextArrayStart = offset + index
                    return (lastElementEnd, nil)
                }
                if blanksTrailingContent {
                    if !ShapeDetector.isWhitespace(byte) { bytes[index] = 0x20 }
                    index += 1
                    continue
                }
                guard ShapeDetector.isWhitespace(byte) else {
                    return (lastElementEnd, fail(offset + index, "trailing garbage", .trailingGarbage))
                }
                index += 1
            case .failed:
                return (lastElementEnd, nil)
            }
        }
        return (lastElementEnd, nil)
    }

    /// Ends the scan at the end of the input, at absolute `offset`: the end of a last element that the end
    /// completes (a number, which only a following byte ends), and the problem, `nil` if the array is complete.
    mutating func finish(at offset: Int) -> (lastElementEnd: Int?, problem: Problem?) {
        if state == .inElement && inBareScalar && scalar.isComplete {
            inBareScalar = false
            state = readsValues ? .beforeElement : .afterElement
            elementEnds.append(offset)
            // A stream may end after any value; an array must still close.
            return (offset, readsValues ? nil : fail(offset, "premature EOF", .endOfInput))
        }
        switch state {
        case .afterArray, .failed:
            return (nil, nil)
        case .beforeElement where readsShard || readsValues:
            return (nil, nil)
        case .inElement:
            // An element cut short, or a malformed scalar: the worker's parser reports it.
            return (nil, fail(offset, "premature EOF", .forWorker))
        case .beforeArray:
            return (nil, nil)  // no array at all: an empty input holds no records
        default:
            return (nil, fail(offset, "premature EOF", .endOfInput))
        }
    }

    /// Whether `byte` can begin a JSON value (a token yajl would read as one, if the rest of it follows).
    static func startsValue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            return true
        default:
            return false
        }
    }

    /// Whether `byte` can follow the first character of a number inside it.
    static func continuesNumber(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    private mutating func fail(_ offset: Int, _ message: String, _ kind: Problem.Kind) -> Problem {
        state = .failed
        return Problem(offset: offset, message: message, kind: kind)
    }

    /// The index of the first `"` or `\\` in `bytes[from..<to]`, or `to`: eight bytes at a time, with the classic
    /// test for a zero byte applied to the word xor-ed with each pattern (the lowest flagged byte is exact).
    @inline(__always)
    static func nextQuoteOrBackslash(_ bytes: UnsafeMutablePointer<UInt8>, from: Int, to: Int) -> Int {
        var index = from
        let raw = UnsafeRawPointer(bytes)
        while index + 8 <= to {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let quotes = word ^ 0x2222_2222_2222_2222
            let backslashes = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let marks = ((quotes &- 0x0101_0101_0101_0101) & ~quotes | (backslashes &- 0x0101_0101_0101_0101) & ~backslashes)
                & 0x8080_8080_8080_8080
            if marks != 0 { return index + marks.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < to {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return index }
            index += 1
        }
        return to
    }
}
