/// Finds the element boundaries of a top-level JSON array without parsing it, so that the parallel pipeline can
/// cut array files into chunks as it cuts NDJSON at line feeds.
///
/// It tracks strings, escapes and bracket nesting, byte by byte, across calls (a chunk may end anywhere). It
/// rewrites the outer array's own punctuation — `[`, the commas between elements, `]` — into spaces, in place,
/// which turns a chunk of elements into concatenated JSON values that a worker maps on its own; every element
/// keeps its byte offsets. What yajl would have checked about that punctuation, the framer checks: a missing or
/// doubled comma, a trailing comma, content after the array. Inside elements it checks only that brackets pair up
/// (so that boundaries cannot drift); the worker's parser checks the rest.
struct ArrayFramer {
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
        /// Whether the problem lies inside an element, which the worker's parser reports better than the framer
        /// (the chunk then ends just past the offending byte); otherwise the framer's message is the error.
        var isInsideElement: Bool
    }

    private(set) var state = State.beforeArray
    /// Closing brackets expected inside the current element, innermost last.
    private var closers: [UInt8] = []
    private var inString = false
    private var escaped = false
    /// The element is a scalar outside a string (a number or literal), which ends at whitespace, `,` or `]`.
    private var inBareScalar = false
    private let maximumDepth: Int

    init(maximumDepth: Int) {
        self.maximumDepth = maximumDepth
    }

    /// Whether the outer array has been closed.
    var isComplete: Bool { state == .afterArray }

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
                if inString {
                    // Most bytes of a record are string content: skip to the next quote or backslash.
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                        if closers.isEmpty {
                            state = .afterElement
                            lastElementEnd = offset + index + 1
                        }
                    }
                    index += 1
                    continue
                }
                if inBareScalar {
                    if Self.isWhitespace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") {
                        inBareScalar = false
                        state = .afterElement
                        // The terminator goes with the element: a worker's parser sees the number end.
                        lastElementEnd = offset + index + 1
                        continue  // the same byte, now after the element
                    }
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                        return (lastElementEnd, fail(offset + index, "after array element, I expect ',' or ']'", insideElement: false))
                    }
                    index += 1
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""):
                    inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard closers.count < maximumDepth else {
                        return (lastElementEnd, fail(offset + index, "nesting too deep", insideElement: true))
                    }
                    closers.append(byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard closers.last == byte else {
                        return (lastElementEnd, fail(offset + index, "mismatched bracket", insideElement: true))
                    }
                    closers.removeLast()
                    if closers.isEmpty {
                        state = .afterElement
                        lastElementEnd = offset + index + 1
                    }
                default:
                    break
                }
                index += 1
            case .beforeArray:
                if byte == UInt8(ascii: "[") {
                    bytes[index] = 0x20
                    state = .beforeFirstElement
                } else if !Self.isWhitespace(byte) {
                    return (lastElementEnd, fail(offset + index, "expected a top-level array of records", insideElement: false))
                }
                index += 1
            case .beforeFirstElement, .beforeElement:
                if Self.isWhitespace(byte) {
                    index += 1
                } else if byte == UInt8(ascii: "]") && state == .beforeFirstElement {
                    bytes[index] = 0x20
                    state = .afterArray
                    index += 1
                } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: ":") {
                    return (lastElementEnd, fail(offset + index, "unallowed token at this point in JSON text", insideElement: false))
                } else {
                    state = .inElement
                    inBareScalar = false
                    // The element's first byte is handled by the element rules.
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { continue }
                    inBareScalar = true
                    index += 1
                }
            case .afterElement:
                if Self.isWhitespace(byte) {
                    index += 1
                } else if byte == UInt8(ascii: ",") {
                    bytes[index] = 0x20
                    state = .beforeElement
                    index += 1
                } else if byte == UInt8(ascii: "]") {
                    bytes[index] = 0x20
                    state = .afterArray
                    index += 1
                } else {
                    return (lastElementEnd, fail(offset + index, "after array element, I expect ',' or ']'", insideElement: false))
                }
            case .afterArray:
                guard Self.isWhitespace(byte) else {
                    return (lastElementEnd, fail(offset + index, "trailing garbage", insideElement: false))
                }
                index += 1
            case .failed:
                return (lastElementEnd, nil)
            }
        }
        return (lastElementEnd, nil)
    }

    /// What the end of the input means here: `nil` if the array is complete, else the problem.
    func problemAtEnd(offset: Int) -> Problem? {
        switch state {
        case .afterArray, .failed: return nil
        // An element cut short: the worker's parser reports it as truncated.
        case .inElement: return Problem(offset: offset, message: "premature EOF", isInsideElement: true)
        case .beforeArray: return nil  // no array at all: an empty input holds no records
        default: return Problem(offset: offset, message: "premature EOF", isInsideElement: false)
        }
    }

    private mutating func fail(_ offset: Int, _ message: String, insideElement: Bool) -> Problem {
        state = .failed
        return Problem(offset: offset, message: message, isInsideElement: insideElement)
    }

    @inline(__always) private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
