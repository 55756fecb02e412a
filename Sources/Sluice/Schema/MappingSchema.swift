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
    let encoder: RecordEncoder

    /// Compiles `fields`.
    /// - Throws: ``SluiceError/invalidMapping(_:)`` listing every problem.
    public init(fields: [FieldSpec], options: MappingOptions = MappingOptions()) throws(SluiceError) {
        plan = try PlanCompiler.compile(fields, options: options)
        self.options = options
        encoder = RecordEncoder(plan: plan)
    }

    /// The mapping with every uint64 field (not lists) also refusing values above `uint64Maximum`: for a
    /// destination whose integers are signed, a value it cannot hold is a rejection, never a wrapped number.
    public func capped(uint64Maximum: UInt64) throws(SluiceError) -> MappingSchema {
        let fields = self.fields.map { field in
            var capped = field
            if field.type == .uint64 && !field.isList { capped.validators.append(.maximum(.uint64(uint64Maximum))) }
            return capped
        }
        return try MappingSchema(fields: fields, options: options)
    }

    /// A record of `batch` written back as JSON through this mapping: key paths rebuilt as nested objects, dates
    /// in the field's first format, enums as their JSON values (see `docs/mapping.md`, "Encoding").
    public func jsonText(ofRow row: Int, in batch: ColumnarBatch) -> String {
        precondition(row >= 0 && row < batch.count, "row \(row) is outside the batch's \(batch.count) records")
        return String(decoding: encoder.encode(batch, row: row), as: UTF8.self)
    }
}
