import Foundation
import SluiceTerminal

/// Removes files the run made when it ends, also when SIGINT or SIGTERM ends it (with status 128 plus the
/// signal's number, as a shell reports a command the signal ended).
final class InterruptCleanUp {
    private let paths: [String]
    private let signals: TerminationSignals?

    init(removing paths: [String]) {
        self.paths = paths
        signals = paths.isEmpty ? nil : TerminationSignals { [paths] number in
            for path in paths { try? FileManager.default.removeItem(atPath: path) }
            exit(128 + number)
        }
    }

    /// Removes the files now; the signals act as before again.
    func removeNow() {
        if let signals {
            signals.stop()
            for number in TerminationSignals.numbers { signal(number, SIG_DFL) }
        }
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }
}
