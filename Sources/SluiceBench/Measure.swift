import Foundation

/// The measurements every benchmark program here takes, done one way.
public enum Measure {
    /// Wall-clock seconds that `body` takes.
    public static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// CPU seconds this process has used so far, user and system, over all its threads.
    public static func cpuSeconds() -> Double {
        cpuSeconds(of: RUSAGE_SELF)
    }

    /// Runs `arguments` (the first found on the `PATH`) with its output thrown away and waits for it: its wall
    /// seconds, process start included, and the CPU seconds it used.
    /// - Throws: ``BenchError`` naming the command, its status and its messages, for a status not in `allowed`.
    public static func command(_ arguments: [String], allowed: Set<Int32> = [0], environment: [String: String]? = nil) throws -> (seconds: Double, cpuSeconds: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        if let environment { process.environment = environment }
        let cpuBefore = cpuSeconds(of: RUSAGE_CHILDREN)
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard allowed.contains(process.terminationStatus) else {
            throw BenchError("\(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(String(decoding: message, as: UTF8.self))")
        }
        return (seconds, cpuSeconds(of: RUSAGE_CHILDREN) - cpuBefore)
    }

    /// CPU seconds, user and system, of this process (`RUSAGE_SELF`) or of its children it has waited for.
    private static func cpuSeconds(of who: __rusage_who) -> Double {
        var usage = rusage()
        getrusage(who.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// Runs a `sluice import` or `sluice map` command with its summary written to `summary` (`--summary-json`):
    /// the wall seconds, and the summary (peak memory, rows per table).
    public static func summarisedRun(_ arguments: [String], summary: String) throws -> (seconds: Double, summary: [String: Any]) {
        let seconds = try command(arguments + ["--summary-json", summary]).seconds
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as? [String: Any]
        return (seconds, json ?? [:])
    }

    /// The median (the mean of the middle two for an even count), NaN for no values.
    public static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
