/// Child tables (``FieldSpec/childTable``): each becomes an element plan, mapped by an element machine in the
/// record's own pass, whose rows the table's writer links to the record's.
extension PlanCompiler {
    /// Puts the child tables' fields after the columns (so that a table's columns are its first fields), makes each
    /// read its array as json, and compiles its elements' plan. Problems of an element's field are named from the
    /// table's (`hashtags.text`).
    static func prepareChildTables(_ fields: inout [FieldSpec], options: MappingOptions, problems: inout [MappingProblem]) {
        guard fields.contains(where: { $0.childTable != nil }) else { return }
        fields = fields.filter { $0.childTable == nil } + fields.filter { $0.childTable != nil }
        let elementOptions = MappingOptions(naming: options.naming, nullSpellings: options.nullSpellings)
        for column in fields.indices {
            let field = fields[column]
            guard let table = field.childTable else { continue }
            let name = field.name
            func problem(_ message: String) { problems.append(MappingProblem(field: name, message: message)) }
            if field.isList { problem("a child table reads one array: its path takes no '*' (the table's rows are that array's elements)") }
            let settings = [("clean", !field.cleanups.isEmpty), ("transform", field.transform != nil), ("validate", !field.validators.isEmpty),
                            ("fallback paths", !field.fallbackPaths.isEmpty), ("default", field.defaultValue != nil), ("unique", field.isUnique),
                            ("nulls", field.nullSpellings != nil), ("values", !field.enumValues.isEmpty), ("precision", field.decimalFormat != nil),
                            ("truncate", field.truncatesFractions), ("unit", field.epochUnit != .seconds),
                            ("formats", field.dateFormats != DateFormat.defaults)].filter(\.1).map(\.0)
            if !settings.isEmpty {
                problem("a child table takes no \(settings.joined(separator: ", ")): each applies to its elements' fields")
            }
            fields[column].type = .json
            fields[column].isOptional = true
            guard !table.fields.isEmpty else {
                problem("the child table has no fields (a table of values has one: {type: …})")
                continue
            }
            do {
                fields[column].elementPlan = try compile(table.fields, options: elementOptions)
            } catch {
                guard case .invalidMapping(let found) = error else { continue }
                problems += found.map { MappingProblem(field: name, message: "table \(name): " + ($0.field.map { "field \($0): " } ?? "") + $0.message) }
            }
        }
    }

    /// Each child table's array must be mapped element by element, which needs it to be read by its table alone.
    static func checkChildTablesMapElements(_ plan: CompiledPlan) throws(SluiceError) {
        var problems: [MappingProblem] = []
        for (machine, column) in plan.elementColumns.enumerated() where plan.fields[column].childTable != nil {
            guard !plan.mapsElements(by: machine) else { continue }
            problems.append(MappingProblem(field: plan.fields[column].name, message: "other fields read inside its array (or read it whole): a child table's array must be read by the table alone; read those values as fields of the table"))
        }
        if !problems.isEmpty { throw .invalidMapping(problems) }
    }
}
