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
    let encoder: LazyRecordEncoder

    /// Compiles `fields`.
    /// - Throws: ``SluiceError/invalidMapping(_:)`` listing every problem.
    public init(fields: consuming [FieldSpec], options: MappingOptions = MappingOptions()) throws(SluiceError) {
        plan = try PlanCompiler.compile(fields, options: options)
        self.options = options
        encoder = LazyRecordEncoder(plan: plan)
    }

    /// A record of `batch` written back as JSON through this mapping: key paths rebuilt as nested objects, dates
    /// in the field's first format, enums as their JSON values (see `docs/mapping.md`, "Encoding").
    public func jsonText(ofRow row: Int, in batch: ColumnarBatch) -> String {
        precondition(row >= 0 && row < batch.count, "row \(row) is outside the batch's \(batch.count) records")
        return String(decoding: encoder.encode(batch, row: row), as: UTF8.self)
    }
}
