import Foundation

/// The column names of CSV-like array records, read from the header record by whichever machine meets it and
/// waited for by the others (the parallel pipeline's workers map later chunks while the first is still mapped).
final class ColumnHeader: @unchecked Sendable {
    private let condition = NSCondition()
    private var names: [[UInt8]]?
    private var hasFailed = false

    /// Makes the names known to every waiting machine.
    func publish(_ names: [[UInt8]]) {
        condition.lock()
        self.names = names
        condition.broadcast()
        condition.unlock()
    }

    /// Tells waiting machines there will be no names (the header was not an array of strings, or the run ended).
    func fail() {
        condition.lock()
        hasFailed = true
        condition.broadcast()
        condition.unlock()
    }

    /// The names, once published; nil if the header failed.
    func waitForNames() -> [[UInt8]]? {
        condition.lock()
        defer { condition.unlock() }
        while names == nil && !hasFailed { condition.wait() }
        return names
    }

    /// The column names in a header record's JSON text, or nil unless it is an array of strings.
    static func names(inRecordText text: UnsafeBufferPointer<UInt8>) -> [[UInt8]]? {
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(buffer: text)), let strings = parsed as? [String] else { return nil }
        return strings.map { Array($0.utf8) }
    }
}
