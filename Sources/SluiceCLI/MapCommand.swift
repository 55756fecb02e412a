import ArgumentParser
import Foundation
import Sluice
import SluiceImport

/// `sluice map`: read inputs through a mapping file and write the mapped records as NDJSON; an import whose
/// destination is standard output, a file, or a file per mapping.
struct MapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Map JSON records through a mapping file and write them as NDJSON on standard output.",
        discussion: """
            Rejected records are reported on standard error (the first ones, then a count by kind) and, with \
            --rejects, written to a file as NDJSON with their location, every failure and their raw text.

            Exit status: 0 every record mapped; 2 finished, some records rejected; 1 the run stopped on an error; \
            130 interrupted; 64 a usage error.
            """
    )

    @OptionGroup var reading: ReadingOptions

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write to FILE instead of standard output (it appears only when the run ends well).", valueName: "file"))
    var output: String?

    @Option(name: .customLong("output-dir"), help: ArgumentHelp("Write each mapping's records to DIR/<mapping file name>.ndjson instead of standard output.", valueName: "dir"))
    var outputDirectory: String?

    @Option(name: .customLong("on-reject"), help: ArgumentHelp("stop: end at the first rejected record (as --max-rejects 0); collect: report it and go on.", valueName: "policy"))
    var onReject: RejectionPolicy = .collect

    func validate() throws {
        if reading.mapping.count > 1 && outputDirectory == nil {
            throw ValidationError("Several mappings write one file each: give --output-dir.")
        }
        if output != nil && outputDirectory != nil { throw ValidationError("Give --output or --output-dir, not both.") }
    }

    func run() throws {
        try ImportRunner.run(options: reading, job: makeJob)
    }

    private func makeJob() throws(SluiceError) -> ImportJob {
        let names = reading.tableNames
        if Set(names).count != names.count { throw .invalidOptions("two mappings would both write the same file name") }
        let destination: Destination
        if let outputDirectory {
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: outputDirectory, isDirectory: &isDirectory) {
                do {
                    try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
                } catch {
                    throw .write(destination: outputDirectory, message: "cannot create the directory")
                }
            } else if !isDirectory.boolValue {
                throw .write(destination: outputDirectory, message: "is not a directory")
            }
            destination = .ndjsonDirectory(outputDirectory)
        } else {
            destination = .ndjson(path: output)
        }
        let schemas = try reading.schemas()
        var job = ImportJob(inputs: reading.inputNames, schemas: schemas,
                            tables: zip(schemas, names).map { TableLayout(name: $1, fields: $0.fields) }, destination: destination)
        job.readerOptions = try reading.readerOptions(schemas: schemas)
        job.ifExists = .replace
        job.rejectLimit = onReject == .stop ? .count(0) : reading.maxRejects.flatMap(RejectLimit.init(parsing:))
        job.recordLimit = reading.limit
        return job
    }
}

extension RejectionPolicy: ExpressibleByArgument {}
