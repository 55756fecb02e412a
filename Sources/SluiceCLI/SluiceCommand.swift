import ArgumentParser
import SluiceTerminal

/// `sluice`: map JSON dumps into typed records.
struct SluiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sluice",
        abstract: "Map large JSON dumps into typed records, streaming, in bounded memory.",
        version: Release.version,
        subcommands: [ImportCommand.self, MapCommand.self, CheckCommand.self, InferCommand.self, SplitCommand.self, BenchCommand.self]
    )
}
