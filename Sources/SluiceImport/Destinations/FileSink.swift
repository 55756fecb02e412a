import Sluice
import SluiceWriters

/// Writes each table to a file of its own, CSV, TSV or NDJSON, or NDJSON to standard output. Files are written
/// under temporary names and renamed into place when the run finishes; a run that fails or is interrupted
/// leaves none of them behind (and a file appended to is cut back to its old length).
final class FileSink: TableSink {
    /// The text formats.
    enum Format {
        case csv(delimiter: UInt8, nullText: String)
        case ndjson
    }

    let destinationName: String
    var keepsCheckpoints: Bool { false }
    private let outputs: [FileOutput]
    private var csvWriters: [CSVWriter] = []
    private var ndjsonWriters: [NDJSONWriter] = []

    /// `paths` holds one path per table, or is empty for NDJSON on standard output (one table).
    init(destinationName: String, tables: [TableLayout], paths: [String], format: Format, ifExists: FileOutput.ExistingFile) throws(SluiceError) {
        self.destinationName = destinationName
        if paths.isEmpty {
            outputs = [FileOutput.standardOutput()]
        } else {
            var opened: [FileOutput] = []
            for path in paths {
                do {
                    opened.append(try FileOutput(path: path, ifExists: ifExists))
                } catch {
                    for output in opened { output.discard() }
                    throw error
                }
            }
            outputs = opened
        }
        for (table, output) in zip(tables, outputs) {
            switch format {
            case .csv(let delimiter, let nullText):
                // A file appended to has its header already.
                csvWriters.append(try CSVWriter(fields: table.fields, output: output, delimiter: delimiter, nullText: nullText, writesHeader: !output.hadContent))
            case .ndjson:
                ndjsonWriters.append(NDJSONWriter(fields: table.fields, output: output))
            }
        }
    }

    func write(_ batch: ColumnarBatch, rows: Range<Int>, table: Int) throws(SluiceError) {
        if csvWriters.isEmpty {
            try ndjsonWriters[table].write(batch, rows: rows)
        } else {
            try csvWriters[table].write(batch, rows: rows)
        }
        // A stream cannot take back what it was given: each batch is handed over whole before its records count
        // as written, so that a write the stream refuses (a closed pipe) loses only that batch, and says so.
        if !outputs[table].canBeDiscarded { try outputs[table].flush() }
    }

    var removedPartials: [AbandonedPartial] { outputs.flatMap(\.removedPartials) }

    func reject(_ rejection: Rejection, source: String, table: Int) throws(SluiceError) {}

    func commit(_ checkpoints: [Checkpoint]) throws(SluiceError) {}

    func committedCheckpoints() throws(SluiceError) -> [Checkpoint] { [] }

    func finish(_ checkpoints: [Checkpoint]) throws(SluiceError) {
        for output in outputs { try output.commit() }
    }

    func abandon() {
        for output in outputs { output.discard() }
    }

    var takesBackUncommitted: Bool { outputs.allSatisfy(\.canBeDiscarded) }
}
