import Foundation
import Sluice
import SluiceFixtures

/// Runs contenders over one input, interleaved, repetition after repetition, and checks that every mapping
/// contender produced the same checksum before any time counts.
public struct BenchRunner {
    public var input: BenchInput
    public var contenders: [Contender]
    public var repetitions: Int
    /// Measures one contender's peak memory on its own (a child process), or `nil` when that is not possible.
    public var measurePeakMemory: ((Contender) -> Int?)?
    /// Told about progress (which contender, which repetition), for a status line.
    public var onProgress: ((String) -> Void)?

    public init(input: BenchInput, contenders: [Contender], repetitions: Int) {
        self.input = input
        self.contenders = contenders
        self.repetitions = repetitions
    }

    public func run() throws -> BenchResult {
        var samples: [String: [Sample]] = [:]
        var checksums: [String: Checksum] = [:]
        var timed = contenders
        var dropped: [String] = []
        var failed: Set<String> = []
        for repetition in 1...max(repetitions, 1) {
            for contender in timed {
                onProgress?("\(contender.name) (\(repetition)/\(repetitions))")
                let cpuBefore = Measure.cpuSeconds()
                let start = DispatchTime.now().uptimeNanoseconds
                let outcome: RunOutcome
                do {
                    outcome = try contender(input)
                } catch {
                    // On your own input another reader may refuse what Sluice reads (a date form, a number in text).
                    guard input.schema != nil && contender.family != .sluice && repetition == 1 else {
                        throw BenchError("\(contender.name) failed: \(error)")
                    }
                    dropped.append("\(contender.name): it could not read the records: \(error)")
                    failed.insert(contender.key)
                    continue
                }
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                let cpu = outcome.cpuSeconds ?? (Measure.cpuSeconds() - cpuBefore)
                samples[contender.key, default: []].append(Sample(seconds: outcome.seconds ?? elapsed, cpuSeconds: cpu, peakResidentBytes: outcome.peakResidentBytes))
                if let checksum = outcome.checksum {
                    if let previous = checksums[contender.key], previous != checksum {
                        throw BenchError("\(contender.name) gave a different checksum on repetition \(repetition)")
                    }
                    checksums[contender.key] = checksum
                }
            }
            if repetition == 1 && input.schema != nil, let reference = timed.first(where: { $0.family == .sluice }).flatMap({ checksums[$0.key] }) {
                // On your own input another reader may read some values its own way (a date form, a number in
                // text): it is named and left out, not timed against different work.
                for contender in timed where contender.family != .sluice {
                    guard let checksum = checksums[contender.key], checksum != reference else { continue }
                    dropped.append("\(contender.name): it read the records differently from Sluice (\(checksum.records) records, checksum \(checksum.value); Sluice \(reference.records), \(reference.value))")
                    checksums[contender.key] = nil
                    samples[contender.key] = nil
                }
                timed.removeAll { $0.family == .foundation || $0.family == .foreign ? checksums[$0.key] == nil : false }
            }
            timed.removeAll { failed.contains($0.key) }
        }
        let distinct = Set(checksums.values)
        guard distinct.count <= 1 else {
            let listing = checksums.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.value) over \($0.value.records) records" }
            throw BenchError("the contenders disagree about the records:\n  " + listing.joined(separator: "\n  "))
        }
        let records = distinct.first?.records ?? 0
        let rows = timed.map { contender -> BenchResult.Row in
            let runs = samples[contender.key] ?? []
            var peak = runs.compactMap(\.peakResidentBytes).max()
            if peak == nil, let measurePeakMemory {
                onProgress?("\(contender.name): peak memory")
                peak = measurePeakMemory(contender)
            }
            return BenchResult.Row(
                name: contender.name, key: contender.key, family: contender.family, threads: contender.threads,
                seconds: runs.map(\.seconds), cpuSeconds: runs.map(\.cpuSeconds), peakResidentBytes: peak)
        }
        var result = BenchResult(machine: MachineInfo.current(), bytes: input.bytes, records: records, layout: input.shapeName,
                                 compression: input.compression.rawValue, repetitions: repetitions, rows: rows)
        result.notRun = dropped
        return result
    }

    struct Sample {
        var seconds: Double
        var cpuSeconds: Double
        var peakResidentBytes: Int?
    }

    /// User plus system CPU seconds of this process, every thread.
}

/// The machine a run was measured on.
public struct MachineInfo: Codable, Sendable {
    public var cores: Int
    public var cpu: String
    public var os: String
    public var swift: String
    public var memoryBytes: UInt64

    public static func current() -> MachineInfo {
        let cpuInfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuInfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown"
        let release = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
        let os = release.split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }
            .map { String($0.dropFirst("PRETTY_NAME=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) } ?? ProcessInfo.processInfo.operatingSystemVersionString
        return MachineInfo(cores: ProcessInfo.processInfo.activeProcessorCount, cpu: model, os: os, swift: swiftVersion, memoryBytes: ProcessInfo.processInfo.physicalMemory)
    }

    /// The compiler this program was built with.
    static var swiftVersion: String {
        #if compiler(>=6.4)
        return "6.4 or later"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #else
        return "6.1"
        #endif
    }
}
