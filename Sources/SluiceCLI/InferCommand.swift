import ArgumentParser
import Sluice
import SluiceTerminal

/// `sluice infer`: a starter mapping file from a sample of an input.
struct InferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "infer",
        abstract: "Write a starter mapping file from a sample of an input.",
        discussion: """
            Reads the first records of INPUT (10,000 by default) and prints a mapping file that sluice import and \
            sluice map accept as it is: one field per key path, typed by the values seen (integers, doubles, \
            Booleans, dates in ISO 8601, RFC 2822, Twitter's format or epoch numbers, URLs, base64, arrays of \
            scalars as lists, arrays of objects as child tables with --tables, small sets of text as enums with \
            --enums, anything else as json), optional where a \
            value was null or missing. Check it before relying on it: a sample shows only what it holds. A \
            document that wraps its records gets a hint naming the arrays --records-at could read.
            """
    )

    @Argument(help: ArgumentHelp("The JSON input ('-' for standard input).", valueName: "input"))
    var input: String

    @Option(name: .customLong("sample"), parsing: .unconditional, help: ArgumentHelp("How many records to read (1 to 10,000,000).", valueName: "records"))
    var sampleSize = 10_000

    @Option(name: .customLong("records-at"), help: ArgumentHelp("The key path of the records inside a wrapper document.", valueName: "path"))
    var recordsAt: String?

    @Option(name: [.customLong("input-format"), .customLong("format")], help: ArgumentHelp("ndjson, array, concatenated, document or automatic.", valueName: "shape"))
    var inputFormat: InputShape = .automatic

    @Flag(name: .customLong("enums"), help: "Make a small set of text values seen often an enum (a string otherwise: the next file may hold a value the sample did not).")
    var infersEnums = false

    @Flag(name: .customLong("tables"), help: "Make an array of objects a child table of its objects' keys (one row per element), instead of one json column.")
    var infersTables = false

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write the mapping file to FILE instead of standard output.", valueName: "file"))
    var output: String?

    func validate() throws {
        try ReadingOptions.check("--sample", sampleSize, 1...10_000_000, "records")
    }

    func run() throws {
        let inferred = try InferredMapping(input: input == "-" ? .standardInput : .file(input), sampleSize: sampleSize, recordsPath: recordsAt, shape: inputFormat,
                                           infersEnums: infersEnums, infersTables: infersTables)
        if let widest = inferred.recordArrays.first {
            let others = inferred.recordArrays.dropFirst().prefix(2).map { "\($0.path) (\(CountText.grouped($0.objects)))" }
            StandardError.print("sluice: the input looks like a document wrapping its records: \(widest.path) holds \(CountText.grouped(widest.objects)) objects"
                + (others.isEmpty ? "" : ", and so do \(others.joined(separator: ", "))") + "; to map those, run again with --records-at \(widest.path)")
        }
        guard let output else {
            print(inferred.mappingText, terminator: "")
            return
        }
        // Written whole or not at all, replacing a file of that name, as `sluice map -o` does.
        let file = try OutputFiles.replacing(output)
        try file.write(inferred.mappingText)
        try file.commit()
    }
}
