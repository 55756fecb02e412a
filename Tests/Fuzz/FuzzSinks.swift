import Foundation
import SluiceSinkCases

/// Random records of every type into the SQLite, CSV (or TSV) and Parquet writers (``SinkCase``): each import must
/// end well and account for every record. With `SLUICE_FUZZ_KEEP=DIR` each input leaves DIR/<hash>/ for
/// `Tests/SinkCases/check_sinks.py`, which reads the files back through readers Sluice does not control
/// (`scripts/fuzz` replays the corpus so once the fuzzing ends).
enum FuzzSinks {
    static func run(_ bytes: [UInt8]) {
        let keep = ProcessInfo.processInfo.environment["SLUICE_FUZZ_KEEP"]
        let hash = bytes.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        let directory = (keep ?? NSTemporaryDirectory() + "sluice-fuzz-sinks-\(getpid())") + "/" + String(hash, radix: 16)
        defer { if keep == nil { try? FileManager.default.removeItem(atPath: directory) } }
        do {
            try SinkCaseRun.write(bytes, into: directory)
        } catch {
            preconditionFailure("\(error)")
        }
    }
}
