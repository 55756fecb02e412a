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

    public init(_ handler: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "sluice.signals")
        sources = Self.numbers.map { (number: Int32) -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    /// Hands no more signals on; they stay ignored.
    public func stop() {
        for source in sources { source.cancel() }
    }
}
