import Sluice

/// Writes Thrift's compact protocol, the encoding of Parquet's page headers and footer: field headers that carry
/// the id as a delta from the previous field's, zigzag varints, length-prefixed binaries and lists.
struct ThriftCompactWriter {
    /// The compact protocol's type codes of a field header.
    enum FieldType: UInt8 {
        case boolTrue = 1, boolFalse = 2, byte = 3, i16 = 4, i32 = 5, i64 = 6, double = 7, binary = 8, list = 9, set = 10, map = 11, structure = 12
    }

    private(set) var bytes: [UInt8] = []
    /// The last field id written in each open struct: ids are written as deltas from it.
    private var lastFieldIDs: [Int16] = [0]

    init() {}

    mutating func i16(_ id: Int16, _ value: Int16) {
        header(id, .i16)
        varint(zigzag(Int64(value)))
    }

    mutating func i32(_ id: Int16, _ value: Int32) {
        header(id, .i32)
        varint(zigzag(Int64(value)))
    }

    mutating func i64(_ id: Int16, _ value: Int64) {
        header(id, .i64)
        varint(zigzag(value))
    }

    /// An `i8` field (an integer annotation's bit width).
    mutating func byte(_ id: Int16, _ value: Int8) {
        header(id, .byte)
        bytes.append(UInt8(bitPattern: value))
    }

    /// A bool field, whose value is the header's type.
    mutating func bool(_ id: Int16, _ value: Bool) {
        header(id, value ? .boolTrue : .boolFalse)
    }

    mutating func binary(_ id: Int16, _ value: some Collection<UInt8>) {
        header(id, .binary)
        lengthPrefixed(value)
    }

    mutating func string(_ id: Int16, _ value: String) {
        binary(id, Array(value.utf8))
    }

    /// A struct field: `body` writes its fields; the stop byte follows.
    mutating func structure(_ id: Int16, _ body: (inout ThriftCompactWriter) -> Void) {
        header(id, .structure)
        structBody(body)
    }

    /// A list of `i32` values (enums).
    mutating func i32List(_ id: Int16, _ values: [Int32]) {
        listHeader(id, .i32, count: values.count)
        for value in values { varint(zigzag(Int64(value))) }
    }

    mutating func stringList(_ id: Int16, _ values: [String]) {
        listHeader(id, .binary, count: values.count)
        for value in values { lengthPrefixed(value.utf8) }
    }

    /// A binary's body: its length, then its bytes.
    private mutating func lengthPrefixed(_ value: some Collection<UInt8>) {
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A list of structs, each written by `body`.
    mutating func structList<Element>(_ id: Int16, _ elements: [Element], _ body: (inout ThriftCompactWriter, Element) -> Void) {
        listHeader(id, .structure, count: elements.count)
        for element in elements { structBody { body(&$0, element) } }
    }

    /// The stop byte that ends the outermost struct.
    mutating func stop() {
        bytes.append(0)
    }

    private mutating func structBody(_ body: (inout ThriftCompactWriter) -> Void) {
        lastFieldIDs.append(0)
        body(&self)
        bytes.append(0)
        lastFieldIDs.removeLast()
    }

    private mutating func listHeader(_ id: Int16, _ elementType: FieldType, count: Int) {
        header(id, .list)
        if count < 15 {
            bytes.append(UInt8(count) << 4 | elementType.rawValue)
        } else {
            bytes.append(0xF0 | elementType.rawValue)
            varint(UInt64(count))
        }
    }

    private mutating func header(_ id: Int16, _ type: FieldType) {
        let delta = Int(id) - Int(lastFieldIDs[lastFieldIDs.count - 1])
        if delta > 0 && delta <= 15 {
            bytes.append(UInt8(delta) << 4 | type.rawValue)
        } else {
            bytes.append(type.rawValue)
            varint(zigzag(Int64(id)))
        }
        lastFieldIDs[lastFieldIDs.count - 1] = id
    }

    private func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    private mutating func varint(_ value: UInt64) {
        Varint.append(value, to: &bytes)
    }
}
