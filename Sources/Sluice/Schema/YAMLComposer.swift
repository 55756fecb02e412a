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
    ///   - entry: Called with each entry of that list, its position, where it stands (an alias's own place, not its
    ///     anchor's), and how many nodes it stands for with its aliases expanded (which the caller bounds:
    ///     composing never expands them).
    static func compose(_ text: UnsafeBufferPointer<UInt8>, handingOut streamedKey: String,
                        to entry: (_ node: YAMLNode, _ position: Int, _ mark: YAMLNode.Mark, _ expandedNodes: Int) -> Void) throws(YAMLSyntaxError) -> YAMLNode? {
        guard let start = text.baseAddress, !text.isEmpty else { return nil }
        // libyaml points the parser at itself when given a string, so it must not move.
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) == 1 else {
            throw YAMLSyntaxError(message: "out of memory", mark: .init(line: 1, column: 1))
        }
        defer { yaml_parser_delete(parser) }
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
        yaml_parser_set_input_string(parser, start, text.count)
        var composition = Composition(parser: parser, text: text)
        return try composition.document(handingOut: streamedKey, to: entry)
    }

    /// What a node stands for with its aliases expanded: how many nodes, and how many levels of lists and maps.
    struct Extent {
        var nodes: Int
        var levels: Int

        static let scalar = Extent(nodes: 1, levels: 0)
        static let emptyContainer = Extent(nodes: 1, levels: 1)

        /// Adds a child of this list or map; counts stop growing at 2^40 (an alias bomb stands for far more).
        mutating func include(_ child: Extent) {
            nodes = min(nodes + child.nodes, 1 << 40)
            levels = max(levels, child.levels + 1)
        }
    }

    private struct Composition {
        let parser: UnsafeMutablePointer<yaml_parser_t>
        let text: UnsafeBufferPointer<UInt8>
        var anchors: [String: (node: YAMLNode, extent: Extent)] = [:]

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

        mutating func document(handingOut streamedKey: String, to entry: (YAMLNode, Int, YAMLNode.Mark, Int) -> Void) throws(YAMLSyntaxError) -> YAMLNode? {
            _ = try next() // the stream's start
            guard case (.documentStart, _) = try next() else { return nil }
            var root: YAMLNode
            let (first, mark) = try next()
            if case .mappingStart(let anchor) = first {
                root = try mapping(at: mark, anchor: anchor, depth: 1, handingOut: streamedKey, to: entry).node
            } else {
                root = try node(first, at: mark, depth: 1).node
            }
            _ = try next() // the document's end
            if case (.documentStart, let mark) = try next() {
                throw YAMLSyntaxError(message: "expected a single document, but found another", mark: mark)
            }
            return root
        }

        /// The node an event starts, at `depth` levels of lists and maps (the root's is 1).
        mutating func node(_ event: Event, at mark: YAMLNode.Mark, depth: Int) throws(YAMLSyntaxError) -> (node: YAMLNode, extent: Extent) {
            switch event {
            case .scalar(let scalar, let anchor):
                let node = YAMLNode.scalar(scalar)
                if let anchor { anchors[anchor] = (node, .scalar) }
                return (node, .scalar)
            case .alias(let name):
                guard let anchored = anchors[name] else { throw YAMLSyntaxError(message: "found undefined alias '\(name)'", mark: mark) }
                // An alias nests its anchor's levels here: chained aliases must not build a deeper tree than the
                // limit allows to be written out.
                if anchored.extent.levels > 0 { try check(depth + anchored.extent.levels - 1, mark) }
                return anchored
            case .sequenceStart(let anchor):
                try check(depth, mark)
                var nodes: [YAMLNode] = []
                var extent = Extent.emptyContainer
                while true {
                    let (event, itemMark) = try next()
                    if case .sequenceEnd = event { break }
                    let item = try node(event, at: itemMark, depth: depth + 1)
                    nodes.append(item.node)
                    extent.include(item.extent)
                }
                let node = YAMLNode.sequence(nodes, mark)
                if let anchor { anchors[anchor] = (node, extent) }
                return (node, extent)
            case .mappingStart(let anchor):
                return try mapping(at: mark, anchor: anchor, depth: depth, handingOut: nil) { _, _, _, _ in }
            case .streamStart, .streamEnd, .documentStart, .documentEnd, .sequenceEnd, .mappingEnd:
                // libyaml's grammar puts a node here; anything else would be its error, reported before.
                throw YAMLSyntaxError(message: "did not find expected node content", mark: mark)
            }
        }

        /// A map whose mapping-start event has been read; the list under `streamedKey` is handed out entry by entry.
        mutating func mapping(at mark: YAMLNode.Mark, anchor: String?, depth: Int, handingOut streamedKey: String?,
                              to entry: (YAMLNode, Int, YAMLNode.Mark, Int) -> Void) throws(YAMLSyntaxError) -> (node: YAMLNode, extent: Extent) {
            try check(depth, mark)
            var entries: [(key: YAMLNode, value: YAMLNode)] = []
            var extent = Extent.emptyContainer
            var keys: Set<String> = []
            while true {
                let (event, keyMark) = try next()
                if case .mappingEnd = event { break }
                let (key, keyExtent) = try node(event, at: keyMark, depth: depth + 1)
                extent.include(keyExtent)
                if let name = key.string, !keys.insert(name).inserted {
                    throw YAMLSyntaxError(message: "found the key '\(name)' twice in one map", mark: keyMark)
                }
                let (valueEvent, valueMark) = try next()
                var value: YAMLNode
                if let streamedKey, key.string == streamedKey, case .sequenceStart(let listAnchor) = valueEvent {
                    // Its entries are not kept, so an alias to it could only stand for an empty list.
                    if listAnchor != nil {
                        throw YAMLSyntaxError(message: "the '\(streamedKey)' list cannot have an anchor (anchor its entries instead)", mark: valueMark)
                    }
                    try check(depth + 1, valueMark)
                    var position = 0
                    while true {
                        let (itemEvent, itemMark) = try next()
                        if case .sequenceEnd = itemEvent { break }
                        let item = try node(itemEvent, at: itemMark, depth: depth + 2)
                        entry(item.node, position, itemMark, item.extent.nodes)
                        position += 1
                    }
                    value = .sequence([], valueMark)
                    extent.include(.emptyContainer)
                } else {
                    let composed = try node(valueEvent, at: valueMark, depth: depth + 1)
                    value = composed.node
                    extent.include(composed.extent)
                    if let streamedKey, key.string == streamedKey, case .sequence(let nodes, let listMark) = value {
                        // An alias to a list anchored before: its entries' own extents were not kept (counting them
                        // again would expand the aliases), so the whole list's is counted with its first entry.
                        for (position, node) in nodes.enumerated() { entry(node, position, node.mark, position == 0 ? composed.extent.nodes : 0) }
                        value = .sequence([], listMark)
                    }
                }
                entries.append((key, value))
            }
            let node = YAMLNode.mapping(.init(entries: entries, mark: mark))
            if let anchor { anchors[anchor] = (node, extent) }
            return (node, extent)
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
