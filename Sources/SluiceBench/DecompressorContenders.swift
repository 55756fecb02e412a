import Foundation
import SluiceFixtures

/// The system's decompressors reading the same compressed file to `/dev/null`, when installed: the pace at which
/// decompression alone delivers the JSON, which Sluice's reading of that file is measured against. They map nothing,
/// so they have no checksum.
public enum DecompressorContenders {
    /// The tools for `compression` found on the `PATH`, and a note for each one left out.
    public static func available(for compression: FixtureFile.Compression) -> (contenders: [Contender], notRun: [String]) {
        let commands: [(command: [String], threads: Int)]
        switch compression {
        case .none: return ([], [])
        case .gzip: commands = [(["gzip", "-dc"], 1), (["igzip", "-dc"], 1)]
        case .zstd: commands = [(["zstd", "-dc"], 1)]
        // Not lbzip2: started from a thread that blocks signals, as a pool thread does, it waits forever.
        case .bzip2: commands = [(["bzip2", "-dc"], 1)]
        // A newer xz decompresses blocks on several threads by default: -T1 is the one-thread pace, -T2 both cores'.
        case .xz: commands = [(["xz", "-dc", "-T1"], 1), (["xz", "-dc", "-T2"], 2)]
        }
        var found: [Contender] = []
        var notRun: [String] = []
        for (command, threads) in commands {
            guard isInstalled(command[0]) else {
                notRun.append("\(command.joined(separator: " ")): not installed")
                continue
            }
            let key = command.joined()
            found.append(Contender(name: "\(command.joined(separator: " ")) > /dev/null", key: key, family: .decompressor, threads: threads) { input in
                try run(command + [input.path])
            })
        }
        return (found, notRun)
    }

    static func isInstalled(_ tool: String) -> Bool {
        (try? ForeignContenders.run(["sh", "-c", "command -v \(tool)"]).status) == 0
    }

    /// Runs `command` with its output thrown away; its wall time (process start included, a few milliseconds) and
    /// the CPU time it used.
    static func run(_ command: [String]) throws -> RunOutcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        let cpuBefore = childrenCPUSeconds()
        let start = DispatchTime.now()
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        guard process.terminationStatus == 0 else {
            throw BenchError("\(command.joined(separator: " ")) failed (status \(process.terminationStatus)): \(String(decoding: message, as: UTF8.self))")
        }
        return RunOutcome(checksum: nil, seconds: seconds, cpuSeconds: childrenCPUSeconds() - cpuBefore)
    }

    private static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
