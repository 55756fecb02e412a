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
                let measured = try Measure.command(command + [input.path])
                return RunOutcome(checksum: nil, seconds: measured.seconds, cpuSeconds: measured.cpuSeconds)
            })
        }
        return (found, notRun)
    }

    static func isInstalled(_ tool: String) -> Bool {
        (try? ForeignContenders.run(["sh", "-c", "command -v \(tool)"]).status) == 0
    }
}
