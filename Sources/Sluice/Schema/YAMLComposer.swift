#if MappingFiles
import CLibYAML

/// Why a text is not YAML: libyaml's words, and where.
struct YAMLSyntaxError: Error {
    var message: String
    var mark: YAMLNode.Mark
}

/// Composes YAML text into nodes from libyaml's events.
///
/// One list of the root map can be handed out an entry at a time, as soon as each is composed, instead of being kept
/// in the tree: a mapping file of 100,000 fields then holds one field's nodes at a time, not all of them.
enum YAMLComposer {
    /// Lists and maps nest at most this deep; a mapping file needs a handful of levels, and composing recurses.
    static let maximumDepth = 256

    /// The document's root node (nil for an empty stream).
    /// - Parameters:
    ///   - text: UTF-8 text.
    ///   - streamedKey: The key of the root map whose list is handed out; it stays in the tree as an empty list.
    ///   - entry: Called with each entry of that list and its position.
    static func compose(_ text: UnsafeBufferPointer<UInt8>, handingOut streamedKey: String,
                        to entry: (YAMLNode, Int) -> Void) throws(YAMLSyntaxError) -> YAMLNode? {
        // libyaml points the parser at itself when given a string, so it must not move.
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) == 1 else {
            throw YAMLSyntaxError(message: "out of memory", mark: .init(line: 1, column: 1))
        }
        defer { yaml_parser_delete(parser) }
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
        yaml_parser_set_input_string(parser, text.baseAddress, text.count)
        var composition = Composition(parser: parser, text: text)
        return try composition.document(handingOut: streamedKey, to: entry)
    }

    private struct Composition {
        let parser: UnsafeMutablePointer<yaml_parser_t>
        let text: UnsafeBufferPointer<UInt8>
        var anchors: [String: YAMLNode] = [:]

        /// What one libyaml event says, copied out of it.
        enum Event {
            case streamStart, streamEnd, documentStart, documentEnd
            case alias(String)
            case scalar(YAMLNode.Scalar, anchor: String?)
            case sequenceStart(anchor: String?)
            case sequenceEnd
            case mappingStart(anchor: String?)
            case mappingEnd
        }

        mutating func document(handingOut streamedKey: String, to entry: (YAMLNode, Int) -> Void) throws(YAMLSyntaxError) -> YAMLNode? {
            _ = try next() // the stream's start
            guard case (.documentStart, _) = try next() else { return nil }
            var root: YAMLNode
            let (first, mark) = try next()
            if case .mappingStart(let anchor) = first {
                root = try mapping(at: mark, anchor: anchor, depth: 1, handingOut: streamedKey, to: entry)
            } else {
                root = try node(first, at: mark, depth: 1)
            }
            _ = try next() // the document's end
            if case (.documentStart, let mark) = try next() {
                throw YAMLSyntaxError(message: "expected a single document, but found another", mark: mark)
            }
            return root
        }

        mutating func node(_ event: Event, at mark: YAMLNode.Mark, depth: Int) throws(YAMLSyntaxError) -> YAMLNode {
            switch event {
            case .scalar(let scalar, let anchor):
                let node = YAMLNode.scalar(scalar)
                if let anchor { anchors[anchor] = node }
                return node
            case .alias(let name):
                guard let node = anchors[name] else { throw YAMLSyntaxError(message: "found undefined alias '\(name)'", mark: mark) }
                return node
            case .sequenceStart(let anchor):
                try check(depth, mark)
                var nodes: [YAMLNode] = []
                while true {
                    let (event, itemMark) = try next()
                    if case .sequenceEnd = event { break }
                    nodes.append(try node(event, at: itemMark, depth: depth + 1))
                }
                let node = YAMLNode.sequence(nodes, mark)
                if let anchor { anchors[anchor] = node }
                return node
            case .mappingStart(let anchor):
                return try mapping(at: mark, anchor: anchor, depth: depth, handingOut: nil) { _, _ in }
            case .streamStart, .streamEnd, .documentStart, .documentEnd, .sequenceEnd, .mappingEnd:
                // libyaml's grammar puts a node here; anything else would be its error, reported before.
                throw YAMLSyntaxError(message: "did not find expected node content", mark: mark)
            }
        }

        /// A map whose mapping-start event has been read; the list under `streamedKey` is handed out entry by entry.
        mutating func mapping(at mark: YAMLNode.Mark, anchor: String?, depth: Int, handingOut streamedKey: String?,
                              to entry: (YAMLNode, Int) -> Void) throws(YAMLSyntaxError) -> YAMLNode {
            try check(depth, mark)
            var entries: [(key: YAMLNode, value: YAMLNode)] = []
            var keys: Set<String> = []
            while true {
                let (event, keyMark) = try next()
                if case .mappingEnd = event { break }
                let key = try node(event, at: keyMark, depth: depth + 1)
                if let name = key.string, !keys.insert(name).inserted {
                    throw YAMLSyntaxError(message: "found the key '\(name)' twice in one map", mark: keyMark)
                }
                let (valueEvent, valueMark) = try next()
                var value: YAMLNode
                if let streamedKey, key.string == streamedKey, case .sequenceStart(let listAnchor) = valueEvent {
                    try check(depth + 1, valueMark)
                    var position = 0
                    while true {
                        let (itemEvent, itemMark) = try next()
                        if case .sequenceEnd = itemEvent { break }
                        entry(try node(itemEvent, at: itemMark, depth: depth + 2), position)
                        position += 1
                    }
                    value = .sequence([], valueMark)
                    if let listAnchor { anchors[listAnchor] = value }
                } else {
                    value = try node(valueEvent, at: valueMark, depth: depth + 1)
                    if let streamedKey, key.string == streamedKey, case .sequence(let nodes, let listMark) = value {
                        for (position, node) in nodes.enumerated() { entry(node, position) }
                        value = .sequence([], listMark)
                    }
                }
                entries.append((key, value))
            }
            let node = YAMLNode.mapping(.init(entries: entries, mark: mark))
            if let anchor { anchors[anchor] = node }
            return node
        }

        func check(_ depth: Int, _ mark: YAMLNode.Mark) throws(YAMLSyntaxError) {
            if depth > YAMLComposer.maximumDepth {
                throw YAMLSyntaxError(message: "lists and maps nest deeper than \(YAMLComposer.maximumDepth) levels", mark: mark)
            }
        }

        mutating func next() throws(YAMLSyntaxError) -> (Event, YAMLNode.Mark) {
            var raw = yaml_event_t()
            guard yaml_parser_parse(parser, &raw) == 1 else { throw failure() }
            defer { yaml_event_delete(&raw) }
            let mark = YAMLNode.Mark(line: Int32(clamping: raw.start_mark.line + 1), column: Int32(clamping: raw.start_mark.column + 1))
            func text(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? { pointer.map { String(cString: $0) } }
            let event: Event
            switch raw.type {
            case YAML_STREAM_START_EVENT: event = .streamStart
            case YAML_DOCUMENT_START_EVENT: event = .documentStart
            case YAML_DOCUMENT_END_EVENT: event = .documentEnd
            case YAML_ALIAS_EVENT: event = .alias(text(raw.data.alias.anchor) ?? "")
            case YAML_SCALAR_EVENT:
                let scalar = raw.data.scalar
                let value = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                let forcedText = text(scalar.tag) == "tag:yaml.org,2002:str"
                let isPlain = scalar.style == YAML_PLAIN_SCALAR_STYLE && !forcedText
                event = .scalar(.init(string: value, isPlain: isPlain, mark: mark), anchor: text(scalar.anchor))
            case YAML_SEQUENCE_START_EVENT: event = .sequenceStart(anchor: text(raw.data.sequence_start.anchor))
            case YAML_SEQUENCE_END_EVENT: event = .sequenceEnd
            case YAML_MAPPING_START_EVENT: event = .mappingStart(anchor: text(raw.data.mapping_start.anchor))
            case YAML_MAPPING_END_EVENT: event = .mappingEnd
            default: event = .streamEnd
            }
            return (event, mark)
        }

        /// libyaml's error: its context and problem, at the problem's place.
        func failure() -> YAMLSyntaxError {
            let state = parser.pointee
            let problem = state.problem.map { String(cString: $0) } ?? "out of memory"
            let context = state.context.map { String(cString: $0) + ", " } ?? ""
            if state.error == YAML_READER_ERROR {
                // The reader gives a byte offset rather than a line and column.
                return YAMLSyntaxError(message: problem, mark: Self.mark(ofByte: state.problem_offset, in: text))
            }
            let mark = YAMLNode.Mark(line: Int32(clamping: state.problem_mark.line + 1), column: Int32(clamping: state.problem_mark.column + 1))
            return YAMLSyntaxError(message: context + problem, mark: mark)
        }

        static func mark(ofByte offset: Int, in text: UnsafeBufferPointer<UInt8>) -> YAMLNode.Mark {
            var line: Int32 = 1
            var column: Int32 = 1
            for byte in text.prefix(offset) {
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
            return .init(line: line, column: column)
        }
    }
}
#endif
