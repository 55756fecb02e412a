/// The lines of an NDJSON file before its data: those skipped and the header, read from the file's start for a
/// shard that starts past them.
struct Preamble {
    /// The header's column names, when the mapping takes its columns from a header.
    var columnNames: [[UInt8]]?
    /// The offset just past the preamble's last line.
    var end = 0

    /// Reads the first `skipping` lines with content and the header line after them (each at most `limit`
    /// bytes, in the names' case), decompressed when the file is compressed.
    init(of input: Input, skipping: Int, header: Bool, limit: Int, maximumWindow: Int) throws(SluiceError) {
        var source = try Compression.decompressing(input.openRaw(), maximumWindow: maximumWindow)
        var line: [UInt8] = []
        var linesLeft = skipping + (header ? 1 : 0)
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)
        defer { block.deallocate() }
        while linesLeft > 0 {
            let count = try source.read(into: block)
            if count == 0 { break }
            for byte in block[0..<count] where linesLeft > 0 {
                end += 1
                if byte == 0x0A {
                    if line.contains(where: { !ShapeDetector.isWhitespace($0) }) { linesLeft -= 1 }
                    if linesLeft > 0 { line.removeAll(keepingCapacity: true) }
                } else if line.count <= limit {
                    line.append(byte)
                }
            }
        }
        guard header else { return }
        guard linesLeft <= 1, let names = line.withUnsafeBufferPointer({ ColumnHeader.names(inRecordText: $0) }) else {
            throw .invalidInput(source: source.name, message: "the header line (after \(skipping) skipped) is not an array of column names")
        }
        columnNames = names
    }
}
