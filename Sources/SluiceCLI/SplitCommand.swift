import ArgumentParser
import Foundation
import Sluice
import SluiceTerminal

/// `sluice split`: record-aligned shards of one file, for processes on several machines.
struct SplitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Split a file into record-aligned shards that processes read on their own (sluice import --shard).",
        discussion: """
            Prints a shard plan (JSON): each shard's byte range, whether it holds lines or array elements, and the \
            ordinal and line of its first record in the whole file, so that every shard numbers its records as one \
            reader of the file would. NDJSON is cut at line starts; a top-level array, or the records array of a \
            wrapper document (--records-at), at element starts, found by one scan of the whole file. The plan \
            fits that version of the file only: sluice import --shard PLAN:INDEX checks its size, modification \
            time and first MiB. A zstd file of several frames (written by pzstd, or pieces compressed apart and \
            joined with cat) is cut where frames start, a gzip file of several members (written by bgzip, or \
            joined with cat) where members start, a bzip2 file where blocks start (every 900 kB of text or less); \
            a single zstd frame or gzip member cannot be cut, nor xz yet. With --index, the scan's cuts (about \
            4096 of them, at most one per frame, member or block) are kept in a file, and a \
            later split of the unchanged file, into any number of parts, is cut from them without reading the file.
            """
    )

    @Argument(help: ArgumentHelp("The file to split.", valueName: "input"))
    var input: String

    @Option(name: .customLong("parts"), parsing: .unconditional, help: ArgumentHelp("How many shards of about equal size (1 to 1,000,000).", valueName: "count"))
    var parts: Int?

    @Option(name: .customLong("part-size"), help: ArgumentHelp("The size of each shard as stored (compressed, for zstd, gzip and bzip2): bytes, or with KiB, MiB or GiB (256MiB).", valueName: "size"))
    var partSize: String?

    @Option(name: .customLong("records-at"), help: ArgumentHelp("The key path of the records array inside a wrapper document.", valueName: "path"))
    var recordsAt: String?

    @Option(name: [.customLong("input-format"), .customLong("format")], help: ArgumentHelp("ndjson, array or automatic.", valueName: "shape"))
    var inputFormat: InputShape = .automatic

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write the plan to FILE instead of standard output.", valueName: "file"))
    var output: String?

    @Option(name: .customLong("index"), help: ArgumentHelp("Keep the scan's cuts in FILE and cut from them when FILE fits the unchanged file (scanning again, and replacing FILE, when it does not).", valueName: "file"))
    var index: String?

    @Option(name: .customLong("max-window"), parsing: .unconditional, help: ArgumentHelp(
        "The largest decompression window a zstd frame may need (1 to 2048).", valueName: "MiB"))
    var maximumWindow = 128

    @Flag(name: [.short, .long], help: "Print no summary on standard error.")
    var quiet = false

    func validate() throws {
        if (parts == nil) == (partSize == nil) { throw ValidationError("Give --parts or --part-size (one of them).") }
        if let parts { try ReadingOptions.check("--parts", parts, 1...1_000_000, "shards") }
        try ReadingOptions.check("--max-window", maximumWindow, 1...2048, "MiB")
        if let partSize, Self.bytes(partSize) == nil {
            throw ValidationError("--part-size takes a size such as 268435456, 256MiB or 1GiB, not '\(partSize)'.")
        }
        if ![.automatic, .ndjson, .array].contains(inputFormat) { throw ValidationError("--format: only ndjson and array files split.") }
        if input == "-" { throw ValidationError("A split needs a file: standard input cannot be read twice.") }
        if let index, [input, output].contains(where: { $0.map(Self.resolved) == Self.resolved(index) }) {
            throw ValidationError("--index needs a file of its own, not the input or the plan.")
        }
    }

    /// `268435456`, `256MiB`, `64KiB`, `1GiB`.
    static func bytes(_ text: String) -> Int? {
        let units: [(String, Int)] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("", 1)]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            guard let number = Int(text.dropLast(suffix.count)), number > 0 else { return nil }
            let (product, overflow) = number.multipliedReportingOverflow(by: factor)
            return overflow ? nil : product
        }
        return nil
    }

    func run() throws {
        let started = ContinuousClock.now
        let size: ShardSize = parts.map(ShardSize.parts) ?? .bytes(partSize.flatMap(Self.bytes) ?? 1)
        var scanned = true
        let plan: ShardPlan
        if let index {
            let cuts: ShardPlan
            if let kept = try Self.readIndex(index), kept.fits(.file(input), shape: inputFormat, recordsPath: recordsAt, maximumWindow: maximumWindow << 20) {
                cuts = kept
                scanned = false
            } else {
                cuts = try ShardPlan.indexing(.file(input), shape: inputFormat, recordsPath: recordsAt, maximumWindow: maximumWindow << 20)
                let file = try OutputFiles.replacing(index)
                try file.write(cuts.jsonText)
                try file.commit()
            }
            plan = try ShardPlan(cutting: cuts, into: size)
        } else {
            plan = try ShardPlan(splitting: .file(input), into: size, shape: inputFormat, recordsPath: recordsAt, maximumWindow: maximumWindow << 20)
        }
        let elapsed = started.duration(to: .now)
        if let output {
            let file = try OutputFiles.replacing(output)
            try file.write(plan.jsonText)
            try file.commit()
        } else {
            print(plan.jsonText, terminator: "")
        }
        guard !quiet else { return }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        // A compressed file's rate is of the bytes scanned, decompressed.
        let decompressed = plan.decompressedBytes
        let rate = seconds > 0 ? String(format: "%.0f MB/s", Double(decompressed ?? plan.fingerprint.size) / seconds / 1e6) : "-"
        let what = "\(plan.shards.count) \(plan.shards.count == 1 ? "shard" : "shards") of \(plan.shape == "array" ? "array elements" : "lines"), \(plan.records) records"
        if case .parts(let asked) = size, plan.shards.count < asked {
            let why = Self.fewerShards(plan, scanned: scanned)
            StandardError.print("sluice: \(input): \(plan.shards.count) \(plan.shards.count == 1 ? "shard" : "shards"), not \(asked): \(why)")
        }
        if scanned {
            StandardError.print("sluice: \(input): \(what), \(plan.fingerprint.size) bytes\(decompressed.map { " (\($0) decompressed)" } ?? "") scanned in \(String(format: "%.2f", seconds)) s (\(rate))")
        } else {
            StandardError.print("sluice: \(input): \(what), cut from the index \(index ?? "") in \(String(format: "%.2f", seconds)) s")
        }
    }

    /// Why a plan has fewer shards than parts asked for.
    private static func fewerShards(_ plan: ShardPlan, scanned: Bool) -> String {
        let pieces: [(count: Int?, what: String, tool: String)] = [
            (plan.zstdFrames, "zstd frame", "pzstd"), (plan.gzipMembers, "gzip member", "bgzip"), (plan.bzip2Blocks, "bzip2 block", ""),
        ]
        if let single = pieces.first(where: { $0.count == 1 && !$0.tool.isEmpty }) {
            return "it is a single \(single.what), which cannot be cut (compress it with \(single.tool), or as pieces joined with cat, to split it)"
        }
        if !scanned { return "the index cuts only where its own pieces start" }
        if let counted = pieces.first(where: { $0.count != nil }), let count = counted.count {
            return "it has \(count) \(counted.what)\(count == 1 ? "" : "s"), and is cut only where one starts"
        }
        return "records are fewer than parts, or larger than a part"
    }

    static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// The index kept in `path`, or nil when there is none yet. A file that is no index (a plan included) is
    /// refused rather than replaced: it may be something else named by mistake.
    static func readIndex(_ path: String) throws -> ShardPlan? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let text = FileManager.default.contents(atPath: path) else {
            throw SluiceError.invalidOptions("\(path): cannot read the index")
        }
        guard let kept = try? ShardPlan(jsonText: Array(text), source: path), kept.isIndex == true else {
            throw SluiceError.invalidOptions("--index \(path) is no index from `sluice split --index` (remove it, or name another file)")
        }
        return kept
    }
}
