import Sluice

/// The parts of Parquet's metadata a writer fills in, by their numbers and field ids in the format's Thrift
/// definition (`parquet.thrift`), and their encoding in Thrift's compact protocol.
enum ParquetMetadata {
    enum PhysicalType: Int32 {
        case boolean = 0, int32 = 1, int64 = 2, double = 5, byteArray = 6, fixedLengthByteArray = 7
    }

    enum Repetition: Int32 {
        case required = 0, optional = 1, repeated = 2
    }

    enum Encoding: Int32 {
        case plain = 0, rle = 3, rleDictionary = 8
    }

    /// The legacy annotations, written beside the logical types for readers that predate them.
    enum ConvertedType: Int32 {
        case utf8 = 0, list = 3, enumeration = 4, decimal = 5, timestampMicros = 10, uint64 = 14, int64 = 18, json = 19
    }

    enum LogicalType {
        case string
        case list
        case json
        case integer(signed: Bool)
        case timestamp(nanoseconds: Bool)
        case decimal(precision: Int32, scale: Int32)
    }

    /// One node of the schema tree, in the footer's depth-first order.
    struct SchemaNode {
        var name: String
        var type: PhysicalType?
        var repetition: Repetition?
        var childCount: Int?
        var convertedType: ConvertedType?
        var logicalType: LogicalType?
        /// The byte width of a fixed-length leaf.
        var typeLength: Int?
        /// A decimal's digits in all and after the point, also kept here for readers older than logical types.
        var scale: Int32?
        var precision: Int32?
    }

    struct Statistics {
        var nullCount: Int64 = 0
        /// The least and greatest values in their plain encoding; nil when none or left out.
        var minimum: [UInt8]?
        var maximum: [UInt8]?
    }

    struct ColumnChunk {
        var type: PhysicalType
        var encodings: [Encoding]
        var path: [String]
        var codec: ParquetCompression
        var valueCount: Int64
        var uncompressedSize: Int64
        var compressedSize: Int64
        var dataPageOffset: Int64
        var dictionaryPageOffset: Int64?
        var statistics: Statistics
    }

    struct RowGroup {
        var columns: [ColumnChunk]
        var uncompressedSize: Int64
        var rowCount: Int64
        var fileOffset: Int64
        var compressedSize: Int64
        var ordinal: Int
    }

    enum PageKind {
        case data(valueCount: Int32, encoding: Encoding)
        case dictionary(valueCount: Int32)
    }

    /// A page header: what precedes every page's (compressed) bytes.
    static func pageHeader(_ kind: PageKind, uncompressedSize: Int, compressedSize: Int) -> [UInt8] {
        var writer = ThriftCompactWriter()
        switch kind {
        case .data(let valueCount, let encoding):
            writer.i32(1, 0)
            writer.i32(2, Int32(uncompressedSize))
            writer.i32(3, Int32(compressedSize))
            writer.structure(5) { header in
                header.i32(1, valueCount)
                header.i32(2, encoding.rawValue)
                header.i32(3, Encoding.rle.rawValue)
                header.i32(4, Encoding.rle.rawValue)
            }
        case .dictionary(let valueCount):
            writer.i32(1, 2)
            writer.i32(2, Int32(uncompressedSize))
            writer.i32(3, Int32(compressedSize))
            writer.structure(7) { header in
                header.i32(1, valueCount)
                header.i32(2, Encoding.plain.rawValue)
            }
        }
        writer.stop()
        return writer.bytes
    }

    /// The footer: schema, row groups and column orders.
    static func fileMetadata(schema: [SchemaNode], rowGroups: [RowGroup], rowCount: Int64, leafCount: Int, createdBy: String) -> [UInt8] {
        var writer = ThriftCompactWriter()
        writer.i32(1, 2)
        writer.structList(2, schema) { node, element in write(element, to: &node) }
        writer.i64(3, rowCount)
        writer.structList(4, rowGroups) { group, element in write(element, to: &group) }
        writer.string(6, createdBy)
        // Every column sorts by its type's defined order, which readers need to trust min_value and max_value.
        writer.structList(7, Array(repeating: (), count: leafCount)) { order, _ in order.structure(1) { _ in } }
        writer.stop()
        return writer.bytes
    }

    private static func write(_ node: SchemaNode, to writer: inout ThriftCompactWriter) {
        if let type = node.type { writer.i32(1, type.rawValue) }
        if let typeLength = node.typeLength { writer.i32(2, Int32(typeLength)) }
        if let repetition = node.repetition { writer.i32(3, repetition.rawValue) }
        writer.string(4, node.name)
        if let childCount = node.childCount { writer.i32(5, Int32(childCount)) }
        if let converted = node.convertedType { writer.i32(6, converted.rawValue) }
        if let scale = node.scale { writer.i32(7, scale) }
        if let precision = node.precision { writer.i32(8, precision) }
        if let logical = node.logicalType {
            writer.structure(10) { union in
                switch logical {
                case .string: union.structure(1) { _ in }
                case .list: union.structure(3) { _ in }
                case .json: union.structure(12) { _ in }
                case .integer(let signed):
                    union.structure(10) { integer in
                        integer.byte(1, 64)
                        integer.bool(2, signed)
                    }
                case .decimal(let precision, let scale):
                    union.structure(5) { decimal in
                        decimal.i32(1, scale)
                        decimal.i32(2, precision)
                    }
                case .timestamp(let nanoseconds):
                    union.structure(8) { timestamp in
                        timestamp.bool(1, true)
                        timestamp.structure(2) { unit in unit.structure(nanoseconds ? 3 : 2) { _ in } }
                    }
                }
            }
        }
    }

    private static func write(_ group: RowGroup, to writer: inout ThriftCompactWriter) {
        writer.structList(1, group.columns) { chunk, column in
            chunk.i64(2, column.dictionaryPageOffset ?? column.dataPageOffset)
            chunk.structure(3) { metadata in write(column, to: &metadata) }
        }
        writer.i64(2, group.uncompressedSize)
        writer.i64(3, group.rowCount)
        writer.i64(5, group.fileOffset)
        writer.i64(6, group.compressedSize)
        if let ordinal = Int16(exactly: group.ordinal) { writer.i16(7, ordinal) }
    }

    private static func write(_ column: ColumnChunk, to writer: inout ThriftCompactWriter) {
        writer.i32(1, column.type.rawValue)
        writer.i32List(2, column.encodings.map(\.rawValue))
        writer.stringList(3, column.path)
        writer.i32(4, column.codec.thriftValue)
        writer.i64(5, column.valueCount)
        writer.i64(6, column.uncompressedSize)
        writer.i64(7, column.compressedSize)
        writer.i64(9, column.dataPageOffset)
        if let dictionary = column.dictionaryPageOffset { writer.i64(11, dictionary) }
        writer.structure(12) { statistics in
            statistics.i64(3, column.statistics.nullCount)
            if let maximum = column.statistics.maximum, let minimum = column.statistics.minimum {
                statistics.binary(5, maximum)
                statistics.binary(6, minimum)
                statistics.bool(7, true)
                statistics.bool(8, true)
            }
        }
    }
}
