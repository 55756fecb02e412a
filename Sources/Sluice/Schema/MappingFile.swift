import Foundation
import Yams

/// Reads the mapping-file format (YAML, or JSON, which is read as YAML) into field specifications.
///
/// The format is documented in `docs/mapping.md`. Every problem is reported at once, with its line.
enum MappingFile {
    static let fieldKeys: Set<String> = ["name", "path", "type", "optional", "default", "truncate", "unit", "formats", "values"]
    static let topLevelKeys: Set<String> = ["fields"]

    static func fields(fromText text: String, source: String) throws(SluiceError) -> [FieldSpec] {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw .invalidMapping([MappingProblem(field: nil, message: "\(source): not valid YAML or JSON: \(error)")])
        }
        guard let root, let top = root.mapping else {
            throw .invalidMapping([MappingProblem(field: nil, message: "\(source): expected a mapping with a 'fields' list at the top")])
        }
        var problems: [MappingProblem] = []
        for (key, _) in top where !topLevelKeys.contains(key.string ?? "") {
            problems.append(MappingProblem(field: nil, message: "\(where_(key, source)): unknown top-level key '\(key.string ?? "?")' (known: \(topLevelKeys.sorted().joined(separator: ", ")))"))
        }
        guard let list = top["fields"] else {
            throw .invalidMapping(problems + [MappingProblem(field: nil, message: "\(source): the 'fields' list is missing")])
        }
        guard let entries = list.sequence else {
            throw .invalidMapping(problems + [MappingProblem(field: nil, message: "\(where_(list, source)): 'fields' must be a list")])
        }
        var fields: [FieldSpec] = []
        for (position, entry) in entries.enumerated() {
            let label = "\(where_(entry, source)): field #\(position + 1)"
            guard let mapping = entry.mapping else {
                problems.append(MappingProblem(field: nil, message: "\(label) must be a mapping with name and type"))
                continue
            }
            let name = mapping["name"]?.scalar?.string
            let fieldLabel = name.map { "\(where_(entry, source)): field '\($0)'" } ?? label
            var entryProblems: [String] = []
            for (key, _) in mapping where !fieldKeys.contains(key.string ?? "") {
                entryProblems.append("unknown key '\(key.string ?? "?")' (known: \(fieldKeys.sorted().joined(separator: ", ")))")
            }
            if name == nil { entryProblems.append("'name' is missing") }
            let path = mapping["path"].flatMap { node -> String? in
                if let text = node.scalar?.string { return text }
                entryProblems.append("'path' must be a string")
                return nil
            }
            var type: FieldType?
            if let typeText = mapping["type"]?.scalar?.string {
                type = FieldType(rawValue: typeText)
                if type == nil {
                    entryProblems.append("unknown type '\(typeText)' (known: \(FieldType.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
            } else {
                entryProblems.append("'type' is missing")
            }
            var spec = FieldSpec(name: name ?? "", path: path, type: type ?? .string)
            func flag(_ key: String) -> Bool {
                guard let node = mapping[key] else { return false }
                if let value = node.bool { return value }
                entryProblems.append("'\(key)' must be true or false")
                return false
            }
            spec.isOptional = flag("optional")
            spec.truncatesFractions = flag("truncate")
            if let unitNode = mapping["unit"] {
                if let unit = unitNode.scalar.flatMap({ EpochUnit(rawValue: $0.string) }) {
                    spec.epochUnit = unit
                } else {
                    entryProblems.append("'unit' must be one of \(EpochUnit.allCases.map(\.rawValue).joined(separator: ", "))")
                }
            }
            if let formatsNode = mapping["formats"] {
                let texts = formatsNode.sequence.map { $0.compactMap { $0.scalar?.string } } ?? formatsNode.scalar.map { [$0.string] }
                if let texts {
                    spec.dateFormats = texts.map { $0 == "iso8601" ? .iso8601 : .pattern($0) }
                } else {
                    entryProblems.append("'formats' must be a list of 'iso8601' and date patterns")
                }
            }
            if let valuesNode = mapping["values"] {
                if let list = valuesNode.sequence {
                    spec.enumValues = list.compactMap { $0.scalar?.string }.map { EnumValue($0) }
                } else if let map = valuesNode.mapping {
                    spec.enumValues = map.compactMap { key, value in
                        guard let json = key.scalar?.string, let stored = value.scalar?.string else { return nil }
                        return EnumValue(json: json, value: stored)
                    }
                } else {
                    entryProblems.append("'values' must be a list of values or a map from JSON values to stored values")
                }
            }
            if let defaultNode = mapping["default"], type != nil {
                if let text = defaultNode.scalar?.string {
                    do {
                        spec.defaultValue = try FieldValue.parse(text, for: spec)
                    } catch {
                        entryProblems.append(error.message)
                    }
                } else {
                    entryProblems.append("'default' must be a single value")
                }
            }
            if entryProblems.isEmpty, name != nil, type != nil {
                fields.append(spec)
            } else {
                problems += entryProblems.map { MappingProblem(field: nil, message: "\(fieldLabel): \($0)") }
            }
        }
        guard problems.isEmpty else { throw .invalidMapping(problems) }
        return fields
    }

    private static func where_(_ node: Node, _ source: String) -> String {
        guard let mark = node.mark else { return source }
        return "\(source):\(mark.line)"
    }
}

extension MappingSchema {
    /// Compiles a mapping file's text (YAML or JSON).
    /// - Parameters:
    ///   - text: The file's contents.
    ///   - source: How to name the text in problems, e.g. its path.
    /// - Throws: ``SluiceError/invalidMapping(_:)`` listing every problem with its line.
    public init(mappingText text: String, source: String = "<mapping>") throws(SluiceError) {
        try self.init(fields: MappingFile.fields(fromText: text, source: source))
    }

    /// Loads and compiles the mapping file at `path` (YAML or JSON).
    public init(contentsOfFile path: String) throws(SluiceError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .io(source: path, byteOffset: 0, message: "cannot read the mapping file: \(error.localizedDescription)")
        }
        try self.init(mappingText: text, source: path)
    }
}
