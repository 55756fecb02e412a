import Foundation
import Sluice

/// One input from libFuzzer (`scripts/fuzz` builds this target with `-sanitize=fuzzer,address`). Which harness
/// runs is chosen by `SLUICE_FUZZ_TARGET` (`records`, the default, `shards`, `mapping-file`, `sinks` or `typed`). Exported under libFuzzer's
/// name as well, which its library refers to.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch ProcessInfo.processInfo.environment["SLUICE_FUZZ_TARGET"] ?? "records" {
    case "mapping-file": FuzzMappingFile.run(bytes)
    case "shards": FuzzShards.run(bytes)
    case "sinks": FuzzSinks.run(bytes)
    case "typed": FuzzTyped.run(bytes)
    default: FuzzRecords.run(bytes)
    }
    return 0
}
