import Sluice

/// Encodes one field's column for the row group being built: data pages of levels and values, compressed as each
/// fills and set aside in the spill until the row group is written out, the chunk's dictionary (text while it stays
/// small), and its statistics.
///
/// A struct, so that the per-value work on its buffers costs no dynamic exclusivity checks (a class's stored
/// properties would take one per access): the writer calls it once per slice of rows.
struct ParquetColumnWriter {
    let layout: ParquetColumnLayout
    private let options: ParquetOptions
    private let compressor: PageCompressor
    private let spill: PageSpill
    private let definitionBitWidth: Int

    // The page being filled. Every row adds a definition level (a list one per element, at least one) and, in a
    // list, as many repetition levels.
    private var definitionLevels: [UInt8] = []
    private var repetitionLevels: [UInt8] = []
    /// Eight-byte values (integers, doubles, timestamps) as their bits.
    private var words: [UInt64] = []
    /// Booleans, packed eight to a byte, least significant bit first.
    private var booleans: [UInt8] = []
    private var booleanCount = 0
    /// Byte arrays in plain encoding, when not dictionary-encoded.
    private var plainBytes: [UInt8] = []
    /// Dictionary indices of the byte arrays of the page.
    private var indices: [UInt32] = []

    // The row group's chunk so far.
    /// Where each finished page, header and compressed bytes, lies in the spill.
    private var pages: [PageSpill.Span] = []
    private var pagesCompressedSize = 0
    private var pagesUncompressedSize = 0
    private var levelCount = 0
    private var dictionary = ByteArrayDictionary()
    /// Whether byte arrays go through the dictionary: until it passes its size limit in a row group.
    private var encodesWithDictionary: Bool
    /// The dictionary passed its limit during the current row: the page ends, and plain encoding starts, at the row's end.
    private var dictionaryIsFull = false
    private var statistics: ColumnStatistics
    private var scratch: [UInt8] = []
    private var elementText: [UInt8] = []

    init(layout: ParquetColumnLayout, options: ParquetOptions, compressor: PageCompressor, spill: PageSpill) {
        self.layout = layout
        self.options = options
        self.compressor = compressor
        self.spill = spill
        definitionBitWidth = RLEHybridEncoder.bitWidth(of: Int(layout.maximumDefinitionLevel))
        encodesWithDictionary = layout.leaf.isByteArray
        let order: ColumnStatistics.Order
        switch layout.leaf {
        case .int64, .timestamp, .enumInteger: order = .signed
        case .uint64, .bool: order = .unsigned
        case .double, .enumNumber: order = .double
        case .text, .json, .bytes: order = .bytes
        case .decimal: order = layout.leaf.fixedLength == nil ? .signed : .signedBigEndian
        }
        statistics = ColumnStatistics(order: order)
    }

    /// About how many bytes the row group holds of this column before compression.
    var bufferedSize: Int {
        pagesUncompressedSize + pageSize + dictionary.plain.count
    }

    /// About how many bytes the page being filled will take.
    private var pageSize: Int {
        definitionLevels.count / 4 + repetitionLevels.count / 4 + words.count * (layout.leaf.physicalType == .int32 ? 4 : 8) + booleans.count + plainBytes.count + indices.count * 2
    }

    // MARK: Rows

    /// Adds the values of `rows` of `column`.
    mutating func append(_ column: ColumnStorage, rows: Range<Int>) throws(SluiceError) {
        for row in rows {
            if dictionaryIsFull || pageSize >= options.pageBytes || definitionLevels.count >= Self.pageLevelLimit { try endPage() }
            guard column.isValid(row) else {
                addNull(level: 0)
                continue
            }
            if layout.isList {
                try appendList(column.textBytes(row))
                continue
            }
            definitionLevels.append(1)
            switch layout.leaf {
            case .int64, .uint64, .double:
                addWord(column.values.assumingMemoryBound(to: UInt64.self)[row])
            case .timestamp:
                addTimestamp(column.values.assumingMemoryBound(to: Int64.self)[row])
            case .bool:
                addBoolean(column.values.assumingMemoryBound(to: UInt8.self)[row] != 0)
            case .text, .json, .bytes:
                addByteArray(column.textBytes(row))
            case .enumInteger, .enumNumber:
                try addNumber(column.textBytes(row))
            case .decimal:
                try addDecimal(column.textBytes(row))
            }
        }
    }

    /// A list's elements, from the JSON array text its column holds.
    private mutating func appendList(_ text: UnsafeBufferPointer<UInt8>) throws(SluiceError) {
        var isFirst = true
        try JSONText.forEachArrayElement(text) { (element) throws(SluiceError) in
            definitionLevels.append(2)
            repetitionLevels.append(isFirst ? 0 : 1)
            isFirst = false
            try addElement(element)
        }
        if isFirst {
            // An empty list: defined, with no element.
            definitionLevels.append(1)
            repetitionLevels.append(0)
            statistics.nullCount += 1
        }
    }

    /// One element of a list, as its JSON text (what ``ListElementText`` wrote).
    private mutating func addElement(_ text: UnsafeBufferPointer<UInt8>) throws(SluiceError) {
        switch layout.leaf {
        case .json:
            addByteArray(text)
        case .bool:
            addBoolean(text.first == UInt8(ascii: "t"))
        case .int64, .uint64, .double, .enumInteger, .enumNumber:
            try addNumber(Self.unquoted(text))
        case .decimal:
            try addDecimal(text)
        case .text, .timestamp, .bytes:
            elementText.removeAll(keepingCapacity: true)
            guard JSONText.appendUnescaped(text, { elementText.append($0) }) else { throw Self.unreadable(text) }
            try elementText.withUnsafeBufferPointer { (content) throws(SluiceError) in
                switch layout.leaf {
                case .timestamp:
                    guard let base = content.baseAddress, case .instant(let nanoseconds) = CompiledDateFormat.iso8601.parse(base, content.count) else {
                        throw Self.unreadable(text)
                    }
                    addTimestamp(nanoseconds)
                case .bytes:
                    scratch.removeAll(keepingCapacity: true)
                    if let base = content.baseAddress { Base64.decode(base, content.count) { scratch.append($0) } }
                    scratch.withUnsafeBufferPointer { addByteArray($0) }
                default:
                    addByteArray(content)
                }
            }
        }
    }

    /// A number from its text: an enum's stored value, or a list's element (an enum's in quotes).
    private mutating func addNumber(_ text: UnsafeBufferPointer<UInt8>) throws(SluiceError) {
        guard let base = text.baseAddress else { throw Self.unreadable(text) }
        switch layout.leaf {
        case .int64, .enumInteger:
            guard case .value(let value) = NumberConversion.int64(base, text.count) else { throw Self.unreadable(text) }
            addWord(UInt64(bitPattern: value))
        case .uint64:
            guard case .value(false, let magnitude) = NumberConversion.exactInteger(base, text.count) else { throw Self.unreadable(text) }
            addWord(magnitude)
        default:
            guard let value = NumberConversion.double(base, text.count) else { throw Self.unreadable(text) }
            addWord(value.bitPattern)
        }
    }

    /// A decimal from its canonical text (``DecimalFormat``), as its unscaled integer: the text's digits with
    /// the point left out.
    private mutating func addDecimal(_ text: UnsafeBufferPointer<UInt8>) throws(SluiceError) {
        var unscaled: Int128 = 0
        var digitCount = 0
        let isNegative = text.first == UInt8(ascii: "-")
        for byte in text.dropFirst(isNegative ? 1 : 0) where byte != UInt8(ascii: ".") {
            let digit = byte &- 0x30
            guard digit <= 9 else { throw Self.unreadable(text) }
            // Leading zeros (`0.05`) are not digits of the precision.
            if unscaled == 0 && digit == 0 { continue }
            digitCount += 1
            guard digitCount <= DecimalFormat.maximumPrecision else { throw Self.unreadable(text) }
            unscaled = unscaled * 10 + Int128(digit)
        }
        if isNegative { unscaled = -unscaled }
        guard let width = layout.leaf.fixedLength else {
            // Up to 18 digits: an Int64, written as 4 bytes where the precision allows (see `endPage`).
            addWord(UInt64(bitPattern: Int64(truncatingIfNeeded: unscaled)))
            return
        }
        let start = plainBytes.count
        for index in stride(from: width - 1, through: 0, by: -1) {
            plainBytes.append(UInt8(truncatingIfNeeded: unscaled >> (8 * index)))
        }
        plainBytes.withUnsafeBufferPointer { statistics.observe(UnsafeBufferPointer(rebasing: $0[start...])) }
    }

    private static func unquoted(_ text: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        guard text.count >= 2, text.first == UInt8(ascii: "\""), text.last == UInt8(ascii: "\"") else { return text }
        return UnsafeBufferPointer(rebasing: text[1..<text.count - 1])
    }

    private static func unreadable(_ text: UnsafeBufferPointer<UInt8>) -> SluiceError {
        .write(destination: "parquet", message: "a list element, enum value or decimal could not be read back: \(String(decoding: text.prefix(80), as: UTF8.self))")
    }

    // MARK: Values

    private mutating func addNull(level: UInt8) {
        definitionLevels.append(level)
        if layout.isList { repetitionLevels.append(0) }
        statistics.nullCount += 1
    }

    @inline(__always)
    private mutating func addWord(_ bits: UInt64) {
        words.append(bits)
        statistics.observe(bits)
    }

    @inline(__always)
    private mutating func addTimestamp(_ nanoseconds: Int64) {
        switch options.timestampUnit {
        case .nanoseconds: addWord(UInt64(bitPattern: nanoseconds))
        case .microseconds:
            // Floored, so that an instant before 1970 does not move forward.
            let (quotient, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1000)
            addWord(UInt64(bitPattern: remainder < 0 ? quotient - 1 : quotient))
        }
    }

    private mutating func addBoolean(_ value: Bool) {
        if booleanCount & 7 == 0 { booleans.append(0) }
        if value { booleans[booleans.count - 1] |= 1 << UInt8(booleanCount & 7) }
        booleanCount += 1
        statistics.observe(value ? 1 : 0)
    }

    private mutating func addByteArray(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard encodesWithDictionary else {
            var length = UInt32(bytes.count).littleEndian
            withUnsafeBytes(of: &length) { plainBytes.append(contentsOf: $0) }
            plainBytes.append(contentsOf: bytes)
            statistics.observe(bytes)
            return
        }
        let (index, isNew) = dictionary.index(of: bytes)
        indices.append(UInt32(index))
        if isNew {
            statistics.observe(bytes)
            if dictionary.plain.count > options.dictionaryBytes { dictionaryIsFull = true }
        }
    }

    // MARK: Pages

    /// Readers index a page's levels with 32-bit counts, and smaller pages skip better: a page ends by this many.
    private static let pageLevelLimit = 20_000

    /// Compresses the page being filled onto the chunk.
    private mutating func endPage() throws(SluiceError) {
        defer {
            if dictionaryIsFull {
                encodesWithDictionary = false
                dictionaryIsFull = false
            }
        }
        guard !definitionLevels.isEmpty else { return }
        scratch.removeAll(keepingCapacity: true)
        if layout.isList { appendLevels(repetitionLevels, bitWidth: 1) }
        appendLevels(definitionLevels, bitWidth: definitionBitWidth)
        let encoding: ParquetMetadata.Encoding
        switch layout.leaf.physicalType {
        case .int64, .double:
            words.withUnsafeBytes { scratch.append(contentsOf: $0) }
            encoding = .plain
        case .int32:
            for word in words {
                withUnsafeBytes(of: UInt32(truncatingIfNeeded: word).littleEndian) { scratch.append(contentsOf: $0) }
            }
            encoding = .plain
        case .fixedLengthByteArray:
            scratch.append(contentsOf: plainBytes)
            encoding = .plain
        case .boolean:
            scratch.append(contentsOf: booleans)
            encoding = .plain
        case .byteArray:
            // A page of nulls only is plain (and empty): dictionary-encoded, it would need a dictionary page that a
            // chunk of nulls only does not have, and pyarrow and polars refuse the whole file then.
            if encodesWithDictionary && !indices.isEmpty {
                let bitWidth = max(1, RLEHybridEncoder.bitWidth(of: dictionary.count - 1))
                scratch.append(UInt8(bitWidth))
                indices.withUnsafeBufferPointer { RLEHybridEncoder.encode($0, bitWidth: bitWidth, to: &scratch) }
                encoding = .rleDictionary
            } else {
                scratch.append(contentsOf: plainBytes)
                encoding = .plain
            }
        }
        let kind = ParquetMetadata.PageKind.data(valueCount: Int32(definitionLevels.count), encoding: encoding)
        let page = try compressedPage(kind)
        pagesCompressedSize += page.count
        let spill = spill
        let span = page.withUnsafeBytes { bytes in Result { () throws(SluiceError) in try spill.append(bytes) } }
        pages.append(try span.get())
        levelCount += definitionLevels.count
        definitionLevels.removeAll(keepingCapacity: true)
        repetitionLevels.removeAll(keepingCapacity: true)
        words.removeAll(keepingCapacity: true)
        booleans.removeAll(keepingCapacity: true)
        booleanCount = 0
        plainBytes.removeAll(keepingCapacity: true)
        indices.removeAll(keepingCapacity: true)
    }

    /// Levels with the 4-byte length that precedes them in a version 1 data page.
    private mutating func appendLevels(_ levels: [UInt8], bitWidth: Int) {
        let lengthAt = scratch.count
        scratch.append(contentsOf: [0, 0, 0, 0])
        levels.withUnsafeBufferPointer { RLEHybridEncoder.encode($0, bitWidth: bitWidth, to: &scratch) }
        let length = UInt32(scratch.count - lengthAt - 4)
        for index in 0..<4 { scratch[lengthAt + index] = UInt8(truncatingIfNeeded: length >> (8 * index)) }
    }

    /// `body` (by default `scratch`) compressed as a page of `kind`, after its header.
    private mutating func compressedPage(_ kind: ParquetMetadata.PageKind, body: [UInt8]? = nil) throws(SluiceError) -> [UInt8] {
        let page = body ?? scratch
        guard page.count <= Int32.max else {
            throw .write(destination: "parquet", message: "a page of \(page.count) bytes is larger than the format's 2 GiB limit")
        }
        let compressor = compressor
        let encoded = page.withUnsafeBytes { raw in
            Result { () throws(SluiceError) in
                let compressed = try compressor.compress(raw)
                let header = ParquetMetadata.pageHeader(kind, uncompressedSize: raw.count, compressedSize: compressed.count)
                return (header + compressed, header.count)
            }
        }
        let (bytes, headerSize) = try encoded.get()
        pagesUncompressedSize += headerSize + page.count
        return bytes
    }

    // MARK: Chunks

    /// Ends the row group's chunk: writes its dictionary page (if any) and data pages to `output`, starting at file
    /// offset `offset`, and returns the chunk's metadata. The column then starts a new chunk.
    mutating func writeChunk(to output: FileOutput, at offset: Int) throws(SluiceError) -> ParquetMetadata.ColumnChunk {
        try endPage()
        var dictionaryPage: [UInt8] = []
        let usesDictionary = layout.leaf.isByteArray && dictionary.count > 0
        if usesDictionary {
            dictionaryPage = try compressedPage(.dictionary(valueCount: Int32(dictionary.count)), body: dictionary.plain)
            try output.write(dictionaryPage)
        }
        try spill.copy(pages, to: output)
        // A dictionary page is plain-encoded, so plain is always among them.
        let encodings: [ParquetMetadata.Encoding] = usesDictionary ? [.plain, .rle, .rleDictionary] : [.plain, .rle]
        let chunk = ParquetMetadata.ColumnChunk(
            type: layout.leaf.physicalType, encodings: encodings, path: layout.path, codec: compressor.compression,
            valueCount: Int64(levelCount), uncompressedSize: Int64(pagesUncompressedSize),
            compressedSize: Int64(dictionaryPage.count + pagesCompressedSize),
            dataPageOffset: Int64(offset + dictionaryPage.count), dictionaryPageOffset: usesDictionary ? Int64(offset) : nil,
            statistics: statistics.metadata(type: layout.leaf.physicalType))
        pages.removeAll()
        pagesCompressedSize = 0
        pagesUncompressedSize = 0
        levelCount = 0
        dictionary.removeAll()
        encodesWithDictionary = layout.leaf.isByteArray
        statistics.reset()
        return chunk
    }
}
