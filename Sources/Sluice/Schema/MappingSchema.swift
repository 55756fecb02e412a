/// A dynamic mapping: named, typed fields read from key paths, compiled once and shared freely.
///
/// Build one from ``FieldSpec``s, or load a mapping file (YAML or JSON, the format in `docs/mapping.md`).
/// Compiling validates the whole mapping and reports every problem at once.
public struct MappingSchema: Sendable {
    /// The fields, in column order.
    public var fields: [FieldSpec] { plan.fields }
    let plan: CompiledPlan

    /// Options of the mapping as a whole (unmapped keys, ignored paths).
    public let options: MappingOptions

    /// Compiles `fields`.
    /// - Throws: ``SluiceError/invalidMapping(_:)`` listing every problem.
    public init(fields: [FieldSpec], options: MappingOptions = MappingOptions()) throws(SluiceError) {
        plan = try PlanCompiler.compile(fields, options: options)
        self.options = options
    }
}
