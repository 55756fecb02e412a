#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One status line on standard error while a run goes on, redrawn in place, when standard error is a terminal.
public final class StatusLine: @unchecked Sendable {
    private let isTerminal = isatty(2) == 1

    public init() {}

    /// Replaces the line with `text`.
    public func show(_ text: String) {
        guard isTerminal else { return }
        StandardError.print("\r\u{1B}[2K" + text, terminator: "")
    }

    /// Erases the line, so that what is printed next starts at the line's beginning.
    public func clear() {
        guard isTerminal else { return }
        StandardError.print("\r\u{1B}[2K", terminator: "")
    }
}
