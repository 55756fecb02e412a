import Foundation

/// How a Swift model is read from JSON records: a way to make a fresh value, and its ``Field``s.
///
/// ```swift
/// struct Tweet { var id: Int64 = 0; var text = ""; var userName: String? }
/// let mapping = try Mapping(Tweet.init) {
///     Field("id", \.id)
///     Field("text", \.text)
///     Field("user.name", \.userName)
/// }
/// ```
///
/// The mapping compiles once (every problem reported at once) into the same plan the dynamic schema uses, and
/// may be shared by any number of readers on any threads.
public struct Mapping<Model>: Sendable {
    let assembly: Assembly<Model>
    let fields: [Field<Model>]
    /// Runs on every mapped model; may compute derived properties, and may throw to reject the record.
    let finish: (@Sendable (inout Model) throws -> Void)?
    let plan: CompiledPlan
    /// The plan for updates in place: every field optional, no defaults, so that a missing key is told apart
    /// from a value and leaves its property as it was.
    let updatePlan: CompiledPlan
    let encoder: LazyRecordEncoder
    /// Per field, its first column (a nested model's field reads several).
    let columnStart: [Int]
    /// For a mapping of a `Decodable` model: the model written back as JSON through its `Encodable` conformance (nil
    /// for a model that has none), in place of the fields.
    var encodesModel: (@Sendable (Model) -> String?)?

    /// Compiles a mapping.
    /// - Parameters:
    ///   - makeModel: Makes the value each record's fields are written into (properties no field sets keep the
    ///     values it gives them).
    ///   - options: Options of the mapping as a whole (unmapped keys, ignored paths).
    ///   - fields: The fields.
    ///   - finish: Runs on every mapped model before it is handed out: it may compute derived properties, and
    ///     may throw (``MappingFailure`` or any error) to reject the record with its message.
    /// - Throws: ``SluiceError/invalidMapping(_:)`` listing every problem.
    public init(
        _ makeModel: @escaping @Sendable () -> Model, options: MappingOptions = MappingOptions(), fields: [Field<Model>],
        finish: (@Sendable (inout Model) throws -> Void)? = nil
    ) throws(SluiceError) {
        try self.init(assembly: .properties(makeModel), options: options, fields: fields, finish: finish)
    }

    /// Compiles a mapping for a model made by its initialiser (for models whose properties are `let` constants):
    /// each record's values are passed to `initializer`, one ``Parameter`` per parameter, in order.
    ///
    /// ```swift
    /// struct Tweet { let id: Int64; let text: String; let createdAt: Date; let tags: [String]? }
    /// let mapping = try Mapping(Tweet.init,
    ///     Parameter("id", \.id),
    ///     Parameter("text", \.text),
    ///     Parameter("created_at", \.createdAt, formats: [.twitter]),
    ///     Parameter("tags", \.tags))
    /// ```
    ///
    /// Each parameter's property must have the initialiser parameter's type, which the compiler checks. A record is all or
    /// nothing: every value that does not map is named in its rejection, and the initialiser is not called.
    /// - Parameters:
    ///   - initializer: Makes a model from the parameters' values (`Tweet.init`, or any function or closure).
    ///   - options: Options of the mapping as a whole (unmapped keys, ignored paths, naming).
    ///   - first: Where the first parameter's value is read.
    ///   - parameters: Where each further parameter's value is read.
    ///   - finish: Runs on every model made; may throw to reject the record with its message.
    /// - Throws: ``SluiceError/invalidMapping(_:)`` listing every problem.
    public init<First, each Value>(
        _ initializer: @escaping @Sendable (First, repeat each Value) -> Model, options: MappingOptions = MappingOptions(),
        _ first: Parameter<Model, First>, _ parameters: repeat Parameter<Model, each Value>, finish: (@Sendable (inout Model) throws -> Void)? = nil
    ) throws(SluiceError) {
        // The first parameter stands apart so that `Mapping({ Model() }) { fields }` cannot be read as an
        // initialiser of no parameters with a finishing hook, which would blur the compiler's messages about fields.
        var fields: [Field<Model>] = [first.field]
        var differs: [@Sendable (Model, Model) -> Bool] = [first.differs]
        for parameter in repeat each parameters {
            fields.append(parameter.field)
            differs.append(parameter.differs)
        }
        let parameters = (repeat each parameters)
        let construct: @Sendable (ArgumentSource<Model>) -> Result<Model, RefusedValues> = { source in
            var failures: [Rejection.Failure] = []
            var column = 0
            let firstValue = Self.value(of: first, from: source, column: &column, failures: &failures)
            let values = (repeat Self.value(of: each parameters, from: source, column: &column, failures: &failures))
            guard failures.isEmpty else { return .failure(RefusedValues(failures)) }
            do throws(RefusedValues) {
                return .success(initializer(try Self.unwrapped(firstValue), repeat try Self.unwrapped(each values)))
            } catch {
                return .failure(error)
            }
        }
        try self.init(assembly: .initializer(construct, differs: differs), options: options, fields: fields, finish: finish)
    }

    /// One argument's value: from the record, or for an update, from the model's property when the record does
    /// not hold it. Moves `column` past the argument's columns.
    private static func value<Value>(
        of argument: Parameter<Model, Value>, from source: ArgumentSource<Model>, column: inout Int, failures: inout [Rejection.Failure]
    ) -> Value? {
        let columns = column..<column + argument.columns.count
        column = columns.upperBound
        if let current = source.current, !columns.contains(where: source.isPresent) {
            return current[keyPath: argument.property]
        }
        return argument.value(source.columns + columns.lowerBound, source.row, source.paths[offsets: columns], &failures)
    }

    /// A value every argument produced (the failures were checked first).
    private static func unwrapped<Value>(_ value: Value?) throws(RefusedValues) -> Value {
        guard let value else { throw RefusedValues([]) }
        return value
    }

    init(
        assembly: Assembly<Model>, options: MappingOptions, fields: [Field<Model>], finish: (@Sendable (inout Model) throws -> Void)?
    ) throws(SluiceError) {
        self.assembly = assembly
        self.fields = fields
        self.finish = finish
        var starts: [Int] = []
        var next = 0
        for field in fields {
            starts.append(next)
            next += field.columns.count
        }
        columnStart = starts
        let columns = try Self.columnsSplittingIntoArrays(fields.flatMap(\.columns))
        plan = try PlanCompiler.compile(columns, options: options)
        // A missing key leaves its property alone, so nothing may reject it as missing: a required field without a
        // default becomes optional here and its null is rejected by `update` itself. A default still covers null.
        updatePlan = try PlanCompiler.compile(columns.map { column in
            var spec = column
            spec.isOptional = !(Self.isRequired(column) && column.defaultValue != nil)
            spec.validators.removeAll { $0 == .required }
            return spec
        }, options: options)
        encoder = LazyRecordEncoder(plan: plan)
    }

    /// The columns, with a split's pieces read as text into the JSON array that an array (or `JSONValue`) property
    /// takes. A list through `*`, or a split for a property that holds no array, is refused.
    private static func columnsSplittingIntoArrays(_ columns: [FieldSpec]) throws(SluiceError) -> [FieldSpec] {
        var problems: [MappingProblem] = []
        let result = columns.map { column in
            guard column.isList else { return column }
            guard column.cleanups.contains(where: \.isSplit) else {
                // A property takes an array through an array field; `*` makes the dynamic schema's list columns.
                problems.append(MappingProblem(field: column.name, message: "'*' reads a list column; declare an array property with an array field instead"))
                return column
            }
            guard column.type.keepsJSONText else {
                problems.append(MappingProblem(field: column.name, message: "split makes a list: map it to an array property"))
                return column
            }
            var pieces = column
            pieces.type = .string
            return pieces
        }
        if !problems.isEmpty { throw .invalidMapping(problems) }
        return result
    }

    /// A model written back as JSON through this mapping: key paths rebuilt as nested objects, dates in the
    /// field's first format, enums as their JSON values, arrays element by element (nested models through their
    /// own mapping). Mapping the result gives the same model again, except for what is not written: fields with a
    /// transform (a transform has no way back).
    ///
    /// A mapping of a `Decodable` model writes it through its `Encodable` conformance with `JSONEncoder`, keys and
    /// dates by the strategies that undo the decoder's; a model that is not `Encodable` is written as `null`.
    public func jsonText(of model: Model) -> String {
        if let encodesModel { return encodesModel(model) ?? "null" }
        let batch = ColumnarBatch(fields: plan.fields, capacity: 1, holdsElementRows: false)
        for (index, field) in fields.enumerated() {
            for (offset, value) in field.encodedValues(model).enumerated() {
                let column = columnStart[index] + offset
                if let value { batch.columns[column].write(value, row: 0) } else { batch.columns[column].setNull(row: 0) }
            }
        }
        batch.count = 1
        return String(decoding: encoder.encode(batch, row: 0), as: UTF8.self)
    }

    /// Maps one record held as Foundation values (a `[String: Any]` from `JSONSerialization` or a property
    /// list) into a fresh model.
    /// - Throws: ``SluiceError/rejected(_:)`` when the record does not map.
    public func model(from tree: Any) throws(SluiceError) -> Model {
        let reader = try TypedReader(input: .foundation(tree), mapping: self, options: ReaderOptions(shape: .document))
        guard let model = try reader.nextModel() else { throw .invalidInput(source: "the value", message: "no record in it") }
        return model
    }

    /// Maps an array of records held as Foundation values into models, in order.
    /// - Throws: ``SluiceError/rejected(_:)`` at the first record that does not map.
    public func models(from trees: [Any]) throws(SluiceError) -> [Model] {
        let reader = try TypedReader(input: .foundation(trees), mapping: self, options: ReaderOptions(shape: .array))
        var models: [Model] = []
        while let batch = try reader.next() { models += batch.models }
        return models
    }

    /// Maps one JSON object onto an existing model: keys that are missing leave their properties as they are,
    /// `null` clears optional properties (or gives the field's default), and values are converted and validated
    /// as usual; the finishing hook then runs on the updated model. All or nothing: on any rejection, the hook's
    /// included, the model is left untouched.
    /// - Parameters:
    ///   - model: The model to update.
    ///   - input: The record: JSON bytes (`.bytes`), a file, or Foundation values (`.foundation(dictionary)`).
    /// - Returns: The properties whose values changed, so that a store can skip unchanged rows.
    /// - Throws: ``SluiceError/rejected(_:)`` naming the record and each key path that does not map (including
    ///   `null` for a required property without a default), or the hook's error.
    @discardableResult
    public func update(_ model: inout Model, from input: Input) throws(SluiceError) -> [PartialKeyPath<Model> & Sendable] {
        let source = try input.open()
        let engine = try MappingEngine(plan: updatePlan, document: source, options: ReaderOptions(shape: .document, rejectionPolicy: .collect))
        guard let batch = try engine.nextBatch() else { throw .invalidInput(source: source.name, message: "no record in it") }
        if let rejection = batch.rejections.first { throw .rejected(rejection) }
        guard batch.count == 1 else { throw .invalidInput(source: source.name, message: "no record in it") }
        var raw: [UInt8] = []
        if case .bytes(let bytes, _) = input { raw = bytes }
        let present = fields.indices.filter { index in
            (columnStart[index]..<columnStart[index] + fields[index].columns.count).contains { engine.lastRecordHad(column: $0) }
        }
        let nulls = present.filter { index in
            fields[index].columns.count == 1 && !batch.columns[columnStart[index]].isValid(0) && Self.isRequired(fields[index].spec)
                && fields[index].spec.defaultValue == nil
        }
        if !nulls.isEmpty {
            throw .rejected(Rejection(location: batch.location(ofRow: 0), failures: nulls.map { index in
                Rejection.Failure(keyPath: updatePlan.columnPath(columnStart[index]), kind: .null, expected: fields[index].spec.shownTypeName, found: ValueDescription.null)
            }, rawText: raw))
        }
        var updated = model
        var changed: [PartialKeyPath<Model> & Sendable] = []
        switch assembly {
        case .properties:
            var refused: [Rejection.Failure] = []
            for index in present {
                let columns = columnStart[index]..<columnStart[index] + fields[index].columns.count
                switch fields[index].update(&updated, batch.columns + columns.lowerBound, 0, updatePlan.columnPaths[columns]) {
                case .success(true): changed.append(fields[index].keyPath)
                case .success(false): break
                case .failure(let refusal): refused += refusal.failures
                }
            }
            if !refused.isEmpty { throw .rejected(Rejection(location: batch.location(ofRow: 0), failures: refused, rawText: raw)) }
        case .initializer(let construct, let differs):
            // A new model from the initialiser: the record's values where it has them, the model's elsewhere.
            let source = ArgumentSource(columns: batch.columns, row: 0, paths: updatePlan.columnPaths[...], current: model) { engine.lastRecordHad(column: $0) }
            switch construct(source) {
            case .success(let made): updated = made
            case .failure(let refusal): throw .rejected(Rejection(location: batch.location(ofRow: 0), failures: refusal.failures, rawText: raw))
            }
            changed = present.filter { differs[$0](model, updated) }.map { fields[$0].keyPath }
        }
        if let finish {
            do {
                try finish(&updated)
            } catch {
                throw .rejected(Rejection(location: batch.location(ofRow: 0), failures: [
                    Rejection.Failure(keyPath: "$", kind: .custom, expected: "finishing hook", found: "\(error)"),
                ], rawText: raw))
            }
        }
        model = updated
        return changed
    }

    /// Whether a field rejects `null` (it is not optional, or has the `required` validator).
    private static func isRequired(_ spec: FieldSpec) -> Bool {
        !spec.isOptional || spec.validators.contains(.required)
    }

    /// Compiles a mapping declared with a list builder.
    public init(
        _ makeModel: @escaping @Sendable () -> Model, options: MappingOptions = MappingOptions(),
        finish: (@Sendable (inout Model) throws -> Void)? = nil, @FieldListBuilder<Model> _ fields: () -> [Field<Model>]
    ) throws(SluiceError) {
        try self.init(makeModel, options: options, fields: fields(), finish: finish)
    }

    /// Whether a committed record may still be rejected while its model is made (transforms, a finishing hook):
    /// the reader then keeps each record's text for such rejections.
    var rejectsAfterCommit: Bool {
        finish != nil || fields.contains {
            switch $0.writer {
            case .checked, .nested: true
            case .argument(let mayRefuse): mayRefuse
            case .stored, .keyPath: false
            }
        }
    }

    /// Appends one model per record of `batch` that is not refused to `models`, in order. Returns the rows
    /// that conversions made now, transforms or the hook refused, with why.
    func appendModels(from batch: ColumnarBatch, to models: inout ContiguousArray<Model>) -> [Int: [Rejection.Failure]] {
        appendModels(from: batch, rows: 0..<batch.count, to: &models)
    }

    /// The models of the elements in `elements`, an array's rows in an element batch. The first element that
    /// did not map, in the engine or while its model is made now, fails the array, named by its place in the
    /// array (`$[2].text`).
    func models(of elements: ElementRows) -> Result<[Model], ValueFailure> {
        var models = ContiguousArray<Model>()
        models.reserveCapacity(elements.rows.count)
        let refused = appendModels(from: elements.batch, rows: elements.rows, to: &models)
        var first: (ordinal: Int, failure: Rejection.Failure?)?
        if let row = refused.keys.min() { first = (elements.batch.ordinals[row], refused[row]?.first) }
        if let index = elements.failure, index < elements.batch.rejections.count {
            let rejection = elements.batch.rejections[index]
            if first.map({ rejection.location.ordinal < $0.ordinal }) ?? true { first = (rejection.location.ordinal, rejection.failures.first) }
        }
        guard let first else { return .success(Array(models)) }
        return .failure(ArrayElements.failure(ofElement: first.failure, ordinal: first.ordinal))
    }

    /// ``appendModels(from:to:)`` for `rows` of `batch`; the refused rows are keyed by their row in `batch`.
    private func appendModels(from batch: ColumnarBatch, rows: Range<Int>, to models: inout ContiguousArray<Model>) -> [Int: [Rejection.Failure]] {
        var refused: [Int: [Rejection.Failure]] = [:]
        guard case .properties(let make) = assembly else {
            for row in rows {
                switch makeModel(columns: batch.columns, row: row, paths: plan.columnPaths[...], hookPath: "$") {
                case .success(let model): models.append(model)
                case .failure(let refusal): refused[row] = refusal.failures
                }
            }
            return refused
        }
        let start = models.count - rows.lowerBound
        for _ in rows { models.append(make()) }
        let stride = MemoryLayout<Model>.stride
        models.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let first = UnsafeMutableRawPointer(base + start + rows.lowerBound)
            for index in fields.indices {
                let column = columnStart[index]
                let storage = batch.columns[column]
                switch fields[index].writer {
                case .stored(let offset, let kind):
                    Self.write(kind, from: storage, rows: rows, to: first + offset, stride: stride)
                case .keyPath(let assign):
                    for row in rows { assign(&base[start + row], storage, row) }
                case .checked(let apply):
                    for row in rows {
                        if let failure = apply(&base[start + row], storage, row) {
                            refused[row, default: []].append(failure.placed(under: plan.columnPath(column)))
                        }
                    }
                case .nested(let apply):
                    let paths = plan.columnPaths[column..<column + fields[index].columns.count]
                    for row in rows {
                        let failures = apply(&base[start + row], batch.columns + column, row, paths)
                        if !failures.isEmpty { refused[row, default: []] += failures }
                    }
                case .argument:
                    break
                }
            }
            guard let finish else { return }
            for row in rows where refused[row] == nil {
                do {
                    try finish(&base[start + row])
                } catch {
                    refused[row] = [Rejection.Failure(keyPath: "$", kind: .custom, expected: "finishing hook", found: "\(error)")]
                }
            }
        }
        for row in refused.keys.sorted(by: >) { models.remove(at: start + row) }
        return refused
    }

    /// The model of one record whose columns start at `columns` (a nested model's, inside its parent's batch),
    /// with the finishing hook run; `paths` name the columns, and `hookPath` the hook's refusal. `seed` is what a
    /// property mapping writes into instead of a fresh model.
    func makeModel(
        columns: UnsafeMutablePointer<ColumnStorage>, row: Int, paths: ArraySlice<String>, seed: Model? = nil, hookPath: String
    ) -> Result<Model, RefusedValues> {
        var model: Model
        switch assembly {
        case .properties(let make):
            model = seed ?? make()
            let failures = writeFields(into: &model, columns: columns, row: row, paths: paths)
            if !failures.isEmpty { return .failure(RefusedValues(failures)) }
        case .initializer(let construct, _):
            switch construct(ArgumentSource(columns: columns, row: row, paths: paths)) {
            case .success(let made): model = made
            case .failure(let refusal): return .failure(refusal)
            }
        }
        if let finish {
            do {
                try finish(&model)
            } catch {
                return .failure(RefusedValues([Rejection.Failure(keyPath: hookPath, kind: .custom, expected: "finishing hook", found: "\(error)")]))
            }
        }
        return .success(model)
    }

    /// Writes one record's fields into a model, from the columns starting at `columns` (a nested model's, inside
    /// its parent's batch). Returns why the values were refused, if they were; `paths` name the columns.
    func writeFields(into model: inout Model, columns: UnsafeMutablePointer<ColumnStorage>, row: Int, paths: ArraySlice<String>) -> [Rejection.Failure] {
        var failures: [Rejection.Failure] = []
        withUnsafeMutablePointer(to: &model) { pointer in
            let raw = UnsafeMutableRawPointer(pointer)
            for index in fields.indices {
                let column = columnStart[index]
                switch fields[index].writer {
                case .stored(let offset, let kind):
                    Self.write(kind, from: columns[column], rows: row..<row + 1, to: raw + offset, stride: 0)
                case .keyPath(let assign):
                    assign(&pointer.pointee, columns[column], row)
                case .checked(let apply):
                    if let failure = apply(&pointer.pointee, columns[column], row) {
                        // Inside a parent, the column's path is the parent's (`$.post.tags[1]`).
                        failures.append(failure.placed(under: paths[offset: column]))
                    }
                case .nested(let apply):
                    failures += apply(&pointer.pointee, columns + column, row, paths[offsets: column..<column + fields[index].columns.count])
                case .argument:
                    break
                }
            }
        }
        return failures
    }

    /// Writes the values of `rows` of one column into the property at `property` (for `rows.lowerBound`) of
    /// consecutive models, `stride` bytes apart.
    private static func write(_ kind: StoredValueKind, from storage: ColumnStorage, rows: Range<Int>, to property: UnsafeMutableRawPointer, stride: Int) {
        // Each property was initialised by `makeModel`, so assignment (not initialisation) is right here.
        func each<Value>(_ type: Value.Type, _ value: (Int) -> Value) {
            for row in rows {
                (property + (row - rows.lowerBound) * stride).assumingMemoryBound(to: Value.self).pointee = value(row)
            }
        }
        switch kind {
        case .string: each(String.self) { storage.text($0) ?? "" }
        case .optionalString: each(String?.self) { storage.text($0) }
        case .int64: each(Int64.self) { storage.int64($0) ?? 0 }
        case .optionalInt64: each(Int64?.self) { storage.int64($0) }
        case .int: each(Int.self) { Int(truncatingIfNeeded: storage.int64($0) ?? 0) }
        case .optionalInt: each(Int?.self) { storage.int64($0).map { Int(truncatingIfNeeded: $0) } }
        case .double: each(Double.self) { storage.double($0) ?? 0 }
        case .optionalDouble: each(Double?.self) { storage.double($0) }
        case .bool: each(Bool.self) { storage.bool($0) ?? false }
        case .optionalBool: each(Bool?.self) { storage.bool($0) }
        case .uint64: each(UInt64.self) { storage.uint64($0) ?? 0 }
        case .optionalUInt64: each(UInt64?.self) { storage.uint64($0) }
        case .date: each(Date.self) { storage.date($0) ?? Date(timeIntervalSince1970: 0) }
        case .optionalDate: each(Date?.self) { storage.date($0) }
        case .data: each(Data.self) { storage.data($0) ?? Data() }
        case .optionalData: each(Data?.self) { storage.data($0) }
        }
    }
}

/// How a mapping makes its models.
enum Assembly<Model>: Sendable {
    /// A fresh model from the closure, then each field written into its property.
    case properties(@Sendable () -> Model)
    /// The model's initialiser called with the arguments' values; per argument, whether two models differ in it.
    case initializer(@Sendable (ArgumentSource<Model>) -> Result<Model, RefusedValues>, differs: [@Sendable (Model, Model) -> Bool])
}

/// Where an initialiser mapping's arguments are read: a row of columns, and for an update, the model whose
/// properties stand in for what the record does not hold.
struct ArgumentSource<Model> {
    let columns: UnsafeMutablePointer<ColumnStorage>
    let row: Int
    /// The columns' key paths as rejections show them.
    let paths: ArraySlice<String>
    var current: Model?
    /// Whether the record held a column (for updates).
    var isPresent: (Int) -> Bool

    init(columns: UnsafeMutablePointer<ColumnStorage>, row: Int, paths: ArraySlice<String>, current: Model? = nil, isPresent: @escaping (Int) -> Bool = { _ in true }) {
        self.columns = columns
        self.row = row
        self.paths = paths
        self.current = current
        self.isPresent = isPresent
    }
}

extension ArraySlice {
    /// The element at an offset from the slice's start: a slice keeps its base's indices, and a nested model's
    /// key paths are a slice of its parent's.
    subscript(offset offset: Int) -> Element { self[startIndex + offset] }

    /// The elements at offsets from the slice's start.
    subscript(offsets range: Range<Int>) -> ArraySlice { self[startIndex + range.lowerBound..<startIndex + range.upperBound] }
}

/// Collects ``Field``s written one per line.
@resultBuilder
public enum FieldListBuilder<Model> {
    /// One field.
    public static func buildExpression(_ field: Field<Model>) -> [Field<Model>] { [field] }
    /// The fields of a block, in order.
    public static func buildBlock(_ fields: [Field<Model>]...) -> [Field<Model>] { fields.flatMap { $0 } }
    /// The fields of an `if` without `else`, when its condition holds.
    public static func buildOptional(_ fields: [Field<Model>]?) -> [Field<Model>] { fields ?? [] }
    /// The fields of the first branch of an `if`/`else`.
    public static func buildEither(first fields: [Field<Model>]) -> [Field<Model>] { fields }
    /// The fields of the second branch of an `if`/`else`.
    public static func buildEither(second fields: [Field<Model>]) -> [Field<Model>] { fields }
    /// The fields of a `for` loop.
    public static func buildArray(_ fields: [[Field<Model>]]) -> [Field<Model>] { fields.flatMap { $0 } }
}
