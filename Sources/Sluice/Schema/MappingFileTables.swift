#if MappingFiles
extension MappingFile {
    /// A field's `table:`: `{fields: [...], index: NAME, links: {OLD: NEW}}` for elements read as records, or a field's settings
    /// without a name (`{type: string}`) for elements that are values. Problems of its fields are noted at them.
    static func childTable(_ node: YAMLNode, of name: String, registry: MappingRegistry, note: (YAMLNode?, [String]) -> Void) -> ChildTable? {
        guard let mapping = node.mapping else {
            note(node, ["'table' must be {fields: [...]} for elements that are objects, or {type: ...} for elements that are values"])
            return nil
        }
        var nested = Parsed(source: "")
        var table = ChildTable(fields: [])
        if let index = mapping["index"] {
            if let text = index.scalar?.string, !text.isEmpty {
                table.indexColumn = text
            } else {
                note(index, ["table \(name): 'index' must name the column of each element's position"])
            }
        }
        if let links = mapping["links"] {
            if let renames = links.mapping {
                for (from, to) in renames {
                    guard let old = from.string, !old.isEmpty, let new = to.scalar?.string, !new.isEmpty else {
                        note(to, ["table \(name): 'links' maps a link's name to its new name, as {_id: tweet_id}"])
                        continue
                    }
                    table.linkNames[old] = new
                }
            } else {
                note(links, ["table \(name): 'links' must map links' names to new names, as {_id: tweet_id}"])
            }
        }
        if let list = mapping["fields"] {
            for (key, _) in mapping where !["fields", "index", "links"].contains(key.string ?? "") {
                note(key, ["table \(name): unknown key '\(key.string ?? "?")' beside 'fields' (known: fields, index, links)"])
            }
            guard let entries = list.sequence else {
                note(list, ["table \(name): 'fields' must be a list"])
                return nil
            }
            for (position, entry) in entries.enumerated() {
                for problem in field(entry, position: position, registry: registry, into: &nested) {
                    note(problem.node ?? entry, ["table \(name): " + (problem.field.map { "field \($0): " } ?? "") + problem.message])
                }
            }
            // Fields left out for problems of their own leave no table to compile, not an empty one.
            if nested.fields.isEmpty && !entries.isEmpty { return nil }
        } else {
            for problem in field(node, position: 0, registry: registry, into: &nested, valueTable: true) {
                note(problem.node ?? node, ["table \(name): " + problem.message])
            }
        }
        table.fields = nested.fields
        return table
    }
}
#endif
