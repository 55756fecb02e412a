import Foundation

/// The memory this process uses, as runs report it (an import's summary, a benchmark's table).
public enum ProcessMemory {
    /// This process's peak resident memory, in bytes: `VmHWM` from `/proc/self/status` on Linux. Not
    /// `getrusage` there, whose `ru_maxrss` survives `execve`: a process started by a bigger parent (a benchmark
    /// harness, a Dask worker) would report the parent's size at the fork.
    public static func peakResidentBytes() -> Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
           let kilobytes = Int(line.dropFirst("VmHWM:".count).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") {
            return kilobytes * 1024
        }
        var usage = rusage()
        #if canImport(Darwin)
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss)  // bytes on Darwin
        #else
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Int(usage.ru_maxrss) * 1024
        #endif
    }
}
