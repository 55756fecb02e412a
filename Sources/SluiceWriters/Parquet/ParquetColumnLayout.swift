import Foundation
import Sluice

/// How one field is stored in a Parquet file: its leaf column's physical type and annotations, and for a list,
/// the standard three-level `LIST` around it.
///
/// Every column is optional (a null field is a null value); a list is an optional group of a repeated group of a
/// required element, since lists never hold nulls.
struct ParquetColumnLayout {
    /// What the leaf stores, and how a batch's column is read into it.
    enum Leaf {
        case int64, uint64, double, bool, timestamp, text, json, bytes
        /// An enum whose stored values are all integers, or all numbers: stored as such instead of text.
        case enumInteger, enumNumber
        /// An exact decimal, as its unscaled integer: in 4 bytes up to 9 digits, 8 up to 18, else in as few
        /// big-endian bytes as the precision needs, the narrowest layout the format allows for each precision.
        case decimal(DecimalFormat)

        var physicalType: ParquetMetadata.PhysicalType {
            switch self {
            case .int64, .uint64, .timestamp, .enumInteger: .int64
            case .double, .enumNumber: .double
            case .bool: .boolean
            case .text, .json, .bytes: .byteArray
            case .decimal(let format): format.precision <= 9 ? .int32 : format.precision <= 18 ? .int64 : .fixedLengthByteArray
            }
        }

        /// The width of a fixed-length value: the fewest bytes whose two's complement holds 10^precision − 1.
        var fixedLength: Int? {
            guard case .decimal(let format) = self, physicalType == .fixedLengthByteArray else { return nil }
            return Int(((Double(format.precision) * log2(10) + 1) / 8).rounded(.up))
        }

        /// Whether the leaf holds byte arrays, which are dictionary-encoded while their dictionary is small.
        var isByteArray: Bool { physicalType == .byteArray }
    }

    let leaf: Leaf
    let isList: Bool
    /// The schema's nodes for the field, depth first.
    let schemaNodes: [ParquetMetadata.SchemaNode]
    /// The leaf's path from the root.
    let path: [String]
    /// The definition level of a present value (1, or 2 in a list: present list, element).
    var maximumDefinitionLevel: UInt8 { isList ? 2 : 1 }

    init(field: FieldSpec, timestampUnit: ParquetOptions.TimestampUnit) {
        switch field.type {
        case .int64: leaf = .int64
        case .uint64: leaf = .uint64
        case .double: leaf = .double
        case .bool: leaf = .bool
        case .date: leaf = .timestamp
        case .string, .url: leaf = .text
        case .json: leaf = .json
        case .bytes: leaf = .bytes
        case .decimal:
            leaf = .decimal(field.decimalFormat ?? DecimalFormat(precision: DecimalFormat.maximumPrecision))
        case .enumeration:
            switch field.enumStoredKind {
            case .integer: leaf = .enumInteger
            case .number: leaf = .enumNumber
            case .text: leaf = .text
            }
        }
        isList = field.isList
        var element = ParquetMetadata.SchemaNode(name: isList ? "element" : field.name, type: leaf.physicalType,
                                                 repetition: isList ? .required : .optional)
        element.typeLength = leaf.fixedLength
        switch leaf {
        case .int64, .enumInteger:
            element.convertedType = .int64
            element.logicalType = .integer(signed: true)
        case .uint64:
            element.convertedType = .uint64
            element.logicalType = .integer(signed: false)
        case .timestamp:
            element.convertedType = timestampUnit == .microseconds ? .timestampMicros : nil
            element.logicalType = .timestamp(nanoseconds: timestampUnit == .nanoseconds)
        case .text:
            element.convertedType = .utf8
            element.logicalType = .string
        case .json:
            element.convertedType = .json
            element.logicalType = .json
        case .decimal(let format):
            element.convertedType = .decimal
            element.logicalType = .decimal(precision: Int32(format.precision), scale: Int32(format.scale))
            element.precision = Int32(format.precision)
            element.scale = Int32(format.scale)
        case .double, .enumNumber, .bool, .bytes:
            break
        }
        if isList {
            schemaNodes = [
                ParquetMetadata.SchemaNode(name: field.name, repetition: .optional, childCount: 1, convertedType: .list, logicalType: .list),
                ParquetMetadata.SchemaNode(name: "list", repetition: .repeated, childCount: 1),
                element,
            ]
            path = [field.name, "list", "element"]
        } else {
            schemaNodes = [element]
            path = [field.name]
        }
    }
}
