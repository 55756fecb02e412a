import Dispatch
import Foundation

/// Removes files the run made when it ends, also when SIGINT or SIGTERM ends it (with status 128 plus the
/// signal's number, as a shell reports a command the signal ended).
final class InterruptCleanUp: @unchecked Sendable {
    private let paths: [String]
    private var sources: [any DispatchSourceSignal] = []

    init(removing paths: [String]) {
        self.paths = paths
        guard !paths.isEmpty else { return }
        sources = [SIGINT, SIGTERM].map { (number: Int32) -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [paths] in
                for path in paths { try? FileManager.default.removeItem(atPath: path) }
                exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    /// Removes the files now; the signals act as before again.
    func removeNow() {
        for source in sources { source.cancel() }
        for number in [SIGINT, SIGTERM] where !sources.isEmpty { signal(number, SIG_DFL) }
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }
}
