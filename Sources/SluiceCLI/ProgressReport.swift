import SluiceTerminal
import Foundation
import Sluice

/// How far `sluice map` has come, on standard error: a status line redrawn ten times a second while standard
/// error is a terminal, and, when asked, a plain line every so many seconds that a job's log keeps (with a last
/// one per input when it is done).
final class ProgressReport: @unchecked Sendable {
    private let statusLine = StatusLine()
    private let drawsStatusLine: Bool
    private let lineInterval: Double?
    private let timer: DispatchSourceTimer?
    // Guarded by `lock`: what is watched, and when the last plain line was written.
    private let lock = NSLock()
    private var monitor: ProgressMonitor?
    private var label = ""
    private var lastLine = DispatchTime.now()

    /// - Parameters:
    ///   - lineInterval: Seconds between plain lines, or `nil` for none.
    ///   - quiet: Nothing at all, not even the status line.
    init(lineInterval: Double?, quiet: Bool) {
        drawsStatusLine = !quiet && isatty(2) == 1
        self.lineInterval = quiet ? nil : lineInterval
        guard drawsStatusLine || self.lineInterval != nil else {
            timer = nil
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "sluice.progress"))
        let tick = drawsStatusLine ? 0.1 : min(self.lineInterval ?? 1, 1)
        timer.schedule(deadline: .now() + tick, repeating: tick)
        self.timer = timer
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
    }

    /// Reports on `monitor` from now on, as `label` (the input's place among all and its name).
    func watch(_ monitor: ProgressMonitor, label: String) {
        lock.lock()
        self.monitor = monitor
        self.label = label
        lock.unlock()
    }

    /// Ends the report of the input watched: its last plain line, and the status line cleared.
    func finishInput() {
        lock.lock()
        defer { lock.unlock() }
        if drawsStatusLine { statusLine.clear() }
        if let monitor, lineInterval != nil { StandardError.print(Self.describe(monitor.snapshot, label: label)) }
        monitor = nil
    }

    /// Writes a line of its own (a rejection) without the status line running into it.
    func print(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        if drawsStatusLine && monitor != nil { statusLine.clear() }
        StandardError.print(line)
    }

    /// Stops the timer; every input watched was finished by ``finishInput()``, so nothing is drawn after this.
    func stop() {
        timer?.cancel()
    }

    private func tick() {
        lock.lock()
        defer { lock.unlock() }
        guard let monitor else { return }
        let text = Self.describe(monitor.snapshot, label: label)
        if drawsStatusLine { statusLine.show(text) }
        if let lineInterval, Double(DispatchTime.now().uptimeNanoseconds - lastLine.uptimeNanoseconds) / 1e9 >= lineInterval {
            lastLine = .now()
            if drawsStatusLine { statusLine.clear() }
            StandardError.print(text)
        }
    }

    /// `[1/3] dump.ndjson.zst → out.db: 1.23 GB of 4.00 GB (30.8 %), 1,234,567 records, 3 rejected, 95,000 rows/s, 510 MB/s of JSON, 0:15 left`
    ///
    /// Sizes and the time left are in the input's bytes as stored (compressed, for a compressed input); the rate is
    /// of the JSON itself, so that a compressed input's pace compares with a plain one's.
    static func describe(_ snapshot: ProgressMonitor.Snapshot, label: String) -> String {
        var text = label + ": " + CountText.bytes(snapshot.bytesRead)
        if let total = snapshot.totalBytes, let fraction = snapshot.fractionDone {
            text += " of " + CountText.bytes(total) + " (" + String(format: "%.1f", fraction * 100) + " %)"
        } else {
            text += " read"
        }
        text += ", " + CountText.grouped(snapshot.recordsRead) + " records, " + CountText.grouped(snapshot.recordsRejected) + " rejected"
        text += ", " + CountText.grouped(Int(snapshot.recordsMappedPerSecond)) + " rows/s, " + String(format: "%.0f", snapshot.jsonBytesPerSecond / 1e6) + " MB/s of JSON"
        if snapshot.isFinished {
            text += ", done in " + duration(snapshot.elapsedSeconds)
        } else if let total = snapshot.totalBytes, snapshot.bytesPerSecond > 0, total > snapshot.bytesRead {
            text += ", " + duration(Double(total - snapshot.bytesRead) / snapshot.bytesPerSecond) + " left"
        }
        return text
    }

    private static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }
}
