#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Sluice
import SluiceWriters

/// Writes each table to Parquet: one file per table, or, with a file size or row limit, a directory of parts per
/// table (`DIR/<table>/part-00000.parquet` onward). Every file is written under a temporary name and renamed into
/// place when the run ends well; a run that fails or is interrupted leaves none of them.
final class ParquetSink: TableSink {
    /// When a table's file ends and the next part begins.
    struct FileLimits {
        var rows: Int?
        var bytes: Int?
        var splitsFiles: Bool { rows != nil || bytes != nil }
    }

    let destinationName: String
    var keepsCheckpoints: Bool { false }
    private let tables: [TableLayout]
    private let options: ParquetOptions
    private let limits: FileLimits
    private let ifExists: FileOutput.ExistingFile
    /// Per table: the file path (one file), or the directory of its parts.
    private let locations: [String]
    private var writers: [(writer: ParquetWriter, output: FileOutput)?]
    private var partCounts: [Int]
    /// Files that are complete, waiting to be renamed into place at the end.
    private var finishedOutputs: [FileOutput] = []
    private(set) var removedPartials: [AbandonedPartial] = []

    init(destination: Destination, tables: [TableLayout], options: ParquetOptions, limits: FileLimits, ifExists: FileOutput.ExistingFile) throws(SluiceError) {
        guard ifExists != .append else {
            throw .invalidOptions("--if-exists append cannot add to a Parquet file (its footer ends it): write a new file, or a directory of parts")
        }
        destinationName = destination.description
        self.tables = tables
        self.options = options
        self.limits = limits
        self.ifExists = ifExists
        if limits.splitsFiles {
            guard case .parquetDirectory(let directory) = destination else {
                throw .invalidOptions("--max-file-rows and --max-file-bytes split a table into parts: write to a directory (--to DIR/)")
            }
            let base = directory.hasSuffix("/") ? directory : directory + "/"
            locations = tables.map { base + $0.name }
        } else {
            locations = destination.filePaths(tables: tables.map(\.name))
        }
        if case .parquetDirectory(let directory) = destination { try Self.makeDirectory(directory) }
        writers = tables.map { _ in nil }
        partCounts = tables.map { _ in 0 }
        // Every table gets a file, even one no record reaches: an empty table is a result too.
        for table in tables.indices { _ = try writer(table) }
    }

    func write(_ batch: ColumnarBatch, rows: Range<Int>, table: Int) throws(SluiceError) {
        var start = rows.lowerBound
        while start < rows.upperBound {
            let (writer, _) = try writer(table)
            var end = rows.upperBound
            if let maximum = limits.rows { end = min(end, start + maximum - writer.rowCount) }
            try writer.write(batch, rows: start..<end)
            start = end
            let isFull = limits.rows.map { writer.rowCount >= $0 } ?? false
                || limits.bytes.map { writer.estimatedFileBytes >= $0 } ?? false
            if isFull { try endFile(table) }
        }
    }

    func reject(_ rejection: Rejection, source: String, table: Int) throws(SluiceError) {}

    func commit(_ checkpoints: [Checkpoint]) throws(SluiceError) {}

    func committedCheckpoints() throws(SluiceError) -> [Checkpoint] { [] }

    func finish(_ checkpoints: [Checkpoint]) throws(SluiceError) {
        for table in tables.indices where writers[table] != nil {
            // A part is not left empty, unless it is the table's only file.
            if let (writer, output) = writers[table], writer.rowCount == 0 && partCounts[table] > 1 {
                output.discard()
                writers[table] = nil
                continue
            }
            try endFile(table)
        }
        for output in finishedOutputs { try output.commit() }
    }

    func abandon() {
        for entry in writers { entry?.output.discard() }
        for output in finishedOutputs { output.discard() }
    }

    var takesBackUncommitted: Bool { writers.allSatisfy { $0?.output.canBeDiscarded ?? true } && finishedOutputs.allSatisfy(\.canBeDiscarded) }

    /// The table's open file, opening the next part if there is none.
    private func writer(_ table: Int) throws(SluiceError) -> (writer: ParquetWriter, output: FileOutput) {
        if let open = writers[table] { return open }
        let path: String
        if limits.splitsFiles {
            if partCounts[table] == 0 { try Self.makeDirectory(locations[table]) }
            path = locations[table] + "/part-" + Self.padded(partCounts[table]) + ".parquet"
        } else {
            path = locations[table]
        }
        let output = try FileOutput(path: path, ifExists: ifExists)
        let writer: ParquetWriter
        do {
            writer = try ParquetWriter(fields: tables[table].fields, output: output, options: options)
        } catch {
            output.discard()
            throw error
        }
        partCounts[table] += 1
        removedPartials += output.removedPartials
        writers[table] = (writer, output)
        return (writer, output)
    }

    /// Writes the table's footer and saves the file, to be renamed into place when the run ends well.
    private func endFile(_ table: Int) throws(SluiceError) {
        guard let (writer, output) = writers[table] else { return }
        writers[table] = nil
        finishedOutputs.append(output)
        try writer.finish()
        try output.seal()
    }

    private static func padded(_ number: Int) -> String {
        let text = String(number)
        return String(repeating: "0", count: max(0, 5 - text.count)) + text
    }

    private static func makeDirectory(_ path: String) throws(SluiceError) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard (status.st_mode & S_IFMT) == S_IFDIR else { throw .write(destination: path, message: "is not a directory") }
            return
        }
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
            throw .write(destination: path, message: "cannot create the directory: " + String(cString: strerror(errno)))
        }
    }
}
