/// Validates a list of fields as a whole and compiles it into a ``CompiledPlan``.
///
/// Validation reports every problem at once, each naming its field, so that a mapping file is fixed in one
/// round trip rather than one error at a time.
enum PlanCompiler {
    static func compile(_ declared: consuming [FieldSpec], options: MappingOptions = MappingOptions()) throws(SluiceError) -> CompiledPlan {
        var problems: [MappingProblem] = []
        // From here on every field has its path, derived by the naming convention where none was given. Resolved
        // in place: a mapping of many thousand fields would otherwise hold two lists of them.
        var fields = declared
        for column in fields.indices {
            fields[column].path = fields[column].resolvedPath(naming: options.naming)
        }
        if fields.isEmpty { problems.append(MappingProblem(setting: "fields", message: noFieldsMessage)) }
        prepareChildTables(&fields, options: options, problems: &problems)

        var conversions = ColumnConversionTable()
        var conversionProblems: [MappingProblem] = []
        for field in fields { conversions.append(compileConversion(field, options: options, problems: &conversionProblems)) }
        // `required` makes an optional field required (missing and null are then rejected as for any required
        // field); the other validators are prepared for the state machine.
        var validators: [CompiledValidator] = []
        for column in fields.indices {
            if fields[column].validators.contains(.required) { fields[column].isOptional = false }
            for validator in fields[column].validators where validator != .required {
                if let compiled = CompiledValidator.compile(validator, column: column, field: fields[column], problems: &conversionProblems) {
                    validators.append(compiled)
                }
            }
        }

        // Each field's path is parsed, checked and put into the trie in turn, so that the parsed paths of a wide
        // mapping are never all held at once. Problems keep their order: names and paths, conversions and
        // validators, lists, fallbacks.
        var seenNames: Set<String> = []
        var listProblems: [MappingProblem] = []
        var fallbackProblems: [MappingProblem] = []
        var trie = TrieBuilder(expectedFields: fields.count)
        for column in fields.indices {
            let field = fields[column]
            if field.name.isEmpty { problems.append(MappingProblem(field: field.name, message: "the name is empty")) }
            if !seenNames.insert(field.name).inserted {
                problems.append(MappingProblem(field: field.name, message: "the name is used by more than one field"))
            }
            var path: FieldPath?
            if field.resolvedPath(naming: nil) == RecordKeyField.path {
                // Not a key of the record: the key the record has in the object at the records path.
                if options.recordsPath == nil {
                    problems.append(MappingProblem(field: field.name, message: "reads $key, which needs a records path (the key of each record in an object of records)"))
                }
                path = FieldPath(segments: [RecordKeyField.segment])
            } else {
                do {
                    path = try FieldPath(parsing: field.resolvedPath(naming: nil))
                } catch {
                    problems.append(MappingProblem(field: field.name, message: error.message))
                }
            }
            // The fallbacks are checked even when the path cannot be read, so that all of a field's problems show.
            let fallbacks = fallbackPaths(of: field, problems: &fallbackProblems)
            guard let path else { continue }
            if let elements = field.elementPlan as? CompiledPlan, elements.keyNode >= 0 {
                problems.append(MappingProblem(field: field.name, message: "its elements' mapping reads $key, which an array's elements do not have"))
            }
            if field.isList { checkList(field, path: path, problems: &listProblems) }
            trie.insert(path.segments[...], column: column)
            for (offset, fallback) in fallbacks.enumerated() {
                trie.insert(fallback.segments[...], column: column, rank: Int32(offset + 1))
            }
        }
        seenNames.removeAll()
        problems += conversionProblems
        problems += listProblems
        for field in fields where field.isUnique && !field.isList {
            problems.append(MappingProblem(field: field.name, message: "unique applies to lists (paths through '*', or a split)"))
        }
        problems += fallbackProblems

        // Ignored paths are known to the trie (so never unmapped) but feed no column. `user` and `user.**` cover
        // every key beneath `user` that no field reads; `user.*` the keys directly in it. A `*` before the end
        // reads every element of an array, as in any path.
        for (position, ignored) in options.ignoredPaths.enumerated() {
            do {
                var path = try FieldPath(parsing: ignored)
                var scope = TrieBuilder.IgnoredScope.everythingBeneath
                // `\*\*` and `\**` are keys named `**`, not the wildcard.
                if path.segments.last?.key == Array("**".utf8), ignored == "**" || ignored.hasSuffix(".**") {
                    path.segments.removeLast()
                } else if path.segments.last?.isEveryElement == true {
                    path.segments.removeLast()
                    scope = .keysDirectlyIn
                }
                trie.insert(path.segments[...], column: nil, ignoring: scope)
            } catch {
                problems.append(MappingProblem(setting: "ignore", index: position, message: "ignored path '\(ignored)': \(error.message)"))
            }
        }
        trie.spreadEveryElement()
        trie.spreadIgnoredScope()
        if trie.isExhausted {
            // Nothing below is worth checking in a trie that was left unfinished.
            throw .invalidMapping(problems + [MappingProblem(setting: "fields", message: "the key paths make too large a trie (over \(TrieBuilder.maximumNodes) nodes, \(TrieBuilder.maximumSteps) steps to build, or \(TrieBuilder.maximumPathBytes >> 20) MiB of key paths): a numeric segment is read both as an object key and as an array index, which doubles what lies below it (use fewer numeric segments in one path, or '*')")])
        }
        checkScalarTargetsAreLeaves(trie, fields: fields, problems: &problems)

        var recordsPath: FieldPath?
        if let path = options.recordsPath {
            do {
                recordsPath = try FieldPath(parsing: path)
                if recordsPath?.readsEveryElement == true {
                    problems.append(MappingProblem(setting: "records", message: "records path '\(path)': '*' reads lists; name the array of records itself"))
                }
                if recordsPath?.segments.isEmpty == true {
                    problems.append(MappingProblem(setting: "records", message: "records path '\(path)': name the key path of the records, not the whole document"))
                }
            } catch {
                problems.append(MappingProblem(setting: "records", message: "records path '\(path)': \(error.message)"))
            }
        }

        if case .snakeCase(let separator)? = options.naming, separator.contains(".") {
            // The name would become one key holding dots, never the nested keys the user most likely meant.
            problems.append(MappingProblem(setting: "naming", message: "naming separator '\(separator)': '.' separates the keys of a key path, so a field named createdTimeAt would read the one key 'created.time.at'; give nested keys a path (path: created.time.at), and write a key that holds dots as created\\.time\\.at"))
        }

        for name in options.key where !fields.contains(where: { $0.name == name && $0.childTable == nil }) {
            problems.append(MappingProblem(setting: "key", message: "key \(name): no column of that name (a child table is no column)"))
        }
        if Set(options.key).count < options.key.count { problems.append(MappingProblem(setting: "key", message: "the key names a column twice")) }

        if options.skippedRecords < 0 {
            problems.append(MappingProblem(setting: "skip", message: "skipped records: \(options.skippedRecords) is negative"))
        }

        guard problems.isEmpty else { throw .invalidMapping(problems) }
        let plan = trie.plan(fields: fields, conversions: conversions, validators: validators, rejectsUnmappedKeys: options.unmappedKeys == .reject)
        plan.recordsPath = recordsPath
        plan.skippedRecords = options.skippedRecords
        plan.columnsFromHeader = options.columnsFromHeader
        if !plan.childTableColumns.isEmpty { try checkChildTablesMapElements(plan) }
        return plan
    }

    /// A list field's rules beyond those of any field.
    private static func checkList(_ field: FieldSpec, path: FieldPath, problems: inout [MappingProblem]) {
        func problem(_ message: String) { problems.append(MappingProblem(field: field.name, message: message)) }
        if path.segments.filter(\.isEveryElement).count > 1 { problem("a list reads one array: its path takes one '*'") }
        if field.defaultValue != nil { problem("a list takes no default") }
        if field.transform != nil { problem("a list takes no transform") }
        if field.validators.contains(where: { $0 != .required }) { problem("a list takes no validators but required") }
        if field.type.keepsJSONText, field.cleanups.contains(where: \.isSplit) {
            problem("split gives pieces of text: a json field cannot take them")
        }
    }

    /// A field's fallback paths, parsed; a problem for each that cannot be read (see ``FieldSpec/fallbackPaths``).
    private static func fallbackPaths(of field: FieldSpec, problems: inout [MappingProblem]) -> [FieldPath] {
        guard !field.fallbackPaths.isEmpty else { return [] }
        func problem(_ message: String) { problems.append(MappingProblem(field: field.name, message: message)) }
        if field.isList || field.takesAnyValue {
            problem("only a field that reads one scalar takes fallback paths: not a list, a json field or a transformed one")
            return []
        }
        var parsed: [FieldPath] = []
        var seen: Set<String> = [field.path ?? ""]
        for fallback in field.fallbackPaths {
            if !seen.insert(fallback).inserted { problem("the key path '\(fallback)' is given more than once"); continue }
            do throws(FieldPathSyntaxError) {
                let path = try FieldPath(parsing: fallback)
                if path.readsEveryElement || path.segments.first?.key == RecordKeyField.segment.key {
                    problem("fallback path '\(fallback)': a fallback reads one value at a key path ('*' and $key are not taken)")
                    continue
                }
                parsed.append(path)
            } catch {
                problem(error.message)
            }
        }
        return parsed
    }

    /// Checks a field's conversion options against its type and compiles its date formats and value map.
    private static func compileConversion(_ field: FieldSpec, options: MappingOptions, problems: inout [MappingProblem]) -> ColumnConversion {
        var conversion = ColumnConversion(truncatesFractions: field.truncatesFractions, requiresFoundationURL: field.requiresFoundationURL, takesOnlyItsKind: field.takesOnlyItsKind, keepsNullText: field.keepsNullText, transform: field.transform)
        func problem(_ message: String) { problems.append(MappingProblem(field: field.name, message: message)) }
        if field.isCleaned(options: options) {
            var messages: [String] = []
            let spellings = NullSpellings(field.nullSpellings ?? options.nullSpellings, problems: &messages)
            conversion.cleaning = CompiledCleanups(nullSpellings: spellings.isEmpty ? nil : spellings, cleanups: field.cleanups, problems: &messages)
            messages.forEach(problem)
        }
        if field.truncatesFractions && !field.type.holdsWholeNumbers {
            problem("truncation applies to int64 and uint64 fields, not \(field.type)")
        }
        if field.type.holdsPointsInTime {
            do {
                conversion.dateParser = try DateParser(unit: field.epochUnit, formats: field.dateFormats)
            } catch {
                // A pattern of letters alone near a format's name is most likely that name misspelt.
                let misspelt = field.dateFormats.lazy.compactMap { format -> (String, String)? in
                    guard case .pattern(let text) = format, text.unicodeScalars.allSatisfy(\.properties.isAlphabetic),
                          let name = Spelling.nearest(to: text, among: DateFormat.names) else { return nil }
                    return (text, name)
                }.first
                if let (text, name) = misspelt {
                    problem("unknown date format '\(text)'; did you mean '\(name)'? (named formats: \(DateFormat.names.joined(separator: ", ")); or a pattern such as yyyy-MM-dd)")
                } else {
                    problem(error.message)
                }
            }
            if field.epochUnit != .seconds && !field.dateFormats.isEmpty && !field.dateFormats.contains(.epoch) {
                problem("the unit \(field.epochUnit.rawValue) is for epoch numbers, which the formats leave out (add epoch)")
            }
        } else if field.epochUnit != .seconds || field.dateFormats != DateFormat.defaults {
            problem("a unit and date formats apply to date fields, not \(field.type)")
        }
        if field.type.holdsExactDecimals {
            if let format = field.decimalFormat {
                if let message = format.problem { problem(message) } else { conversion.decimalFormat = format }
            } else {
                problem("a decimal field needs a precision (1 to \(DecimalFormat.maximumPrecision)), and a scale unless it holds whole numbers: precision: 10, scale: 2")
            }
        } else if field.decimalFormat != nil {
            problem("precision, scale and rounding apply to decimal fields, not \(field.type)")
        }
        if field.type.holdsListedValues {
            if field.enumValues.isEmpty { problem("an enum field needs values") }
            var seen: Set<String> = []
            for entry in field.enumValues where !seen.insert(entry.json).inserted {
                problem("the enum value \"\(entry.json)\" is listed more than once")
            }
            conversion.enumTable = EnumTable(field.enumValues)
        } else if !field.enumValues.isEmpty {
            problem("values apply to enum fields, not \(field.type)")
        }
        if let declared = field.defaultValue {
            let defaultValue = declared.coerced(for: field)
            conversion.defaultValue = defaultValue
            if !defaultValue.fitsTypes.contains(field.type) {
                problem("the default \(defaultValue) is not a value of type \(field.type)")
            } else if field.type.holdsURLReferences, case .string(let text) = defaultValue, (try? FieldValue.parse(text, for: field)) == nil {
                problem("the default \(defaultValue) is not a URL reference")
            } else if field.type.holdsExactDecimals, field.decimalFormat?.problem == nil, case .string(let text) = defaultValue {
                do {
                    _ = try FieldValue.parse(text, for: field)
                } catch {
                    problem(error.message)
                }
            }
        }
        return conversion
    }
}

extension PlanCompiler {
    static let noFieldsMessage = "a mapping needs at least one field"

    /// A string, number or Boolean field can never be read at a node that other fields look inside: the value
    /// there has to be an object or array for them, and a scalar for it. Only `json` and transformed fields may
    /// share such a node.
    private static func checkScalarTargetsAreLeaves(_ trie: TrieBuilder, fields: [FieldSpec], problems: inout [MappingProblem]) {
        var reported: Set<Int32> = []
        // Depth first, key children before index children before `*`, so that problems come in the order of
        // the paths, not of the nodes' making.
        var pending: [Int32] = [0]
        while let id = pending.popLast() {
            pending += trie.children(of: id).reversed()
            guard trie.nodes[Int(id)].hasChildren else { continue }
            // A numeric segment puts a field on two nodes (key and index branch): report it once.
            for column in trie.targetColumns(of: id) where !fields[Int(column)].takesAnyValue && reported.insert(column).inserted {
                let beneath = Set(trie.descendantColumns(of: id)).sorted().map { "'\(fields[Int($0)].name)'" }
                let field = fields[Int(column)]
                problems.append(MappingProblem(
                    field: field.name,
                    message: "reads \(trie.displayPath(of: id)) as \(field.type), but \(beneath.joined(separator: ", ")) "
                        + "read\(beneath.count == 1 ? "s" : "") inside it; only a json or transformed field can share a node with fields beneath it"
                ))
            }
        }
    }
}

/// `$key`: a field fed with the key of each record in an object of records. Its path is parsed to a key no JSON
/// text can hold (a 0xFF byte is never valid UTF-8), and the compiler puts it on a node of its own beside the
/// record's root, which no input key reaches.
enum RecordKeyField {
    static let path = "$key"
    static let segment = FieldPath.Segment(key: [0xFF] + Array("key".utf8), index: nil)
}
