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
    let makeModel: @Sendable () -> Model
    let fields: [Field<Model>]
    let plan: CompiledPlan

    /// Compiles a mapping.
    /// - Parameters:
    ///   - makeModel: Makes the value each record's fields are written into (properties no field sets keep the
    ///     values it gives them).
    ///   - fields: The fields.
    /// - Throws: ``SluiceError/invalidMapping(_:)`` listing every problem.
    public init(_ makeModel: @escaping @Sendable () -> Model, fields: [Field<Model>]) throws(SluiceError) {
        self.makeModel = makeModel
        self.fields = fields
        plan = try PlanCompiler.compile(fields.map { FieldSpec(name: $0.name, path: $0.path, type: $0.type, isOptional: $0.isOptional) })
    }

    /// Compiles a mapping declared with a list builder.
    public init(_ makeModel: @escaping @Sendable () -> Model, @FieldListBuilder<Model> _ fields: () -> [Field<Model>]) throws(SluiceError) {
        try self.init(makeModel, fields: fields())
    }

    /// Writes row `row` of `batch` into a fresh model.
    @inline(__always)
    func model(from batch: ColumnarBatch, row: Int) -> Model {
        var model = makeModel()
        for index in fields.indices { fields[index].assign(&model, batch.columns[index], row) }
        return model
    }
}

/// Collects ``Field``s written one per line.
@resultBuilder
public enum FieldListBuilder<Model> {
    public static func buildExpression(_ field: Field<Model>) -> [Field<Model>] { [field] }
    public static func buildBlock(_ fields: [Field<Model>]...) -> [Field<Model>] { fields.flatMap { $0 } }
    public static func buildOptional(_ fields: [Field<Model>]?) -> [Field<Model>] { fields ?? [] }
    public static func buildEither(first fields: [Field<Model>]) -> [Field<Model>] { fields }
    public static func buildEither(second fields: [Field<Model>]) -> [Field<Model>] { fields }
    public static func buildArray(_ fields: [[Field<Model>]]) -> [Field<Model>] { fields.flatMap { $0 } }
}
