import ArgumentParser
import Foundation

/// `sluice bench`: runs the benchmark harness, `sluice-bench`, from the folder `sluice` was run from. The harness is
/// a program of its own so that the `sluice` people install does not carry the benchmark contenders.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure Sluice against the alternatives (runs sluice-bench; see sluice bench --help).",
        discussion: """
            The benchmark harness is built apart from sluice: swift build -c release --product sluice-bench. \
            Every argument is passed to it.
            """
    )

    @Argument(parsing: .captureForPassthrough, help: "The arguments of sluice-bench.")
    var arguments: [String] = []

    func run() throws {
        let folder = Bundle.main.executableURL?.deletingLastPathComponent() ?? URL(fileURLWithPath: ".")
        let harness = folder.appendingPathComponent("sluice-bench").path
        guard FileManager.default.isExecutableFile(atPath: harness) else {
            throw HarnessError(message: "the benchmark harness is not installed next to sluice (\(harness)); build it with: swift build -c release --product sluice-bench")
        }
        let argv = ([harness] + arguments).map { strdup($0) } + [nil]
        execv(harness, argv)
        throw HarnessError(message: "cannot run \(harness): \(String(cString: strerror(errno)))")
    }
}

/// The harness is missing or cannot run: not a usage error, so no usage is printed, and the status is 1.
struct HarnessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
