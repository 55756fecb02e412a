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

        var seenNames: Set<String> = []
        var parsedPaths: [FieldPath?] = []
        for field in fields {
            if field.name.isEmpty { problems.append(MappingProblem(field: field.name, message: "the name is empty")) }
            if !seenNames.insert(field.name).inserted {
                problems.append(MappingProblem(field: field.name, message: "the name is used by more than one field"))
            }
            if field.resolvedPath(naming: nil) == RecordKeyField.path {
                // Not a key of the record: the key the record has in the object at the records path.
                if options.recordsPath == nil {
                    problems.append(MappingProblem(field: field.name, message: "reads $key, which needs a records path (the key of each record in an object of records)"))
                }
                parsedPaths.append(FieldPath(segments: [RecordKeyField.segment]))
                continue
            }
            do {
                parsedPaths.append(try FieldPath(parsing: field.resolvedPath(naming: nil)))
            } catch {
                problems.append(MappingProblem(field: field.name, message: error.message))
                parsedPaths.append(nil)
            }
        }

        let conversions = fields.map { compileConversion($0, options: options, problems: &problems) }
        // `required` makes an optional field required (missing and null are then rejected as for any required
        // field); the other validators are prepared for the state machine.
        var validators: [CompiledValidator] = []
        for column in fields.indices {
            if fields[column].validators.contains(.required) { fields[column].isOptional = false }
            for validator in fields[column].validators where validator != .required {
                if let compiled = CompiledValidator.compile(validator, column: column, field: fields[column], problems: &problems) {
                    validators.append(compiled)
                }
            }
        }

        for (column, path) in parsedPaths.enumerated() {
            guard let path, fields[column].isList else { continue }
            func problem(_ message: String) { problems.append(MappingProblem(field: fields[column].name, message: message)) }
            if path.segments.filter(\.isEveryElement).count > 1 { problem("a list reads one array: its path takes one '*'") }
            if fields[column].defaultValue != nil { problem("a list takes no default") }
            if fields[column].transform != nil { problem("a list takes no transform") }
            if fields[column].validators.contains(where: { $0 != .required }) { problem("a list takes no validators but required") }
            if fields[column].type == .json, fields[column].cleanups.contains(where: \.isSplit) {
                problem("split gives pieces of text: a json field cannot take them")
            }
        }
        for column in fields.indices where fields[column].isUnique && !fields[column].isList {
            problems.append(MappingProblem(field: fields[column].name, message: "unique applies to lists (paths through '*', or a split)"))
        }

        let fallbacks = fallbackPaths(of: fields, problems: &problems)
        let budget = TrieNodeBudget()
        let root = TrieBuilderNode(displayPath: "$", depth: 1, budget: budget)
        for (column, path) in parsedPaths.enumerated() {
            guard let path else { continue }
            root.insert(path.segments[...], column: column)
            for (offset, fallback) in fallbacks[column].enumerated() {
                root.insert(fallback.segments[...], column: column, rank: Int32(offset + 1))
            }
        }
        // Ignored paths are known to the trie (so never unmapped) but feed no column. `user` and `user.**` cover
        // every key beneath `user` that no field reads; `user.*` the keys directly in it. A `*` before the end
        // reads every element of an array, as in any path.
        for (position, ignored) in options.ignoredPaths.enumerated() {
            do {
                var path = try FieldPath(parsing: ignored)
                var scope = TrieBuilderNode.IgnoredScope.everythingBeneath
                // `\*\*` and `\**` are keys named `**`, not the wildcard.
                if path.segments.last?.key == Array("**".utf8), ignored == "**" || ignored.hasSuffix(".**") {
                    path.segments.removeLast()
                } else if path.segments.last?.isEveryElement == true {
                    path.segments.removeLast()
                    scope = .keysDirectlyIn
                }
                root.insert(path.segments[...], column: nil, ignoring: scope)
            } catch {
                problems.append(MappingProblem(setting: "ignore", index: position, message: "ignored path '\(ignored)': \(error.message)"))
            }
        }
        root.spreadEveryElement()
        root.spreadIgnoredScope()
        if budget.isExhausted {
            // Nothing below is worth checking in a trie that was left unfinished.
            throw .invalidMapping(problems + [MappingProblem(setting: "fields", message: "the key paths make too large a trie (over \(Self.maximumTrieSteps) steps to build, or \(Self.maximumTriePathBytes >> 20) MiB of key paths): a numeric segment is read both as an object key and as an array index, which doubles what lies below it (use fewer numeric segments in one path, or '*')")])
        }
        var reported: Set<Int> = []
        root.checkScalarTargetsAreLeaves(fields: fields, reported: &reported, problems: &problems)

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

        if options.skippedRecords < 0 {
            problems.append(MappingProblem(setting: "skip", message: "skipped records: \(options.skippedRecords) is negative"))
        }

        guard problems.isEmpty else { throw .invalidMapping(problems) }
        let plan = root.flatten(fields: fields, conversions: conversions, validators: validators, rejectsUnmappedKeys: options.unmappedKeys == .reject)
        plan.recordsPath = recordsPath
        plan.skippedRecords = options.skippedRecords
        plan.columnsFromHeader = options.columnsFromHeader
        return plan
    }

    /// Each field's fallback paths, parsed; a problem for each that cannot be read (see ``FieldSpec/fallbackPaths``).
    private static func fallbackPaths(of fields: [FieldSpec], problems: inout [MappingProblem]) -> [[FieldPath]] {
        fields.map { field in
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
    }

    /// Checks a field's conversion options against its type and compiles its date formats and value map.
    private static func compileConversion(_ field: FieldSpec, options: MappingOptions, problems: inout [MappingProblem]) -> ColumnConversion {
        var conversion = ColumnConversion(truncatesFractions: field.truncatesFractions, requiresFoundationURL: field.requiresFoundationURL, transform: field.transform)
        func problem(_ message: String) { problems.append(MappingProblem(field: field.name, message: message)) }
        if field.isCleaned(options: options) {
            var messages: [String] = []
            let spellings = NullSpellings(field.nullSpellings ?? options.nullSpellings, problems: &messages)
            conversion.cleaning = CompiledCleanups(nullSpellings: spellings.isEmpty ? nil : spellings, cleanups: field.cleanups, problems: &messages)
            messages.forEach(problem)
        }
        if field.truncatesFractions && field.type != .int64 && field.type != .uint64 {
            problem("truncation applies to int64 and uint64 fields, not \(field.type)")
        }
        if field.type == .date {
            do {
                conversion.dateParser = try DateParser(unit: field.epochUnit, formats: field.dateFormats)
            } catch {
                problem(error.message)
            }
            if field.epochUnit != .seconds && !field.dateFormats.isEmpty && !field.dateFormats.contains(.epoch) {
                problem("the unit \(field.epochUnit.rawValue) is for epoch numbers, which the formats leave out (add epoch)")
            }
        } else if field.epochUnit != .seconds || field.dateFormats != DateFormat.defaults {
            problem("a unit and date formats apply to date fields, not \(field.type)")
        }
        if field.type == .enumeration {
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
            } else if field.type == .url, case .string(let text) = defaultValue, (try? FieldValue.parse(text, for: field)) == nil {
                problem("the default \(defaultValue) is not a URL reference")
            }
        }
        return conversion
    }
}

extension PlanCompiler {
    static let noFieldsMessage = "a mapping needs at least one field"

    /// Far more than any real mapping takes (a few steps per field), and a bound on what a hostile one can cost:
    /// steps (nodes made and visited while building), and the bytes of the nodes' key paths (kept for messages),
    /// which grow with depth.
    static let maximumTrieSteps = 1 << 20
    static let maximumTriePathBytes = 64 << 20
}

/// How much work building the trie may take: each numeric segment of a key path goes down two branches, so a
/// path of many of them would otherwise make exponentially many nodes, and each further field on such a path
/// would visit them all again.
private final class TrieNodeBudget {
    private var steps = 0
    private var pathBytes = 0

    var isExhausted: Bool { steps > PlanCompiler.maximumTrieSteps || pathBytes > PlanCompiler.maximumTriePathBytes }

    func spend(pathBytes bytes: Int = 0) {
        steps += 1
        pathBytes += bytes
    }
}

/// The trie while it is being built: plain objects, flattened into tables once complete.
private final class TrieBuilderNode {
    let displayPath: String
    let depth: Int
    private let budget: TrieNodeBudget
    var keyChildren: [(key: [UInt8], node: TrieBuilderNode)] = []
    var indexChildren: [(index: Int, node: TrieBuilderNode)] = []
    // Where each child sits in the lists above, so that a mapping of many thousand fields compiles in linear time.
    private var keyChildPositions: [[UInt8]: Int] = [:]
    private var indexChildPositions: [Int: Int] = [:]
    /// `*`: every element of the array here.
    var everyElementChild: TrieBuilderNode?
    /// At the root, `$key`: fed with each record's member key, not a key inside the record, so a record may be a
    /// scalar (`$` beside `$key` in a map of id to name).
    var recordKeyChild: TrieBuilderNode?
    var targets: [Int] = []
    /// Per target: which of its field's paths ends here (0 for the path itself, 1 for its first fallback, …).
    var targetRanks: [Int32] = []

    init(displayPath: String, depth: Int, budget: TrieNodeBudget) {
        self.displayPath = displayPath
        self.depth = depth
        self.budget = budget
        budget.spend(pathBytes: displayPath.utf8.count)
    }

    /// What an ignored path covers at its node: keys no field reads directly in it (`user.*`), or anywhere
    /// beneath it (`user`, `user.**`).
    enum IgnoredScope { case none, keysDirectlyIn, everythingBeneath }
    var ignoredScope = IgnoredScope.none

    /// Adds `column` at the end of `segments`, or an ignored path's scope. A numeric segment goes down both
    /// branches: the input decides at run time whether the value there is an array or an object.
    func insert(_ segments: ArraySlice<FieldPath.Segment>, column: Int?, rank: Int32 = 0, ignoring scope: IgnoredScope = .none) {
        budget.spend()
        guard !budget.isExhausted else { return }
        guard let segment = segments.first else {
            if let column {
                targets.append(column)
                targetRanks.append(rank)
            }
            widenIgnoredScope(to: scope)
            return
        }
        let rest = segments.dropFirst()
        if segment.isEveryElement {
            let child = everyElementChild ?? TrieBuilderNode(displayPath: displayPath + ".*", depth: depth + 1, budget: budget)
            everyElementChild = child
            child.insert(rest, column: column, rank: rank, ignoring: scope)
            return
        }
        if depth == 1 && segment.key == RecordKeyField.segment.key {
            let child = recordKeyChild ?? TrieBuilderNode(displayPath: RecordKeyField.path, depth: depth + 1, budget: budget)
            recordKeyChild = child
            child.insert(rest, column: column, rank: rank, ignoring: scope)
            return
        }
        keyChild(segment.key).insert(rest, column: column, rank: rank, ignoring: scope)
        if let index = segment.index { indexChild(index).insert(rest, column: column, rank: rank, ignoring: scope) }
    }

    /// Two ignored paths on one node cover what either covers.
    private func widenIgnoredScope(to scope: IgnoredScope) {
        if scope == .everythingBeneath || (scope == .keysDirectlyIn && ignoredScope == .none) { ignoredScope = scope }
    }

    /// An ignored path that covers everything beneath its node covers every node the fields make beneath it.
    func spreadIgnoredScope(inherited: Bool = false) {
        if inherited { ignoredScope = .everythingBeneath }
        let spreads = ignoredScope == .everythingBeneath
        for (_, child) in keyChildren { child.spreadIgnoredScope(inherited: spreads) }
        for (_, child) in indexChildren { child.spreadIgnoredScope(inherited: spreads) }
        everyElementChild?.spreadIgnoredScope(inherited: spreads)
    }

    /// An element that an index names (`tags.0`) is also one of every element (`tags.*`), but a value reaches one
    /// node: the `*` subtree is copied into each index child, so element 0 feeds both.
    func spreadEveryElement() {
        if let every = everyElementChild {
            for (_, child) in indexChildren { child.absorb(every) }
        }
        for (_, child) in keyChildren { child.spreadEveryElement() }
        for (_, child) in indexChildren { child.spreadEveryElement() }
        everyElementChild?.spreadEveryElement()
    }

    /// Adds `other`'s targets and children to this node's.
    private func absorb(_ other: TrieBuilderNode) {
        budget.spend()
        guard !budget.isExhausted else { return }
        widenIgnoredScope(to: other.ignoredScope)
        for column in other.targets where !targets.contains(column) { targets.append(column) }
        for (key, child) in other.keyChildren { keyChild(key).absorb(child) }
        for (index, child) in other.indexChildren { indexChild(index).absorb(child) }
        if let every = other.everyElementChild {
            let mine = everyElementChild ?? TrieBuilderNode(displayPath: displayPath + ".*", depth: depth + 1, budget: budget)
            everyElementChild = mine
            mine.absorb(every)
        }
    }

    private func keyChild(_ key: [UInt8]) -> TrieBuilderNode {
        if let position = keyChildPositions[key] { return keyChildren[position].node }
        let name = FieldPath.escaped(key: String(decoding: key, as: UTF8.self))
        let child = TrieBuilderNode(displayPath: displayPath + "." + name, depth: depth + 1, budget: budget)
        keyChildPositions[key] = keyChildren.count
        keyChildren.append((key, child))
        return child
    }

    private func indexChild(_ index: Int) -> TrieBuilderNode {
        if let position = indexChildPositions[index] { return indexChildren[position].node }
        let child = TrieBuilderNode(displayPath: displayPath + "[\(index)]", depth: depth + 1, budget: budget)
        indexChildPositions[index] = indexChildren.count
        indexChildren.append((index, child))
        return child
    }

    /// A string, number or Boolean field can never be read at a node that other fields look inside: the value
    /// there has to be an object or array for them, and a scalar for it. Only `json` and transformed fields may
    /// share such a node.
    func checkScalarTargetsAreLeaves(fields: [FieldSpec], reported: inout Set<Int>, problems: inout [MappingProblem]) {
        if !keyChildren.isEmpty || !indexChildren.isEmpty || everyElementChild != nil {
            // A numeric segment puts a field on two nodes (key and index branch): report it once.
            for column in targets where !fields[column].takesAnyValue && reported.insert(column).inserted {
                let beneath = Set(descendantTargets()).sorted().map { "'\(fields[$0].name)'" }
                problems.append(MappingProblem(
                    field: fields[column].name,
                    message: "reads \(displayPath) as \(fields[column].type), but \(beneath.joined(separator: ", ")) "
                        + "read\(beneath.count == 1 ? "s" : "") inside it; only a json or transformed field can share a node with fields beneath it"
                ))
            }
        }
        for child in keyChildren { child.node.checkScalarTargetsAreLeaves(fields: fields, reported: &reported, problems: &problems) }
        for child in indexChildren { child.node.checkScalarTargetsAreLeaves(fields: fields, reported: &reported, problems: &problems) }
        everyElementChild?.checkScalarTargetsAreLeaves(fields: fields, reported: &reported, problems: &problems)
    }

    func descendantTargets() -> [Int] {
        keyChildren.flatMap { $0.node.targets + $0.node.descendantTargets() }
            + indexChildren.flatMap { $0.node.targets + $0.node.descendantTargets() }
            + (everyElementChild.map { $0.targets + $0.descendantTargets() } ?? [])
    }

    func flatten(fields: [FieldSpec], conversions: [ColumnConversion], validators: [CompiledValidator], rejectsUnmappedKeys: Bool) -> CompiledPlan {
        var order: [TrieBuilderNode] = []
        var queue: [TrieBuilderNode] = [self]
        while !queue.isEmpty {
            let node = queue.removeFirst()
            order.append(node)
            queue.append(contentsOf: node.keyChildren.map(\.node))
            queue.append(contentsOf: node.indexChildren.map(\.node))
            if let child = node.everyElementChild { queue.append(child) }
            if let child = node.recordKeyChild { queue.append(child) }
        }
        let ids = Dictionary(uniqueKeysWithValues: order.enumerated().map { (ObjectIdentifier($1), Int32($0)) })

        var nodes: [PlanNode] = []
        var keyEntries: [KeyEntry] = []
        var keySlots: [Int32] = []
        var keyBytes: [UInt8] = []
        var indexEntries: [IndexEntry] = []
        var targets: [Int32] = []
        var targetRanks: [Int32] = []
        for builder in order {
            var node = PlanNode()
            node.keyEntryStart = Int32(keyEntries.count)
            node.keyEntryCount = Int32(builder.keyChildren.count)
            for (key, child) in builder.keyChildren {
                keyEntries.append(KeyEntry(keyStart: Int32(keyBytes.count), keyLength: Int32(key.count), node: ids[ObjectIdentifier(child)] ?? -1))
                keyBytes.append(contentsOf: key)
            }
            if !builder.keyChildren.isEmpty {
                var size = 4
                while size < builder.keyChildren.count * 2 { size *= 2 }
                node.slotStart = Int32(keySlots.count)
                node.slotMask = Int32(size - 1)
                var table = [Int32](repeating: -1, count: size)
                for (offset, child) in builder.keyChildren.enumerated() {
                    var slot = Int(truncatingIfNeeded: CompiledPlan.keyHash(child.key)) & (size - 1)
                    while table[slot] >= 0 { slot = (slot + 1) & (size - 1) }
                    table[slot] = node.keyEntryStart + Int32(offset)
                }
                keySlots.append(contentsOf: table)
            }
            node.indexEntryStart = Int32(indexEntries.count)
            node.indexEntryCount = Int32(builder.indexChildren.count)
            for (index, child) in builder.indexChildren.sorted(by: { $0.index < $1.index }) {
                indexEntries.append(IndexEntry(index: index, node: ids[ObjectIdentifier(child)] ?? -1))
            }
            if let child = builder.everyElementChild {
                indexEntries.append(IndexEntry(index: -1, node: ids[ObjectIdentifier(child)] ?? -1))
                node.indexEntryCount += 1
            }
            node.targetStart = Int32(targets.count)
            node.targetCount = Int32(builder.targets.count)
            targets.append(contentsOf: builder.targets.map { Int32($0) })
            targetRanks.append(contentsOf: builder.targetRanks)
            node.capturesJSON = builder.targets.contains { fields[$0].takesAnyValue }
            node.hasScalarTargets = builder.targets.contains { !fields[$0].takesAnyValue }
            node.hasSpecialTargets = builder.targets.contains {
                fields[$0].transform != nil || fields[$0].isList || conversions[$0].cleaning != nil || !fields[$0].fallbackPaths.isEmpty
            }
            node.scalarNeedsCare = node.hasSpecialTargets || !builder.keyChildren.isEmpty || !builder.indexChildren.isEmpty
                || builder.everyElementChild != nil
            nodes.append(node)
        }
        let plan = CompiledPlan(
            fields: fields, conversions: conversions, validators: validators, rejectsUnmappedKeys: rejectsUnmappedKeys, nodes: nodes, keyEntries: keyEntries, keySlots: keySlots, keyBytes: keyBytes,
            indexEntries: indexEntries, targets: targets, displayPaths: order.map(\.displayPath),
            maxDepth: order.map(\.depth).max() ?? 1
        )
        // Each list starts (as `[]`) where its array does, so that an empty array gives an empty list.
        var arrayNodes = [Int32](repeating: -1, count: fields.count)
        for builder in order {
            guard let child = builder.everyElementChild else { continue }
            for column in child.targets + child.descendantTargets() { arrayNodes[column] = ids[ObjectIdentifier(builder)] ?? -1 }
        }
        plan.listArrayNodes = plan.listColumns.map { arrayNodes[$0] }
        plan.targetRanks = targetRanks
        plan.startsLists.deallocate()
        plan.startsLists = .allocateCopy(of: order.map { $0.everyElementChild != nil })
        plan.ignoresUnreadKeys.deallocate()
        plan.ignoresUnreadKeys = .allocateCopy(of: order.map { $0.ignoredScope != .none })
        plan.feedsNoField.deallocate()
        // Children come after their parent in `order`: one pass from the end settles each node after its children.
        var feeds = order.map { !$0.targets.isEmpty }
        for (position, builder) in order.enumerated().reversed() {
            let children = builder.keyChildren.map(\.node) + builder.indexChildren.map(\.node) + (builder.everyElementChild.map { [$0] } ?? [])
            if children.contains(where: { ids[ObjectIdentifier($0)].map { feeds[Int($0)] } ?? false }) { feeds[position] = true }
        }
        plan.feedsNoField = .allocateCopy(of: feeds.map { !$0 })
        if let keyChild = recordKeyChild { plan.keyNode = ids[ObjectIdentifier(keyChild)] ?? -1 }
        return plan
    }
}

/// `$key`: a field fed with the key of each record in an object of records. Its path is parsed to a key no JSON
/// text can hold (a 0xFF byte is never valid UTF-8), and the compiler puts it on a node of its own beside the
/// record's root, which no input key reaches.
enum RecordKeyField {
    static let path = "$key"
    static let segment = FieldPath.Segment(key: [0xFF] + Array("key".utf8), index: nil)
}
