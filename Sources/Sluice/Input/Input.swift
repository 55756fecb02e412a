/// An input to read records from.
public enum Input: Sendable, Hashable {
    /// A file, by path.
    case file(String)
    /// The process's standard input (a pipe, a redirected file).
    case standardInput
    /// Bytes already in memory; `name` is how errors refer to them.
    case bytes([UInt8], name: String = "<memory>")

    /// Opens the input; gzip, zstd, bzip2 and xz data (recognised by their first bytes, whatever the name) are
    /// decompressed as they are read, and archives and formats Sluice does not read are refused by name.
    func open() throws(SluiceError) -> any ByteSource {
        try Compression.decompressing(try openRaw())
    }

    /// Whether the input is bytes in memory, which can be opened again and read the same.
    var holdsItsBytes: Bool {
        if case .bytes = self { return true }
        return false
    }

    func openRaw() throws(SluiceError) -> any ByteSource {
        switch self {
        case .file(let path): return try FileSource(path: path)
        case .standardInput: return FileSource(descriptor: 0, name: "<stdin>")
        case .bytes(let bytes, let name): return MemorySource(bytes: bytes, name: name)
        }
    }
}
