import ArgumentParser
import Foundation

extension ParsableCommand {
    /// Parses the process's arguments and runs the command, then exits. ArgumentParser's own errors start
    /// "Error:"; every error of a Sluice program starts "NAME: error:", whoever found it, and exits with the
    /// status the error asks for.
    public static func runAsProgram(named name: String) -> Never {
        do {
            var command = try parseAsRoot()
            try command.run()
            Foundation.exit(0)
        } catch {
            let status = exitCode(for: error)
            // Help, the version and exits whose reason was printed already end as ArgumentParser ends them.
            if error is ExitCode || status == .success { exit(withError: error) }
            var message = fullMessage(for: error)
            if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
            StandardError.print(name + ": error: " + message)
            Foundation.exit(status.rawValue)
        }
    }
}
