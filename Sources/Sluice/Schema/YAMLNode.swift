#if MappingFiles
/// A node of a YAML document as mapping files use it: scalars keep their text and whether they were written plain
/// (so that `"true"` and `true` differ), and every node keeps where it starts.
///
/// Lists and maps hold their children in arrays, so an alias shares its anchor's node instead of copying it: a
/// document of a few hundred bytes that stands for millions of leaves stays a few hundred nodes.
enum YAMLNode {
    case scalar(Scalar)
    case sequence([YAMLNode], Mark)
    case mapping(Map)

    /// Where a node starts: line and column from 1, the column counted in Unicode scalars.
    struct Mark {
        var line: Int32
        var column: Int32
    }

    struct Scalar {
        var string: String
        /// Written without quotes and without the `!!str` tag: a YAML value such as `true`, `12` or `null`,
        /// rather than text.
        var isPlain: Bool
        var mark: Mark

        /// YAML's Booleans in any case: true, yes, on; false, no, off.
        var bool: Bool? {
            guard isPlain else { return nil }
            switch string.lowercased() {
            case "true", "yes", "on": return true
            case "false", "no", "off": return false
            default: return nil
            }
        }

        /// A plain decimal whole number, with an optional sign.
        var int: Int? { isPlain ? Int(string) : nil }

        /// YAML's null: `null` or `~` unquoted, or nothing at all (`thousands:` with no value). Other spellings
        /// (`Null`, `NULL`) stay text, which a null spelling such as `nulls: [NULL]` means.
        var isNull: Bool { isPlain && (string == "null" || string == "~" || string.isEmpty) }
    }

    /// A map's entries in the document's order (its keys are unique: composing refuses a repeated key).
    struct Map: RandomAccessCollection {
        var entries: [(key: YAMLNode, value: YAMLNode)]
        var mark: Mark

        var startIndex: Int { entries.startIndex }
        var endIndex: Int { entries.endIndex }
        subscript(position: Int) -> (key: YAMLNode, value: YAMLNode) { entries[position] }

        /// The value of the entry whose key is the scalar `key`.
        subscript(key: String) -> YAMLNode? {
            entries.first { $0.key.string == key }?.value
        }
    }

    var scalar: Scalar? {
        if case .scalar(let scalar) = self { return scalar }
        return nil
    }

    var string: String? { scalar?.string }
    var bool: Bool? { scalar?.bool }
    var int: Int? { scalar?.int }

    var sequence: [YAMLNode]? {
        if case .sequence(let nodes, _) = self { return nodes }
        return nil
    }

    var mapping: Map? {
        if case .mapping(let mapping) = self { return mapping }
        return nil
    }

    var mark: Mark {
        switch self {
        case .scalar(let scalar): scalar.mark
        case .sequence(_, let mark): mark
        case .mapping(let mapping): mapping.mark
        }
    }
}
#endif
