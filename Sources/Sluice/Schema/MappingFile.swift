// Mapping files exist with the MappingFiles trait (on by default), which brings in libyaml.
#if MappingFiles
import Foundation

/// Reads the mapping-file format (YAML, or JSON, which is read as YAML) into field specifications.
///
/// The format is documented in `docs/mapping.md`. Every problem is reported at once, with its line and column.
enum MappingFile {
    static let fieldKeys: Set<String> = ["name", "path", "type", "optional", "default", "truncate", "unit", "formats", "precision", "scale", "rounding", "values", "validate", "transform", "unique", "nulls", "clean", "table"]
    static let topLevelKeys: Set<String> = ["fields", "unmapped", "ignore", "naming", "records", "skip", "header", "nulls", "key"]

    /// What a mapping file holds: the fields that could be read (those with a name and a known type, without the
    /// options that were wrong), the options, every problem found in the text, and where each field and setting
    /// is, for the problems that compiling finds.
    struct Parsed {
        var source: String
        var fields: [FieldSpec] = []
        /// The name of each of `fields` and where it starts (kept apart: the fields move into the plan).
        var fieldPlaces: [(name: String, mark: YAMLNode.Mark)] = []
        var options = MappingOptions()
        var problems: [MappingProblem] = []
        var settingLocations: [MappingProblem.Setting: MappingProblem.Location] = [:]

        /// The problems compiling found, placed at their field (its first entry, for a repeated name) or setting.
        func located(_ compiled: [MappingProblem]) -> [MappingProblem] {
            var firstEntry: [String: Int] = [:]
            if compiled.contains(where: { $0.field != nil }) {
                for (index, place) in fieldPlaces.enumerated().reversed() { firstEntry[place.name] = index }
            }
            return compiled.map { problem in
                var placed = problem
                if let field = problem.field {
                    placed.location = firstEntry[field].map { MappingProblem.Location(source: source, mark: fieldPlaces[$0].mark) }
                } else if let setting = problem.setting {
                    placed.location = settingLocations[setting] ?? settingLocations[MappingProblem.Setting(key: setting.key)]
                }
                return placed
            }
        }
    }

    static func parse(_ text: UnsafeBufferPointer<UInt8>, source: String, registry: MappingRegistry) throws(SluiceError) -> Parsed {
        func at(_ node: YAMLNode?) -> MappingProblem.Location? {
            node.map { MappingProblem.Location(source: source, mark: $0.mark) }
        }
        var parsed = Parsed(source: source)
        // Aliases share nodes, but reading a field copies what they stand for into its specification: entries
        // that stand for many times what the file holds are refused, not read (an alias bomb in a few lines).
        let expansionLimit = aliasExpansionLimit(forBytes: text.count)
        var expandedNodes = 0
        // Each field is read as soon as its nodes are composed, so that only one field's nodes exist at a time.
        let composed: YAMLNode?
        do {
            composed = try YAMLComposer.compose(text, handingOut: "fields") { entry, position, mark, nodes in
                guard expandedNodes <= expansionLimit else { return }
                expandedNodes = min(expandedNodes + nodes, Int.max / 2)
                guard expandedNodes <= expansionLimit else {
                    parsed.problems.append(MappingProblem(field: nil, message: "field #\(position + 1): with their aliases expanded, the fields stand for more than \(expansionLimit) values; this one and those after it are not read", location: .init(source: source, mark: mark)))
                    return
                }
                let problems = field(entry, position: position, registry: registry, into: &parsed)
                parsed.problems += problems.map { MappingProblem(field: $0.field, message: $0.message, location: at($0.node) ?? at(entry)) }
            }
        } catch {
            throw .invalidMapping([MappingProblem(field: nil, message: "not valid YAML or JSON: \(error.message)", location: .init(source: source, mark: error.mark))])
        }
        guard let root = composed, let top = root.mapping else {
            throw .invalidMapping([MappingProblem(field: nil, message: "expected a mapping with a 'fields' list at the top", location: at(composed) ?? .init(source: source, line: 1, column: 1))])
        }
        func problem(_ message: String, at node: YAMLNode?) {
            parsed.problems.append(MappingProblem(field: nil, message: message, location: at(node)))
        }
        for (key, value) in top {
            let name = key.string ?? ""
            if !topLevelKeys.contains(name) {
                problem("unknown top-level key '\(key.string ?? "?")' (known: \(topLevelKeys.sorted().joined(separator: ", ")))" + Spelling.suggestion(for: key.string ?? "", among: topLevelKeys.sorted()), at: key)
            }
            parsed.settingLocations[MappingProblem.Setting(key: name)] = at(value)
            for (index, entry) in (value.sequence ?? []).enumerated() {
                parsed.settingLocations[MappingProblem.Setting(key: name, index: index)] = at(entry)
            }
        }
        guard let list = top["fields"] else {
            problem("the 'fields' list is missing", at: root)
            throw .invalidMapping(parsed.problems)
        }
        guard list.sequence != nil else {
            problem("'fields' must be a list", at: list)
            throw .invalidMapping(parsed.problems)
        }
        if let unmapped = top["unmapped"] {
            if let policy = unmapped.scalar.flatMap({ MappingOptions.UnmappedKeys(rawValue: $0.string) }) {
                parsed.options.unmappedKeys = policy
            } else {
                problem("'unmapped' must be ignore or reject", at: unmapped)
            }
        }
        if let naming = top["naming"] {
            // `naming: snake_case`, or `naming: {convention: snake_case, separator: "-"}`.
            let convention = naming.scalar?.string ?? naming.mapping?["convention"]?.scalar?.string
            let separator = naming.mapping?["separator"]?.scalar?.string ?? "_"
            if convention == "snake_case" {
                parsed.options.naming = .snakeCase(separator: separator)
            } else {
                problem("'naming' must be snake_case or {convention: snake_case, separator: …}", at: naming)
            }
        }
        if let ignore = top["ignore"] {
            // Every entry a key path: a nested list or a map is a mistake, not something to pass over.
            if let entries = ignore.sequence, case let paths = entries.compactMap({ $0.scalar?.string }), paths.count == entries.count {
                parsed.options.ignoredPaths = paths
            } else {
                problem("'ignore' must be a list of key paths", at: ignore)
            }
        }
        if let records = top["records"] {
            if let path = records.scalar?.string, !path.isEmpty {
                parsed.options.recordsPath = path
            } else {
                problem("'records' must be the key path of the records (e.g. statuses)", at: records)
            }
        }
        if let skip = top["skip"] {
            if let count = skip.int, count >= 0 {
                parsed.options.skippedRecords = count
            } else {
                problem("'skip' must be a number of records, 0 or more", at: skip)
            }
        }
        if let nulls = top["nulls"] {
            var messages: [String] = []
            parsed.options.nullSpellings = nullSpellings(nulls, problems: &messages)
            for message in messages { problem(message, at: nulls) }
        }
        if let key = top["key"] {
            // `key: id`, or `key: [source, id]`.
            if let name = key.scalar?.string, !name.isEmpty {
                parsed.options.key = [name]
            } else if let entries = key.sequence, case let names = entries.compactMap({ $0.scalar?.string }), names.count == entries.count, !names.isEmpty {
                parsed.options.key = names
            } else {
                problem("'key' must name a field, or be a list of fields", at: key)
            }
        }
        if let header = top["header"] {
            if let flag = header.bool {
                parsed.options.columnsFromHeader = flag
            } else {
                problem("'header' must be true or false", at: header)
            }
        }
        return parsed
    }

    /// A decimal field's precision, scale and rounding; each problem noted at its value. The plan compiler checks
    /// the ranges and the type.
    private static func decimalFormat(_ mapping: YAMLNode.Map, note: (YAMLNode?, [String]) -> Void) -> DecimalFormat? {
        func count(_ key: String) -> Int? {
            guard let node = mapping[key] else { return nil }
            if let value = node.scalar?.int { return value }
            note(node, ["'\(key)' must be a whole number"])
            return nil
        }
        var rounding: DecimalRounding?
        if let node = mapping["rounding"] {
            rounding = node.scalar.flatMap { DecimalRounding(rawValue: $0.string) }
            if rounding == nil {
                let names = DecimalRounding.allCases.map(\.rawValue)
                note(node, ["'rounding' must be one of \(names.joined(separator: ", "))" + Spelling.suggestion(for: node.scalar?.string ?? "", among: names)])
            }
        }
        guard let precision = count("precision") else {
            if mapping["precision"] == nil { note(nil, ["'scale' and 'rounding' need a 'precision' (1 to \(DecimalFormat.maximumPrecision))"]) }
            return nil
        }
        return DecimalFormat(precision: precision, scale: count("scale") ?? 0, rounding: rounding)
    }

    /// Reads one entry of `fields` into `parsed`, and returns its problems, each at the node it is about (nil: at
    /// the entry).
    /// `valueTable`: the entry is a table of values' `table:` (`{type: string}`), which names its one column and
    /// reads `$` unless it says otherwise, and may name its index column.
    static func field(_ entry: YAMLNode, position: Int, registry: MappingRegistry, into parsed: inout Parsed, valueTable: Bool = false) -> [(field: String?, node: YAMLNode?, message: String)] {
        guard let mapping = entry.mapping else {
            return [(nil, nil, "field #\(position + 1) must be a mapping with name and type")]
        }
        let name = mapping["name"]?.scalar?.string ?? (valueTable ? ChildTable.valueColumn : nil)
        // Each problem at the value (or key) it is about, else at the field.
        var entryProblems: [(node: YAMLNode?, message: String)] = []
        func note(_ node: YAMLNode?, _ messages: [String]) { entryProblems += messages.map { (node, $0) } }
        let known = valueTable ? fieldKeys.subtracting(["table"]).union(["index", "links"]) : fieldKeys
        for (key, _) in mapping where !known.contains(key.string ?? "") {
            note(key, ["unknown key '\(key.string ?? "?")' (known: \(known.sorted().joined(separator: ", ")))" + Spelling.suggestion(for: key.string ?? "", among: known.sorted())])
        }
        if name == nil { note(nil, ["'name' is missing"]) }
        // A list of paths is the path and its fallbacks, in order: the first that holds a value wins.
        var fallbackPaths: [String] = []
        let path = mapping["path"].flatMap { node -> String? in
            if let text = node.scalar?.string { return text }
            if let list = node.sequence, case let paths = list.compactMap({ $0.scalar?.string }), paths.count == list.count, let first = paths.first {
                fallbackPaths = Array(paths.dropFirst())
                return first
            }
            note(node, ["'path' must be a key path, or a list of key paths tried in order"])
            return nil
        } ?? (valueTable ? "$" : nil)
        var type: FieldType?
        if let typeText = mapping["type"]?.scalar?.string {
            type = FieldType(rawValue: typeText)
            if type == nil {
                note(mapping["type"], ["unknown type '\(typeText)' (known: \(FieldType.allCases.map(\.rawValue).joined(separator: ", ")))" + Spelling.suggestion(for: typeText, among: FieldType.allCases.map(\.rawValue))])
            }
        } else if mapping["table"] != nil {
            type = .json
        } else {
            note(mapping["type"], ["'type' is missing"])
        }
        var spec = FieldSpec(name: name ?? "", path: path, type: type ?? .string)
        if let tableNode = mapping["table"] {
            if let typeNode = mapping["type"] { note(typeNode, ["'type' and 'table' exclude each other: a child table's types are its fields'"]) }
            spec.childTable = childTable(tableNode, of: name ?? "", registry: registry, note: note)
        }
        spec.fallbackPaths = fallbackPaths
        func flag(_ key: String) -> Bool {
            guard let node = mapping[key] else { return false }
            if let value = node.bool { return value }
            note(node, ["'\(key)' must be true or false"])
            return false
        }
        spec.isOptional = flag("optional")
        spec.isUnique = flag("unique")
        spec.truncatesFractions = flag("truncate")
        if let unitNode = mapping["unit"] {
            if let unit = unitNode.scalar.flatMap({ EpochUnit(rawValue: $0.string) }) {
                spec.epochUnit = unit
            } else {
                note(unitNode, ["'unit' must be one of \(EpochUnit.allCases.map(\.rawValue).joined(separator: ", "))"])
            }
        }
        if let formatsNode = mapping["formats"] {
            var texts = formatsNode.scalar.map { [$0.string] }
            if let list = formatsNode.sequence {
                let scalars = list.compactMap { $0.scalar?.string }
                texts = scalars.count == list.count ? scalars : nil
            }
            if let texts {
                spec.dateFormats = texts.map(DateFormat.init(name:))
            } else {
                note(formatsNode, ["'formats' must be a list of epoch, iso8601, rfc2822, twitter and date patterns"])
            }
        }
        if mapping["precision"] != nil || mapping["scale"] != nil || mapping["rounding"] != nil {
            spec.decimalFormat = decimalFormat(mapping, note: note)
        }
        if let valuesNode = mapping["values"] {
            if let list = valuesNode.sequence {
                spec.enumValues = list.compactMap { $0.scalar?.string }.map { EnumValue($0) }
                if spec.enumValues.count < list.count { note(valuesNode, ["every entry of 'values' must be a single value, not a list or a map"]) }
            } else if let map = valuesNode.mapping {
                spec.enumValues = map.compactMap { key, value in
                    guard let json = key.scalar?.string, let scalar = value.scalar else { return nil }
                    return EnumValue(json: json, value: scalar.string, storedKind: Self.storedKind(of: scalar))
                }
                if spec.enumValues.count < map.count { note(valuesNode, ["every entry of 'values' must map a single value to a single value, not to a list or a map"]) }
            } else {
                note(valuesNode, ["'values' must be a list of values or a map from JSON values to stored values"])
            }
        }
        if let defaultNode = mapping["default"], type != nil {
            if let text = defaultNode.scalar?.string {
                do {
                    spec.defaultValue = try FieldValue.parse(text, for: spec)
                } catch {
                    note(defaultNode, [error.message])
                }
            } else {
                note(defaultNode, ["'default' must be a single value"])
            }
        }
        if let transformNode = mapping["transform"] {
            if let name = transformNode.scalar?.string, let transform = registry.transforms[name] {
                spec.transform = transform
            } else {
                let known = registry.transforms.keys.sorted()
                note(transformNode, ["'transform' must name a registered transform (registered: \(known.isEmpty ? "none" : known.joined(separator: ", ")))"])
            }
        }
        if let nullsNode = mapping["nulls"] {
            var messages: [String] = []
            spec.nullSpellings = nullSpellings(nullsNode, problems: &messages)
            note(nullsNode, messages)
        }
        if let cleanNode = mapping["clean"] {
            var messages: [String] = []
            spec.cleanups = cleanups(cleanNode, problems: &messages)
            note(cleanNode, messages)
        }
        if let validateNode = mapping["validate"] {
            var messages: [String] = []
            spec.validators = validators(validateNode, registry: registry, problems: &messages)
            note(validateNode, messages)
        }
        let label = name == nil ? "field #\(position + 1): " : ""
        // A field with a name and a type is compiled even when an option of it was wrong (that option left
        // out), so that compiling finds its other problems in the same round.
        if let name, type != nil {
            parsed.fields.append(spec)
            parsed.fieldPlaces.append((name, entry.mark))
        }
        return entryProblems.map { (name, $0.node, label + $0.message) }
    }

    /// How many values the fields may stand for with their aliases expanded: a million, or eight per byte of the
    /// file, whichever is more (written out, a field takes a few bytes per value).
    static func aliasExpansionLimit(forBytes count: Int) -> Int { max(1 << 20, 8 * count) }

    static let validatorKeys = ["required", "equalTo", "oneOf", "length", "minLength", "maxLength", "lengthRange", "pattern", "min", "max", "range", "custom"]

    /// `validate:` is a map from validator names to their arguments: `{lengthRange: [5, 12], pattern: "^[A-Z]"}`.
    private static func validators(_ node: YAMLNode, registry: MappingRegistry, problems: inout [String]) -> [Validator] {
        guard let entries = node.mapping else {
            problems.append("'validate' must be a map of validators (\(validatorKeys.joined(separator: ", ")))")
            return []
        }
        // Values stay text here; the field's type reads them when the plan compiles, by its rules for input strings.
        func value(_ node: YAMLNode) -> FieldValue? { node.scalar.map { .string($0.string) } }
        var result: [Validator] = []
        for (keyNode, argument) in entries {
            let key = keyNode.string ?? ""
            func bad(_ expectation: String) { problems.append("validator '\(key)' takes \(expectation)") }
            switch key {
            case "required":
                if argument.bool == true { result.append(.required) } else if argument.bool == nil { bad("true or false") }
            case "equalTo":
                if let value = value(argument) { result.append(.equalTo(value)) } else { bad("a value") }
            case "oneOf":
                if let list = argument.sequence, case let values = list.compactMap(value), values.count == list.count { result.append(.oneOf(values)) } else { bad("a list of values") }
            case "length", "minLength", "maxLength":
                guard let count = argument.int else { bad("a whole number"); continue }
                result.append(key == "length" ? .length(count) : key == "minLength" ? .minLength(count) : .maxLength(count))
            case "lengthRange":
                guard let bounds = argument.sequence?.compactMap(\.int), bounds.count == 2 else { bad("[minimum, maximum]"); continue }
                guard bounds[0] <= bounds[1] else { problems.append("validator 'lengthRange' has its bounds reversed: [\(bounds[0]), \(bounds[1])]"); continue }
                result.append(.lengthRange(bounds[0]...bounds[1]))
            case "pattern":
                if let pattern = argument.scalar?.string { result.append(.pattern(pattern)) } else { bad("a regular expression") }
            case "min", "max":
                guard let bound = value(argument) else { bad("a value"); continue }
                result.append(key == "min" ? .minimum(bound) : .maximum(bound))
            case "range":
                guard let bounds = argument.sequence?.compactMap(value), bounds.count == 2 else { bad("[minimum, maximum]"); continue }
                result.append(.range(bounds[0], bounds[1]))
            case "custom":
                let names = argument.sequence?.compactMap { $0.scalar?.string } ?? argument.scalar.map { [$0.string] } ?? []
                for name in names {
                    if let check = registry.validators[name] { result.append(.custom(name: name, check: check)) } else {
                        problems.append("no validator is registered as '\(name)'")
                    }
                }
            default:
                problems.append("unknown validator '\(key)' (known: \(validatorKeys.joined(separator: ", ")))" + Spelling.suggestion(for: key, among: validatorKeys))
            }
        }
        return result
    }

    /// `nulls: ["", N/A, false, 0]`: unquoted `true` and `false` are Booleans, unquoted JSON numbers numbers, and
    /// everything else text (quote `"false"` or `"0"` for the strings).
    private static func nullSpellings(_ node: YAMLNode, problems: inout [String]) -> [JSONValue] {
        guard let entries = node.sequence, entries.allSatisfy({ $0.scalar != nil }) else {
            problems.append("'nulls' must be a list of values (strings, numbers, true or false)")
            return []
        }
        return entries.compactMap(\.scalar).map { scalar in
            guard scalar.isPlain else { return .string(scalar.string) }
            if scalar.isNull { return .null }
            var text = scalar.string
            switch text {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default:
                let isNumber = text.withUTF8 { buffer in buffer.baseAddress.map { NumberConversion.isNumberText($0, buffer.count) } ?? false }
                return isNumber && !scalar.string.hasPrefix("+") ? .number(scalar.string) : .string(scalar.string)
            }
        }
    }

    static let cleanupNames = ["trim", "lowercase", "uppercase", "stripPrefix", "stripSuffix", "emptyAsNull", "number", "capture", "split"]

    /// `clean: [trim, {stripPrefix: "$"}, {number: {thousands: ".", decimal: ","}}, {capture: '(\d+)'}, {split: ","}]`.
    private static func cleanups(_ node: YAMLNode, problems: inout [String]) -> [ValueCleanup] {
        guard let entries = node.sequence else {
            problems.append("'clean' must be a list of cleanups (\(cleanupNames.joined(separator: ", ")))")
            return []
        }
        var result: [ValueCleanup] = []
        for entry in entries {
            if let name = entry.scalar?.string {
                switch name {
                case "trim": result.append(.trim)
                case "lowercase": result.append(.lowercase)
                case "uppercase": result.append(.uppercase)
                case "emptyAsNull": result.append(.emptyAsNull)
                case "number": result.append(.number(NumberText()))
                case "stripPrefix", "stripSuffix", "capture", "split": problems.append("cleanup '\(name)' takes an argument: {\(name): …}")
                default: problems.append("unknown cleanup '\(name)' (known: \(cleanupNames.joined(separator: ", ")))" + Spelling.suggestion(for: name, among: cleanupNames))
                }
                continue
            }
            guard let map = entry.mapping, map.count == 1, let (keyNode, argument) = map.first, let name = keyNode.string else {
                problems.append("every cleanup is a name or a map of one name to its argument, as {stripPrefix: \"$\"}")
                continue
            }
            switch name {
            case "stripPrefix", "stripSuffix", "capture", "split":
                guard let text = argument.scalar?.string else { problems.append("cleanup '\(name)' takes a text"); continue }
                switch name {
                case "stripPrefix": result.append(.stripPrefix(text))
                case "stripSuffix": result.append(.stripSuffix(text))
                case "capture": result.append(.capture(text))
                default: result.append(.split(text))
                }
            case "number":
                if let format = numberText(argument, problems: &problems) { result.append(.number(format)) }
            case "trim", "lowercase", "uppercase", "emptyAsNull":
                problems.append("cleanup '\(name)' takes no argument")
            default:
                problems.append("unknown cleanup '\(name)' (known: \(cleanupNames.joined(separator: ", ")))" + Spelling.suggestion(for: name, among: cleanupNames))
            }
        }
        return result
    }

    /// `{currency: [$, €], thousands: ",", decimal: "."}`, each optional; `thousands: null` for none.
    private static func numberText(_ node: YAMLNode, problems: inout [String]) -> NumberText? {
        guard let map = node.mapping else {
            problems.append("cleanup 'number' takes a map of currency, thousands and decimal")
            return nil
        }
        var format = NumberText()
        for (keyNode, value) in map {
            switch keyNode.string ?? "" {
            case "currency":
                if let list = value.sequence, case let signs = list.compactMap({ $0.scalar?.string }), signs.count == list.count {
                    format.currencySigns = signs
                } else if let sign = value.scalar?.string {
                    format.currencySigns = [sign]
                } else {
                    problems.append("'currency' of cleanup 'number' must be a list of signs")
                }
            case "thousands":
                if let scalar = value.scalar {
                    format.thousandsSeparator = scalar.isNull ? nil : scalar.string
                } else {
                    problems.append("'thousands' of cleanup 'number' must be a separator, or null for none")
                }
            case "decimal":
                if let text = value.scalar?.string { format.decimalSeparator = text } else { problems.append("'decimal' of cleanup 'number' must be a separator") }
            case let key:
                problems.append("unknown option '\(key)' of cleanup 'number' (known: currency, thousands, decimal)")
            }
        }
        return format
    }

    /// An unquoted YAML scalar that reads as an integer or a decimal number is a number; anything else is text.
    private static func storedKind(of scalar: YAMLNode.Scalar) -> EnumValue.StoredKind {
        guard scalar.isPlain else { return .text }
        let text = scalar.string
        if Int64(text) != nil { return .integer }
        if let number = Double(text), number.isFinite, text.contains(where: { $0.isNumber }) { return .number }
        return .text
    }
}

extension MappingProblem.Location {
    init(source: String, mark: YAMLNode.Mark) {
        self.init(source: source, line: Int(mark.line), column: Int(mark.column))
    }
}

extension MappingSchema {
    /// Compiles a mapping file's text (YAML or JSON).
    /// - Parameters:
    ///   - text: The file's contents.
    ///   - source: How to name the text in problems, e.g. its path.
    ///   - registry: Named validators and transforms the file may refer to.
    ///   - recordsPath: A records path that replaces the file's `records:` (what `--records-at` gives).
    /// - Throws: ``SluiceError/invalidMapping(_:)`` listing every problem with its line.
    public init(mappingText text: String, source: String = "<mapping>", registry: MappingRegistry = MappingRegistry(), recordsPath: String? = nil) throws(SluiceError) {
        var text = text
        let parsed = try text.withUTF8 { bytes in
            Result { () throws(SluiceError) in try MappingFile.parse(bytes, source: source, registry: registry) }
        }.get()
        self = try Self.compile(parsed, recordsPath: recordsPath)
    }

    private static func compile(_ parsed: consuming MappingFile.Parsed, recordsPath: String?) throws(SluiceError) -> MappingSchema {
        var parsed = parsed
        if let recordsPath { parsed.options.recordsPath = recordsPath }
        var problems = parsed.problems
        var schema: MappingSchema?
        // The fields move into the plan (not copied); their names stay to place compiling's problems. A list
        // grown by doubling can hold up to twice its fields: the plan keeps it, so it is trimmed first.
        var fields = parsed.fields
        parsed.fields = []
        if fields.capacity > fields.count + fields.count / 8 { fields = fields.withUnsafeBufferPointer { Array($0) } }
        do {
            schema = try MappingSchema(fields: consume fields, options: parsed.options)
        } catch {
            guard case .invalidMapping(let found) = error else { throw error }
            // With fields left out for problems of their own, an empty list is no further problem.
            let compiled = problems.isEmpty ? found : found.filter { $0.message != PlanCompiler.noFieldsMessage }
            problems += parsed.located(compiled)
        }
        guard let schema, problems.isEmpty else {
            // In the file's order; problems without a place (none so far) last.
            throw .invalidMapping(problems.enumerated().sorted { left, right in
                switch (left.element.location, right.element.location) {
                case let (leftPlace?, rightPlace?): leftPlace == rightPlace ? left.offset < right.offset : leftPlace < rightPlace
                case (nil, nil): left.offset < right.offset
                case (nil, _?): false
                case (_?, nil): true
                }
            }.map(\.element))
        }
        return schema
    }

    /// Loads and compiles the mapping file at `path` (YAML or JSON), with named validators and transforms from
    /// `registry`, and `recordsPath` in place of the file's `records:` when given.
    public init(contentsOfFile path: String, registry: MappingRegistry = MappingRegistry(), recordsPath: String? = nil) throws(SluiceError) {
        // The system's own words for why a file cannot be read, rather than Foundation's error domains and codes.
        func failure(_ reason: String) -> SluiceError {
            .io(source: path, byteOffset: 0, message: "cannot read the mapping file: " + reason)
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure(String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT != S_IFDIR else { throw failure("it is a directory") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(status.st_size))
        var block = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw failure(String(cString: strerror(errno))) }
            if count == 0 { break }
            bytes += block[..<count]
        }
        let parsed = try bytes.withUnsafeBufferPointer { text throws(SluiceError) in
            if let start = text.baseAddress, UTF8Validation.firstInvalidOffset(start, text.count) != nil {
                throw .invalidMapping([MappingProblem(field: nil, message: "not UTF-8 text (a mapping file is YAML or JSON in UTF-8)", location: .init(source: path, line: 1, column: 1))])
            }
            return try MappingFile.parse(text, source: path, registry: registry)
        }
        // The text is not needed to compile the fields: a file of 100,000 fields is 6 MB.
        bytes = []
        self = try Self.compile(parsed, recordsPath: recordsPath)
    }
}
#endif
