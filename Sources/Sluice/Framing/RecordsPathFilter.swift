import CStructuralScan

/// Keys of the records of an object found at the records path (`{"events": {"138586341": {...}}}`), in record
/// order: the filter adds them as it meets them, the state machine takes one per record for `$key` fields.
final class RecordKeys: @unchecked Sendable {
    private var keys: [[UInt8]] = []
    private var next = 0

    func append(_ key: [UInt8]) { keys.append(key) }

    /// The next record's key (empty when the records are array elements).
    func take() -> [UInt8] {
        guard next < keys.count else { return [] }
        defer {
            next += 1
            if next > 4096 && next * 2 > keys.count {
                keys.removeFirst(next)
                next = 0
            }
        }
        return keys[next]
    }

    /// The next `count` keys (fewer if fewer are waiting).
    func take(_ count: Int) -> [[UInt8]] {
        let end = min(next + count, keys.count)
        let taken = Array(keys[next..<end])
        next = end
        if next == keys.count {
            keys.removeAll(keepingCapacity: true)
            next = 0
        }
        return taken
    }

    init(_ keys: [[UInt8]] = []) {
        self.keys = keys
    }

    var pending: Int { keys.count - next }
}

/// Turns a wrapper document into a top-level array of its records, in place, as the bytes stream past: everything
/// outside the container at the records path becomes spaces (line feeds stay, so lines still count), an object
/// container's `{` and `}` become `[` and `]` and its member keys and colons spaces (the keys go to
/// ``RecordKeys``). Downstream, the array reader and the parallel array framer read the result as they read any
/// top-level array; every record keeps its byte offsets. Nothing but the records is ever held.
///
/// With several records paths (several record types in one pass), each container becomes an array of its own,
/// in document order, and ``containers`` says which path each one is.
struct RecordsPathFilter {
    enum Failure: Equatable {
        /// The document ended without the path: the path, the deepest part of it found, and the keys found there.
        case notFound(path: String, foundAt: String, keys: [String])
        /// The path leads to a value that cannot hold records, or through one that cannot hold the rest of the path.
        case wrongShape(path: String, found: String, offset: Int)
    }

    /// Each path's segments and text.
    private let paths: [[FieldPath.Segment]]
    private let displayPaths: [String]
    private let allPaths: UInt64
    /// Paths whose container has been read.
    private var pathsFound: UInt64 = 0
    let keys = RecordKeys()
    private(set) var failure: Failure?
    /// The records containers met so far, in document order: which path, and whether it is an object (whose
    /// records have keys).
    private(set) var containers: [(path: Int, isObject: Bool)] = []

    private enum Mode { case wrapper, recordsArray, recordsObject, after, handedOver }
    /// Stop at an array of records and leave the rest as it is: the parallel reader's array framer finds the
    /// array's end and blanks what follows, so the bytes need not be scanned twice.
    var handsOverArrays = false
    private var mode = Mode.wrapper

    // The wrapper: the containers along the path (each an object or array, matched to segments[0..<count]).
    private struct Level {
        var isArray: Bool
        var nextIndex = 0
        /// Objects: the key being read, or the last one read.
        var key = KeyText()
        var expectsKey = true
        var readingKey = false
        /// The paths this container lies on.
        var candidates: UInt64
        /// The paths the next value lies on (none: it is skipped).
        var nextCandidates: UInt64 = 0
    }
    private var levels: [Level] = []
    private var startedDocument = false
    /// Keys seen in the deepest level along the path, for the message when the path is not found.
    private var keysAtDeepest: [String] = []
    private var deepestMatched = 0

    // Skipping a value off the path (in the wrapper), or a record's value (in the records container).
    private var skipDepth = 0
    private var skipInString = false
    private var skipEscaped = false
    /// A scalar off the path (outside a string), which ends at a delimiter.
    private var skipScalar = false

    // The records container.
    private let closers: UnsafeMutablePointer<UInt8>
    private let maximumDepth: Int
    private var recordKey = KeyText()
    private var readingRecordKey = false
    private var expectingRecordKey = true

    /// A filter for one records path, or for several (at most 64, none inside another).
    init(paths: [FieldPath], maximumDepth: Int) {
        self.paths = paths.map(\.segments)
        displayPaths = paths.map(\.description)
        allPaths = paths.count >= 64 ? .max : (1 << UInt64(paths.count)) - 1
        self.maximumDepth = maximumDepth
        closers = .allocate(capacity: maximumDepth + 2)
    }

    func deallocate() { closers.deallocate() }

    /// Filters `count` bytes at `bytes` (absolute `offset` of the first) in place.
    mutating func filter(_ bytes: UnsafeMutablePointer<UInt8>, count: Int, at offset: Int) {
        var index = 0
        while index < count {
            switch mode {
            case .wrapper:
                index = wrapper(bytes, index, count, offset)
            case .recordsArray, .recordsObject:
                index = records(bytes, index, count)
            case .after:
                while index < count {
                    Self.blank(bytes, index)
                    index += 1
                }
            case .handedOver:
                return
            }
        }
    }

    /// The problem as a run's error.
    static func error(_ failure: Failure, source: String) -> SluiceError {
        switch failure {
        case .notFound(let path, let foundAt, let keys):
            let place = foundAt == "$" ? "the document" : foundAt
            let listing = keys.isEmpty ? "no keys" : "the keys " + keys.map { "'\($0)'" }.joined(separator: ", ")
            return .recordsPath(source: source, message: "records path \(path) not found: \(place) holds \(listing)")
        case .wrongShape(let path, let found, let offset):
            return .recordsPath(source: source, message: "records path \(path): expected an array or object of records, found \(found) at byte \(offset)")
        }
    }

    /// At the end of the input: the problem, if the path was never reached.
    mutating func finish() -> Failure? {
        if failure == nil && pathsFound != allPaths, let missing = paths.indices.first(where: { pathsFound & (1 << UInt64($0)) == 0 }) {
            let foundAt = FieldPath(segments: Array(paths[missing].prefix(max(deepestMatched - 1, 0)))).description
            failure = .notFound(path: displayPaths[missing], foundAt: foundAt, keys: keysAtDeepest)
        }
        return failure
    }

    // MARK: - The wrapper

    /// Turns the byte into a space, unless it is whitespace already (line feeds stay, so lines still count).
    private static func blank(_ bytes: UnsafeMutablePointer<UInt8>, _ index: Int) {
        if !ShapeDetector.isWhitespace(bytes[index]) { bytes[index] = 0x20 }
    }

    /// One byte inside a string: an escape, the closing quote, or content.
    @inline(__always)
    private static func stepInString(_ byte: UInt8, _ inString: inout Bool, _ escaped: inout Bool) {
        if escaped {
            escaped = false
        } else if byte == UInt8(ascii: "\\") {
            escaped = true
        } else if byte == UInt8(ascii: "\"") {
            inString = false
        }
    }

    /// One step in the wrapper; returns the next index.
    private mutating func wrapper(_ bytes: UnsafeMutablePointer<UInt8>, _ index: Int, _ count: Int, _ offset: Int) -> Int {
        if skipDepth > 0 || skipScalar || skipInString {
            return skipValue(bytes, index, count)
        }
        let byte = bytes[index]
        if ShapeDetector.isWhitespace(byte) { return index + 1 }
        guard !levels.isEmpty else {
            // The document's own value.
            if startedDocument {
                Self.blank(bytes, index)  // content after the document: not ours to judge
                return index + 1
            }
            startedDocument = true
            return beginValue(bytes, index, offset, onPaths: allPaths)
        }
        let level = levels.count - 1
        if levels[level].isArray {
            switch byte {
            case UInt8(ascii: ","):
                Self.blank(bytes, index)
                return index + 1
            case UInt8(ascii: "]"):
                Self.blank(bytes, index)
                levels.removeLast()
                return index + 1
            default:
                let position = levels[level].nextIndex
                levels[level].nextIndex += 1
                return beginValue(bytes, index, offset, onPaths: matching(levels[level].candidates, level) { $0.index == position })
            }
        }
        // An object along the path.
        if levels[level].readingKey {
            Self.blank(bytes, index)
            if levels[level].key.take(byte) {
                levels[level].readingKey = false
                levels[level].expectsKey = false
                let key = levels[level].key.bytes
                levels[level].nextCandidates = matching(levels[level].candidates, level) { $0.key == key }
                if level + 1 >= deepestMatched && keysAtDeepest.count < 20 {
                    keysAtDeepest.append(String(decoding: levels[level].key.bytes, as: UTF8.self))
                }
            }
            return index + 1
        }
        switch byte {
        case UInt8(ascii: "\"") where levels[level].expectsKey:
            Self.blank(bytes, index)
            levels[level].readingKey = true
            levels[level].key.start()
            return index + 1
        case UInt8(ascii: ":"), UInt8(ascii: ","):
            Self.blank(bytes, index)
            if byte == UInt8(ascii: ",") { levels[level].expectsKey = true }
            return index + 1
        case UInt8(ascii: "}"):
            Self.blank(bytes, index)
            levels.removeLast()
            return index + 1
        default:
            let onPaths = levels[level].nextCandidates
            levels[level].nextCandidates = 0
            return beginValue(bytes, index, offset, onPaths: onPaths)
        }
    }

    /// The paths among `candidates` whose segment at `level` satisfies `test`.
    private func matching(_ candidates: UInt64, _ level: Int, _ test: (FieldPath.Segment) -> Bool) -> UInt64 {
        var result: UInt64 = 0
        for path in paths.indices where candidates & (1 << UInt64(path)) != 0 && level < paths[path].count && test(paths[path][level]) {
            result |= 1 << UInt64(path)
        }
        return result
    }

    /// A value starts at `index`: a records container, a container along a path, or something to skip.
    private mutating func beginValue(_ bytes: UnsafeMutablePointer<UInt8>, _ index: Int, _ offset: Int, onPaths candidates: UInt64) -> Int {
        let byte = bytes[index]
        let isContainer = byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[")
        guard candidates != 0 else {
            return beginSkip(bytes, index)
        }
        let depth = levels.count
        if let path = paths.indices.first(where: { candidates & (1 << UInt64($0)) != 0 && paths[$0].count == depth }) {
            // A records container.
            guard isContainer else {
                fail(.wrongShape(path: displayPaths[path], found: Self.describe(byte) + " where the records should be", offset: offset + index))
                return index
            }
            pathsFound |= 1 << UInt64(path)
            containers.append((path, byte == UInt8(ascii: "{")))
            if byte == UInt8(ascii: "{") {
                bytes[index] = UInt8(ascii: "[")
                mode = .recordsObject
                expectingRecordKey = true
            } else {
                mode = handsOverArrays ? .handedOver : .recordsArray
            }
            return index + 1
        }
        guard isContainer else {
            let path = paths.indices.first { candidates & (1 << UInt64($0)) != 0 } ?? 0
            fail(.wrongShape(path: displayPaths[path], found: Self.describe(byte) + " at " + FieldPath(segments: Array(paths[path].prefix(depth))).description, offset: offset + index))
            return index
        }
        Self.blank(bytes, index)
        levels.append(Level(isArray: byte == UInt8(ascii: "["), candidates: candidates))
        if levels.count > deepestMatched {
            deepestMatched = levels.count
            keysAtDeepest.removeAll()
        }
        return index + 1
    }

    private mutating func fail(_ problem: Failure) {
        failure = problem
        mode = .after
    }

    private static func describe(_ byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "\""): return "a string"
        case UInt8(ascii: "{"): return "an object"
        case UInt8(ascii: "["): return "an array"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a Boolean"
        case UInt8(ascii: "n"): return "null"
        default: return "a number"
        }
    }

    /// Starts skipping (blanking) a value off the path at its first byte; ``skipValue(_:_:_:)`` goes on with it.
    private mutating func beginSkip(_ bytes: UnsafeMutablePointer<UInt8>, _ index: Int) -> Int {
        switch bytes[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["): skipDepth = 1
        case UInt8(ascii: "\""): skipInString = true
        default: skipScalar = true
        }
        Self.blank(bytes, index)
        return index + 1
    }

    /// Skips (blanking) the rest of a value off the path, from where the last call stopped.
    private mutating func skipValue(_ bytes: UnsafeMutablePointer<UInt8>, _ start: Int, _ count: Int) -> Int {
        var index = start
        while index < count {
            let byte = bytes[index]
            if skipInString {
                Self.blank(bytes, index)
                Self.stepInString(byte, &skipInString, &skipEscaped)
                index += 1
                if !skipInString && skipDepth == 0 { return index }
                continue
            }
            if skipScalar {
                if ShapeDetector.isWhitespace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                    skipScalar = false
                    return index  // the delimiter belongs to the container
                }
                Self.blank(bytes, index)
                index += 1
                continue
            }
            Self.blank(bytes, index)
            switch byte {
            case UInt8(ascii: "\""): skipInString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): skipDepth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                skipDepth -= 1
                if skipDepth == 0 { return index + 1 }
            default: break
            }
            index += 1
        }
        return index
    }

    // MARK: - The records container

    /// Past a records container: the rest is skipped, or searched for the other paths' containers.
    private mutating func endContainer() {
        skipDepth = 0
        mode = pathsFound == allPaths ? .after : .wrapper
    }

    /// Inside the records container: records pass through; for an object container, keys and colons become
    /// spaces (and are kept), the closing brace a bracket. Returns the next index.
    private mutating func records(_ bytes: UnsafeMutablePointer<UInt8>, _ start: Int, _ count: Int) -> Int {
        var index = start
        // Inside a record (depth > 1 counting the container): the block scanner finds where it closes.
        if skipDepth > 1 || skipInString || skipEscaped {
            if skipDepth > 1 && count - index >= 64 {
                // Depths relative to the record, so that the scanner stops where the record ends.
                var state = sluice_scan_state(depth: skipDepth - 1, in_string: skipInString ? 1 : 0, escaped: skipEscaped ? 1 : 0)
                var position = index
                let outcome = sluice_scan_element(bytes, count, &position, &state, closers + 1, maximumDepth)
                skipDepth = state.depth + 1
                skipInString = state.in_string != 0
                skipEscaped = state.escaped != 0
                // A problem inside a record is the parser's to report: go on byte by byte past it.
                if Int(outcome) == Int(SLUICE_SCAN_ENDED) || Int(outcome) == Int(SLUICE_SCAN_CONTINUES) || position >= count {
                    return position
                }
                index = position
            }
            let byte = bytes[index]
            if skipInString {
                Self.stepInString(byte, &skipInString, &skipEscaped)
            } else if byte == UInt8(ascii: "\"") {
                skipInString = true
            } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                if skipDepth <= maximumDepth { closers[skipDepth] = byte &+ 2 }
                skipDepth += 1
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                skipDepth -= 1
            }
            return index + 1
        }
        if skipDepth == 0 { skipDepth = 1 }  // the container itself
        let byte = bytes[index]
        if mode == .recordsObject {
            if readingRecordKey {
                Self.blank(bytes, index)
                if recordKey.take(byte) {
                    readingRecordKey = false
                    expectingRecordKey = false
                    keys.append(recordKey.bytes)
                }
                return index + 1
            }
            if byte == UInt8(ascii: "\"") && expectingRecordKey {
                bytes[index] = 0x20
                readingRecordKey = true
                recordKey.start()
                return index + 1
            }
            if byte == UInt8(ascii: ":") {
                bytes[index] = 0x20
                return index + 1
            }
            if byte == UInt8(ascii: ",") {
                expectingRecordKey = true
                return index + 1
            }
            if byte == UInt8(ascii: "}") && skipDepth == 1 {
                bytes[index] = UInt8(ascii: "]")
                endContainer()
                return index + 1
            }
        } else if byte == UInt8(ascii: "]") && skipDepth == 1 {
            endContainer()
            return index + 1
        }
        // A record's own bytes at the container's level: open containers go to the scanner above.
        if byte == UInt8(ascii: "\"") {
            skipInString = true
        } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
            closers[1] = byte &+ 2
            skipDepth = 2
        }
        return index + 1
    }
}

/// A JSON key read a byte at a time after its opening quote, with its escapes undone: `\u` escapes become
/// UTF-8 (a surrogate pair one character, a lone surrogate `?`).
struct KeyText {
    private(set) var bytes: [UInt8] = []
    private var escaped = false
    /// Hex digits of a `\u` escape still to come (0: none), and the value so far.
    private var hexDigitsLeft = 0
    private var code: UInt32 = 0
    /// A high surrogate waiting for its low half.
    private var highSurrogate: UInt32?

    mutating func start() {
        bytes.removeAll(keepingCapacity: true)
        escaped = false
        hexDigitsLeft = 0
        highSurrogate = nil
    }

    /// Takes the key's next byte; returns `true` at its closing quote.
    mutating func take(_ byte: UInt8) -> Bool {
        if hexDigitsLeft > 0 {
            code = code << 4 | UInt32(Self.hexValue(byte))
            hexDigitsLeft -= 1
            if hexDigitsLeft == 0 { endUnicodeEscape() }
            return false
        }
        if escaped {
            escaped = false
            if byte == UInt8(ascii: "u") {
                hexDigitsLeft = 4
                code = 0
                return false
            }
            flushSurrogate()
            bytes.append(JSONValue.byte(escapedBy: byte))
            return false
        }
        if byte == UInt8(ascii: "\\") {
            escaped = true
            return false
        }
        flushSurrogate()
        if byte == UInt8(ascii: "\"") { return true }
        bytes.append(byte)
        return false
    }

    private mutating func endUnicodeEscape() {
        if (0xD800...0xDBFF).contains(code) {
            flushSurrogate()
            highSurrogate = code
            return
        }
        if (0xDC00...0xDFFF).contains(code) {
            if let high = highSurrogate {
                highSurrogate = nil
                append(scalar: 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00))
            } else {
                bytes.append(UInt8(ascii: "?"))
            }
            return
        }
        flushSurrogate()
        append(scalar: code)
    }

    /// A high surrogate with no low half after it.
    private mutating func flushSurrogate() {
        if highSurrogate != nil {
            highSurrogate = nil
            bytes.append(UInt8(ascii: "?"))
        }
    }

    private mutating func append(scalar: UInt32) {
        guard let unicodeScalar = Unicode.Scalar(scalar) else { return }
        bytes.append(contentsOf: String(unicodeScalar).utf8)
    }

    /// A hex digit's value; the parser reports anything else as malformed, so its value does not matter.
    private static func hexValue(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: 0
        }
    }
}
