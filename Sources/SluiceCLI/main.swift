import ArgumentParser
import Foundation

// ArgumentParser's own errors start "Error:"; every error of this command starts "sluice: error:", whoever found it.
do {
    var command = try SluiceCommand.parseAsRoot()
    try command.run()
} catch {
    let status = SluiceCommand.exitCode(for: error)
    // Help, the version and exits whose reason was printed already end as ArgumentParser ends them.
    if error is ExitCode || status == .success { SluiceCommand.exit(withError: error) }
    var message = SluiceCommand.fullMessage(for: error)
    if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
    FileHandle.standardError.write(Data(("sluice: error: " + message + "\n").utf8))
    exit(status.rawValue)
}
