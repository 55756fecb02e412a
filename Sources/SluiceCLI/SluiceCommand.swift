import ArgumentParser

/// `sluice`: map JSON dumps into typed records.
struct SluiceCommand: ParsableCommand {
    /// The release, as `sluice --version` prints it; CHANGELOG.md lists what each one holds.
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "sluice",
        abstract: "Map large JSON dumps into typed records, streaming, in bounded memory.",
        version: SluiceCommand.version,
        subcommands: [ImportCommand.self, MapCommand.self, BenchCommand.self]
    )
}
