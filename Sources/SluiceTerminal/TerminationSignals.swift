import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM handed to a handler, one at a time, instead of ending the process; what ending means is
/// the program's to decide.
public final class TerminationSignals {
    public static let numbers: [Int32] = [SIGINT, SIGTERM]
    private let sources: [any DispatchSourceSignal]

    /// Returns once the signals are handed to `handler`: a signal that arrives before then ends the process as it
    /// would have, none is lost.
    public init(_ handler: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "sluice.signals")
        sources = Self.numbers.map { (number: Int32) -> any DispatchSourceSignal in
            #if !os(Linux)
            // kqueue sees a signal the process ignores; without SIG_IGN the default action would end it.
            signal(number, SIG_IGN)
            #endif
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
        #if os(Linux)
        // libdispatch registers a source on its manager thread, later, and only then installs the handler that
        // takes the signal to it. A signal ignored meanwhile (SIG_IGN, as on Darwin) would be lost, and a run told
        // to stop would go on to its end: the default action stays until libdispatch's handler replaces it.
        for number in Self.numbers { Self.waitForHandler(of: number) }
        #endif
    }

    /// Hands no more signals on; they stay ignored.
    public func stop() {
        for source in sources { source.cancel() }
        for number in Self.numbers { signal(number, SIG_IGN) }
    }

    #if os(Linux)
    /// Waits, a second at most, until something other than the default action handles `number`.
    private static func waitForHandler(of number: Int32) {
        for _ in 0..<10_000 {
            var current = sigaction()
            guard sigaction(number, nil, &current) == 0 else { return }
            if current.__sigaction_handler.sa_handler != nil { return }
            usleep(100)
        }
    }
    #endif
}
