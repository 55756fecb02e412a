import Foundation
import Sluice
import Testing

/// The `sluice` executable, run as a user runs it: standard output, standard error and exit status.
@Suite struct CommandLineTests {
    /// `sluice` sits beside the test bundle in the build folder (`swift build --build-tests` builds every product).
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("sluice")

    struct Outcome { var status: Int32; var standardOutput: String; var standardError: String }

    func run(_ arguments: [String], standardInput: String? = nil, environment: [String: String?] = [:]) throws -> Outcome {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        if !environment.isEmpty {
            var variables = ProcessInfo.processInfo.environment
            for (name, value) in environment { variables[name] = value }
            process.environment = variables
        }
        process.currentDirectoryURL = repositoryRoot
        let output = Pipe(), error = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = input
        try process.run()
        if let standardInput { input.fileHandleForWriting.write(Data(standardInput.utf8)) }
        try input.fileHandleForWriting.close()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self), standardError: String(decoding: errorData, as: UTF8.self))
    }

    /// Usage errors, whoever finds them, start "sluice: error:", exit 64 and speak the option's own units; a
    /// negative number is read as the option's value, not as another option.
    @Test func usageErrorsHaveOnePrefixAndTheOptionsUnits() throws {
        let negative = try run(["map", "-m", "Fixtures/examples/tweets.mapping.yaml", "--workers", "-1", "Fixtures/examples/tweets.ndjson"])
        #expect(negative.status == 64)
        #expect(negative.standardError.hasPrefix("sluice: error: --workers takes 1 to 1024 threads, not -1.\n"), "\(negative.standardError)")
        let typo = try run(["mpa"])
        #expect(typo.status == 64)
        #expect(typo.standardError.hasPrefix("sluice: error: Unexpected argument 'mpa'"), "\(typo.standardError)")
        #expect(!negative.standardError.contains("Error:") && !typo.standardError.contains("Error:"))
        let version = try run(["--version"])
        #expect(version.status == 0 && version.standardOutput == "0.1.0\n")
    }

    /// `--version` of both programs names the newest release the changelog describes.
    @Test func theVersionIsTheChangelogsNewest() throws {
        let changelog = try String(contentsOf: repositoryRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## ") && $0 != "## Unreleased" }.map { $0.dropFirst(3).split(separator: " ").first.map(String.init) ?? "" }
        #expect(try run(["--version"]).standardOutput == (newest ?? "none") + "\n")
        #expect(try run(["bench", "--version"]).standardOutput == (newest ?? "none") + "\n")
    }

    /// `--tokenizer` picks what reads the records, and `SLUICE_TOKENIZER` what `auto` means: a malformed value no field
    /// reads passes with simdjson and is rejected with yajl (docs/tokenizers.md).
    @Test func theTokenizerIsChosenByOptionOrEnvironment() throws {
        let mapping = scratchPath("tokenizer.yaml")
        try "fields:\n  - {name: id, type: int64}\n".write(to: mapping, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: mapping) }
        let input = "{\"id\": 1, \"flag\": tru}\n{\"id\": 2}\n"
        func status(_ options: [String], _ variable: String?) throws -> Int32 {
            try run(["map", "-m", mapping.path, "--input-format", "ndjson"] + options, standardInput: input, environment: ["SLUICE_TOKENIZER": variable]).status
        }
        #expect(try status(["--tokenizer", "simdjson"], "yajl") == 0)
        #expect(try status(["--tokenizer", "yajl"], "simdjson") == 2)
        #expect(try status([], "yajl") == 2)
        #expect(try status([], "simdjson") == 0)
        #expect(try status(["--tokenizer", "auto"], "yajl") == 2)
        #expect(try status(["--tokenizer", "sax"], nil) == 64)
    }

    /// A job's log gets plain progress lines, and a last one per input with its totals.
    @Test func progressLinesForLogs() throws {
        let outcome = try run(["map", "-m", "Fixtures/examples/tweets.mapping.yaml", "--progress-every", "0.01",
                               "Fixtures/examples/tweets.ndjson", "Fixtures/examples/tweets.ndjson"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let lines = outcome.standardError.split(separator: "\n")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: repositoryRoot.appendingPathComponent("Fixtures/examples/tweets.ndjson").path)[.size] as? Int)
        let megabytes = String(format: "%.1f MB", Double(size) / 1e6)
        for index in 1...2 {
            let last = try #require(lines.last { $0.hasPrefix("[\(index)/2] Fixtures/examples/tweets.ndjson → <stdout>: ") }, "\(outcome.standardError)")
            #expect(last.contains(": \(megabytes) of \(megabytes) (100.0 %), 25 records, 0 rejected, "), "\(last)")
            #expect(last.contains(" rows/s, ") && last.contains(" MB/s of JSON, done in "), "\(last)")
        }
        // Not a terminal and not asked: nothing but the summary.
        let plain = try run(["map", "-m", "Fixtures/examples/tweets.mapping.yaml", "Fixtures/examples/tweets.ndjson"])
        #expect(plain.standardError.hasPrefix("sluice: 25 records read, 25 written to <stdout>, 0 rejected, \(CountText.grouped(size)) bytes in "), "\(plain.standardError)")
        #expect(plain.standardError.split(separator: "\n").count == 1)
        let one = try run(["map", "-m", "Fixtures/examples/tweets.mapping.yaml", "-"], standardInput: "{\"id\": 1}\n")
        #expect(one.standardError.contains("\nsluice: 1 record read, 0 written to <stdout>, 1 rejected, "), "\(one.standardError)")
        let refused = try run(["map", "-m", "Fixtures/examples/tweets.mapping.yaml", "--progress-every", "0", "Fixtures/examples/tweets.ndjson"])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("--progress-every takes a number of seconds above 0"))
    }

    /// `sluice split` writes a plan; `--shard PLAN:INDEX` reads one shard, numbered as in the whole file; a plan
    /// of another version of the file, a byte range of an array and a compressed file are refused, saying why.
    @Test func splitShardsReadTogetherAsTheWholeFile() throws {
        let mapping = scratchPath("split.yaml")
        try "fields:\n  - {name: id, type: int64}\n".write(to: mapping, atomically: false, encoding: .utf8)
        let array = try temporaryFile(Array(("[\n" + (1...300).map { $0 == 150 ? #"{"id":"x"}"# : #"{"id":\#($0)}"# }.joined(separator: ",\n") + "\n]\n").utf8), name: "split.json")
        let whole = try run(["map", "-m", mapping.path, array.path])
        #expect(whole.status == 2)
        let plan = scratchPath("plan.json")
        let split = try run(["split", array.path, "--parts", "3", "-o", plan.path])
        #expect(split.status == 0 && split.standardError.contains("3 shards of array elements, 300 records"), "\(split.standardError)")
        var output = ""
        var rejections: [String] = []
        for index in 0..<3 {
            let shard = try run(["map", "-m", mapping.path, "--shard", "\(plan.path):\(index)", array.path])
            output += shard.standardOutput
            rejections += shard.standardError.split(separator: "\n").filter { $0.contains("rejected record") }.map(String.init)
        }
        #expect(output == whole.standardOutput)
        #expect(rejections == whole.standardError.split(separator: "\n").filter { $0.contains("rejected record") }.map(String.init))
        #expect(rejections.first?.contains("rejected record 150 (line 151, byte ") == true, "\(rejections)")

        let beyond = try run(["map", "-m", mapping.path, "--shard", "\(plan.path):3", array.path])
        #expect(beyond.status == 1 && beyond.standardError.contains("holds shards 0 to 2, not 3"), "\(beyond.standardError)")
        let ranged = try run(["map", "-m", mapping.path, "--byte-range", "0:100", array.path])
        #expect(ranged.status == 1 && ranged.standardError.contains("a byte range splits NDJSON only"), "\(ranged.standardError)")
        let handle = try FileHandle(forWritingTo: array)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\n".utf8))
        try handle.close()
        let changed = try run(["map", "-m", mapping.path, "--shard", "\(plan.path):1", array.path])
        #expect(changed.status == 1 && changed.standardError.contains("made from another version of"), "\(changed.standardError)")
        let noSize = try run(["split", array.path])
        #expect(noSize.status == 64 && noSize.standardError.contains("Give --parts or --part-size"), "\(noSize.standardError)")
    }

    /// `sluice split --index`: the first split scans and keeps its cuts, a second one of the unchanged file cuts
    /// the same plan from them without reading the file, a changed file is scanned again, and a file that is no
    /// index is refused, not overwritten.
    @Test func splitKeepsAnIndexForTheNextSplit() throws {
        let lines = try temporaryFile(Array((1...500).map { #"{"id":\#($0)}"# + "\n" }.joined().utf8), name: "indexed.ndjson")
        let index = scratchPath("split-index.json")
        defer { try? FileManager.default.removeItem(at: index) }
        let first = try run(["split", lines.path, "--parts", "5", "--index", index.path])
        #expect(first.status == 0 && first.standardError.contains("bytes scanned"), "\(first.standardError)")
        let again = try run(["split", lines.path, "--parts", "5", "--index", index.path])
        #expect(again.status == 0 && again.standardError.contains("5 shards of lines, 500 records, cut from the index"), "\(again.standardError)")
        #expect(again.standardOutput == first.standardOutput)
        let other = try run(["split", lines.path, "--parts", "2", "--index", index.path])
        #expect(other.standardError.contains("2 shards of lines, 500 records, cut from the index"), "\(other.standardError)")
        let handle = try FileHandle(forWritingTo: lines)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"id":501}"#.utf8 + [0x0A]))
        try handle.close()
        let changed = try run(["split", lines.path, "--parts", "5", "--index", index.path])
        #expect(changed.status == 0 && changed.standardError.contains("501 records") && changed.standardError.contains("bytes scanned"), "\(changed.standardError)")
        let precious = scratchPath("precious.txt")
        defer { try? FileManager.default.removeItem(at: precious) }
        try "keep me\n".write(to: precious, atomically: false, encoding: .utf8)
        let refused = try run(["split", lines.path, "--parts", "5", "--index", precious.path])
        #expect(refused.status == 1 && refused.standardError.contains("is no index from `sluice split --index`"), "\(refused.standardError)")
        #expect(try String(contentsOf: precious, encoding: .utf8) == "keep me\n")
        // A plan is no index: one cut at its few shards would quietly give fewer parts.
        let plan = scratchPath("split-plan.json")
        defer { try? FileManager.default.removeItem(at: plan) }
        #expect(try run(["split", lines.path, "--parts", "2", "-o", plan.path]).status == 0)
        let planAsIndex = try run(["split", lines.path, "--parts", "5", "--index", plan.path])
        #expect(planAsIndex.status == 1 && planAsIndex.standardError.contains("is no index"), "\(planAsIndex.standardError)")
        let samePath = try run(["split", lines.path, "--parts", "5", "-o", plan.path, "--index", plan.deletingLastPathComponent().path + "/./" + plan.lastPathComponent])
        #expect(samePath.status == 64 && samePath.standardError.contains("--index needs a file of its own"), "\(samePath.standardError)")
        let fewer = try run(["split", lines.path, "--parts", "9000", "--index", index.path])
        #expect(fewer.status == 0 && fewer.standardError.contains("not 9000: the index cuts only where its own pieces start"), "\(fewer.standardError)")
    }

    /// A zstd file of several frames, or a gzip file of several members, is split where they start, and its shards
    /// map to what the whole file maps to; a single frame or member is one shard, and the split says why.
    @Test func splitCutsAZstdOrGzipFileAtFramesOrMembers() throws {
        let text = Array(Self.zstdLines.utf8)
        let frames = try temporaryFile(ShardPlanTests.zstdFrames(text, pieceSize: 1_000), name: "frames.ndjson.zst")
        let mapping = try temporaryFile(Array("fields:\n  - {name: id, type: int64}\n".utf8), name: "zstd-split.yaml")
        let plan = scratchPath("zstd-plan.json")
        defer { try? FileManager.default.removeItem(at: plan) }
        let whole = try run(["map", "-m", mapping.path, frames.path, "-q"])
        #expect(whole.status == 0 && whole.standardOutput.split(separator: "\n").count == 400)
        // A gzip file of several members is cut where they start, as zstd frames are.
        let members = try temporaryFile(ShardPlanTests.gzipMembers(text, pieceSize: 1_000), name: "members.ndjson.gz")
        for file in [frames, members] {
            let split = try run(["split", file.path, "--parts", "4", "-o", plan.path])
            #expect(split.status == 0 && split.standardError.contains("4 shards of lines, 400 records"), "\(file.lastPathComponent): \(split.standardError)")
            #expect(split.standardError.contains("(\(text.count) decompressed)"), "\(file.lastPathComponent): \(split.standardError)")
            var parts = ""
            for shard in 0..<4 {
                let part = try run(["map", "-m", mapping.path, file.path, "--shard", "\(plan.path):\(shard)", "-q"])
                #expect(part.status == 0, "\(part.standardError)")
                parts += part.standardOutput
            }
            #expect(parts == whole.standardOutput, "\(file.lastPathComponent)")
        }
        let single = try temporaryFile(Compressor.zstd(text), name: "single.ndjson.zst")
        let one = try run(["split", single.path, "--parts", "4"])
        #expect(one.status == 0 && one.standardError.contains("1 shard, not 4: it is a single zstd frame, which cannot be cut"), "\(one.standardError)")
        let gzip = try temporaryFile(Compressor.gzip(text), name: "lines.ndjson.gz")
        let member = try run(["split", gzip.path, "--parts", "4"])
        #expect(member.status == 0 && member.standardError.contains("1 shard, not 4: it is a single gzip member, which cannot be cut"), "\(member.standardError)")
    }

    static let zstdLines = (1...400).map { #"{"id":\#($0),"pad":"\#(String(repeating: "x", count: $0 % 50))"}"# + "\n" }.joined()

    @Test func executableIsBuilt() {
        #expect(FileManager.default.isExecutableFile(atPath: Self.executable.path), "\(Self.executable.path)")
    }

    /// `sluice bench` checks every option, and the contenders `--only` names, before it generates any input.
    @Test func benchRefusesBadOptionsBeforeGeneratingItsInput() throws {
        for arguments in [["--megabytes", "0"], ["--workers", "1,x"], ["--repetitions", "0"], ["--only", "no-such-contender", "--no-foreign"],
                          ["--mapping", "Fixtures/golden/people.mapping.yaml"], ["--input", "no-such-file.ndjson", "--mapping", "Fixtures/golden/people.mapping.yaml"]] {
            let outcome = try run(["bench", "--megabytes", "1"] + arguments)
            #expect(outcome.status == 64, "\(arguments): \(outcome.standardError)")
            #expect(outcome.standardError.hasPrefix("sluice-bench: error: "), "\(arguments): \(outcome.standardError)")
            #expect(!outcome.standardError.contains("generating"), "\(arguments)")
        }
    }

    /// Your own file without a mapping: every contender reads the mapping inferred from it, and the other readers run.
    @Test func benchOnYourInputInfersItsMapping() throws {
        let python = try #require(ProcessInfo.processInfo.environment["SLUICE_TEST_PYTHON"], "run the tests through scripts/test (it sets SLUICE_TEST_PYTHON)")
        let outcome = try run(["bench", "--input", "Fixtures/examples/tweets.ndjson", "--repetitions", "1", "--workers", "1", "--no-memory", "--python", python])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("no --mapping: every contender reads the mapping inferred from the first"), "\(outcome.standardError)")
        for row in ["| Sluice columnar, 1 worker | ", "| JSONDecoder, Decodable of the mapped fields | ", "| msgspec (Python), typed structs | ", "| DuckDB read_json, 1 thread | "] {
            #expect(outcome.standardOutput.contains(row), "\(row): \(outcome.standardOutput)")
        }
        #expect(!outcome.standardOutput.contains("read the records differently") && !outcome.standardOutput.contains("could not read"), "\(outcome.standardOutput)")
        // Header rows are Sluice's alone: the others are not run, and the report says why.
        let rows = try run(["bench", "--input", "Fixtures/realdata/amazon_cellphones.ndjson", "--repetitions", "1", "--workers", "1", "--no-memory", "--python", python])
        #expect(rows.status == 0 && rows.standardOutput.contains("not run: JSONDecoder, msgspec and DuckDB: the mapping reads records inside a wrapper, under a header"), "\(rows.standardOutput)")
    }

    @Test func benchRunsAndWritesItsReports() throws {
        let html = scratchPath("bench.html")
        let outcome = try run(["bench", "--megabytes", "1", "--repetitions", "1", "--workers", "1,2", "--no-foreign",
                               "--only", "yajl,sluice,jsondecoder", "--json", "-", "--html", html.path])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.contains("| Sluice columnar, 2 workers | "))
        #expect(outcome.standardOutput.contains("\"key\" : \"sluice-typed-1\""))
        #expect(outcome.standardOutput.contains("JSONDecoder, DateFormatter"))
        #expect(try String(contentsOf: html, encoding: .utf8).contains("<svg"))
        #expect(outcome.standardOutput.contains("not run: msgspec and DuckDB: --no-foreign"))
    }

    /// With your own input, the report names the shape it was read as and counts the bytes of JSON it holds.
    @Test func benchNamesTheShapeOfYourOwnInput() throws {
        let text = "[" + (1...500).map { "{\"id\": \($0), \"name\": \"n\($0)\"}" }.joined(separator: ",\n") + "]"
        let input = try temporaryFile(Array(text.utf8), name: "records.json")
        let mapping = try temporaryFile(Array("fields:\n  - {name: id, type: int64}\n  - {name: name, type: string}\n".utf8), name: "records.yaml")
        let outcome = try run(["bench", "--input", input.path, "--mapping", mapping.path, "--repetitions", "1",
                               "--workers", "1", "--no-memory", "--only", "sluice-columnar-1"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.contains("input: \(text.utf8.count) bytes of JSON (array), 500 records"), "\(outcome.standardOutput)")
    }

    @Test func readsRecordsInsideAWrapperDocument() throws {
        let mapping = scratchPath("records.yaml")
        try "fields:\n  - {name: event, path: $key, type: int64}\n  - {name: name, type: string}\n".write(to: mapping, atomically: false, encoding: .utf8)
        let catalog = corporaDirectory.appendingPathComponent("realdata/citm_catalog.json").path
        let outcome = try run(["map", "-m", mapping.path, "--records-at", "events", "--workers", "2", catalog])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let lines = outcome.standardOutput.split(separator: "\n")
        #expect(lines.count == 184)
        #expect(lines.first == #"{"event":138586341,"name":"30th Anniversary Tour"}"#)
        let missing = try run(["map", "-m", mapping.path, "--records-at", "concerts", catalog])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("records path $.concerts not found: the document holds the keys 'areaNames'"))
    }

    @Test func mapsSeveralRecordTypesInOnePass() throws {
        let directory = scratchPath("types")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let catalog = corporaDirectory.appendingPathComponent("realdata/citm_catalog.json").path
        let outcome = try run(["map", "-m", "Fixtures/examples/events.mapping.yaml", "-m", "Fixtures/examples/performances.mapping.yaml",
                               "--output-dir", directory.path, "--workers", "2", catalog])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.isEmpty)
        let events = try String(contentsOf: directory.appendingPathComponent("events.ndjson"), encoding: .utf8).split(separator: "\n")
        let performances = try String(contentsOf: directory.appendingPathComponent("performances.ndjson"), encoding: .utf8).split(separator: "\n")
        #expect(events.count == 184 && performances.count == 243)
        #expect(events.first == #"{"event_id":138586341,"name":"30th Anniversary Tour","subtitle":null,"first_topic":324846099}"#)
        #expect(outcome.standardError.hasPrefix("sluice: 427 records read, 427 written to \(directory.path)/ (events: 184, performances: 243), 0 rejected"), "\(outcome.standardError)")
        let withoutDirectory = try run(["map", "-m", "Fixtures/examples/events.mapping.yaml", "-m", "Fixtures/examples/performances.mapping.yaml", catalog])
        #expect(withoutDirectory.status != 0)
        #expect(withoutDirectory.standardError.contains("Several mappings write one file each: give --output-dir."))
    }

    @Test func mapsTheBundledExample() throws {
        let outcome = try run(["map", "--mapping", "Fixtures/examples/tweets.mapping.yaml", "Fixtures/examples/tweets.ndjson"])
        #expect(outcome.status == 0)
        let lines = outcome.standardOutput.split(separator: "\n")
        #expect(lines.count == 25)
        #expect(lines.first?.hasPrefix(#"{"id":505874924095815681,"id_str":"505874924095815681","created_at":"Sun Aug 31 00:29:15 +0000 2014""#) == true)
        #expect(outcome.standardError.hasPrefix("sluice: 25 records read, 25 written to <stdout>, 0 rejected, 117,911 bytes in "))
    }

    @Test func reportsRejectionsAndWritesThemToAFile() throws {
        let rejects = scratchPath("rejects.ndjson")
        defer { try? FileManager.default.removeItem(at: rejects) }
        let outcome = try run(["map", "-m", "Fixtures/golden/people.mapping.yaml", "--rejects", rejects.path, "-"],
                              standardInput: "{\"id\":1,\"profile\":{\"name\":\"A\"}}\n{\"id\":\"x\",\"profile\":{\"name\":\"B\"}}\n")
        // Finished with a record rejected: status 2.
        #expect(outcome.status == 2)
        #expect(outcome.standardOutput == #"{"id":1,"name":"A","email":null,"score":null,"active":null,"first_tag":null,"tags":null,"dotted":null}"# + "\n")
        let lines = outcome.standardError.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first == #"sluice: <stdin>: rejected record 2 (line 2, byte 32): $.id: expected int64, found string "x""#)
        #expect(lines.last?.hasPrefix("sluice: 2 records read, 1 written to <stdout>, 1 rejected, 66 bytes in ") == true)
        let written = try String(contentsOf: rejects, encoding: .utf8)
        #expect(written == #"{"source":"-","ordinal":2,"line":2,"byte_offset":32,"failures":[{"path":"$.id","kind":"typeMismatch","expected":"int64","found":"string \"x\""}],"raw":"{\"id\":\"x\",\"profile\":{\"name\":\"B\"}}"}"# + "\n")
    }

    @Test func reportsTheKeysTheMappingNeverRead() throws {
        let outcome = try run(["map", "-m", "Fixtures/golden/people.mapping.yaml", "--report-unmapped", "--quiet"],
                              standardInput: "{\"id\":1,\"profile\":{\"name\":\"A\",\"age\":3},\"x\":[]}\n{\"id\":2,\"profile\":{\"name\":\"B\"},\"x\":1}\n")
        #expect(outcome.status == 0)
        #expect(outcome.standardError == "sluice: unmapped $.x: 2\nsluice: unmapped $.profile.age: 1\n")
    }

    @Test func reportsUnmappedKeysAfterALimitWithSeveralWorkersAndSaysWhatTheyCover() throws {
        let input = scratchPath("unmapped-limit.ndjson")
        defer { try? FileManager.default.removeItem(at: input) }
        let text = (1...20_000).map { #"{"id":\#($0),"profile":{"name":"A"},"x":1}"# }.joined(separator: "\n") + "\n"
        try text.write(to: input, atomically: false, encoding: .utf8)
        let outcome = try run(["map", "-m", "Fixtures/golden/people.mapping.yaml", "--workers", "2", "--chunk-size", "65536", "--limit", "3",
                               "--report-unmapped", "-o", "/dev/null", input.path], standardInput: "")
        #expect(outcome.status == 0)
        let lines = outcome.standardError.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(outcome.standardError)")
        // The first chunk's records were all mapped: the note names them, and the count covers exactly them.
        let covered = lines.dropFirst().first.flatMap { $0.split(separator: " ").dropFirst(7).first }.flatMap { Int($0) }
        #expect(lines.dropFirst().first?.hasSuffix("records mapped ahead, not only the 3 read") == true, "\(lines)")
        #expect(lines.last == "sluice: unmapped $.x: \(covered ?? -1)")
        #expect((covered ?? 0) > 3 && (covered ?? .max) < 20_000)
    }

    @Test func stopsWithStatusOneOnTheFirstRejectionWhenAsked() throws {
        let outcome = try run(["map", "-m", "Fixtures/golden/people.mapping.yaml", "--on-reject", "stop", "--quiet"],
                              standardInput: "{\"id\":true,\"profile\":{\"name\":\"A\"}}\n")
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("more than --max-rejects 0; the last: record 1 (line 1, byte 0): $.id: expected int64, found true"), "\(outcome.standardError)")
    }

    /// The limit is judged record by record: the records after the rejection that passes it are not written,
    /// whatever batch they share with it, and a stream keeps (and the summary counts) what it was given before.
    @Test func aRejectLimitStopsAtTheSameRecordForAnyBatchOrWorkerCount() throws {
        let mapping = scratchPath("limit.yaml")
        let input = scratchPath("limit.ndjson")
        defer { for file in [mapping, input] { try? FileManager.default.removeItem(at: file) } }
        try "fields:\n  - {name: id, type: int64}\n".write(to: mapping, atomically: false, encoding: .utf8)
        try (1...200).map { $0 % 10 == 0 ? #"{"id":"x"}"# : #"{"id":\#($0)}"# }.joined(separator: "\n").write(to: input, atomically: false, encoding: .utf8)
        let expected = (1...39).filter { $0 % 10 != 0 }.map { #"{"id":\#($0)}"# + "\n" }.joined()
        for (workers, batch) in [("1", "4096"), ("2", "4096"), ("2", "7"), ("1", "3")] {
            let outcome = try run(["map", "-m", mapping.path, "--max-rejects", "3", "--workers", workers, "--batch-size", batch, "--chunk-size", "256", input.path])
            #expect(outcome.status == 1)
            #expect(outcome.standardOutput == expected, "workers \(workers), batch \(batch)")
            #expect(outcome.standardError.contains("sluice: 40 records read, 36 written to <stdout>, 4 rejected"), "\(outcome.standardError)")
            #expect(outcome.standardError.contains("stopped: 4 of 40 records rejected, more than --max-rejects 3; the last: record 40 (line 40, "), "\(outcome.standardError)")
            #expect(outcome.standardError.hasSuffix("the 36 records written stay in <stdout>, which cannot take them back\n"), "\(outcome.standardError)")
        }
    }

    @Test func anInvalidMappingFileListsEveryProblem() throws {
        let mapping = scratchPath("bad.yaml")
        defer { try? FileManager.default.removeItem(at: mapping) }
        try "fields:\n  - name: a\n    type: number\n  - name: b\n".write(to: mapping, atomically: false, encoding: .utf8)
        let outcome = try run(["map", "-m", mapping.path], standardInput: "")
        #expect(outcome.status != 0)
        #expect(outcome.standardError.contains("unknown type 'number'"))
        #expect(outcome.standardError.contains("field 'b': 'type' is missing"))
    }

    @Test func checkListsEveryProblemOfAMappingFileWithItsLineAndColumn() throws {
        let mapping = scratchPath("check-bad.yaml")
        defer { try? FileManager.default.removeItem(at: mapping) }
        try "fields:\n  - {name: a, type: int64, default: x}\n  - {name: a, type: number}\n  - {name: c, type: string, truncate: true}\n".write(to: mapping, atomically: false, encoding: .utf8)
        let outcome = try run(["check", "-m", mapping.path])
        #expect(outcome.status == 1)
        #expect(outcome.standardOutput == """
            \(mapping.path):2:37: field 'a': the default "x" is not an integer
            \(mapping.path):3:21: field 'a': unknown type 'number' (known: string, int64, double, bool, json, uint64, date, url, bytes, enum, decimal)
            \(mapping.path):4:5: field 'c': truncation applies to int64 and uint64 fields, not string
            \(mapping.path): 3 problems

            """)
        // A child table renaming a link that the mapping's key does not make.
        try "key: id\nfields:\n  - {name: id, type: int64}\n  - {name: tags, table: {type: string, links: {_source: src}}}\n"
            .write(to: mapping, atomically: false, encoding: .utf8)
        let links = try run(["check", "-m", mapping.path])
        #expect(links.status == 1)
        #expect(links.standardOutput == """
            field 'tags': child table tags: 'links' renames _source, which is not one of the links it takes from above (_id)
            \(mapping.path): 1 problem

            """, "\(links.standardOutput)")
    }

    @Test func checkMapsTheFirstRecordsIntoATableAndExplainsRejections() throws {
        let outcome = try run(["check", "-m", "Fixtures/golden/reddit-comments.mapping.yaml", "-", "--limit", "4", "--max-width", "12"],
                              standardInput: try String(contentsOf: fixturesDirectory.appendingPathComponent("golden/reddit-comments.ndjson"), encoding: .utf8))
        #expect(outcome.status == 2)
        #expect(outcome.standardOutput == #"""
            Fixtures/golden/reddit-comments.mapping.yaml: 8 fields, no problems

            #  line  id          author  body        score  edited        created       gilded  distinguish…
            1  1     cnas8zv     alice   First!      12     (null)        2015-01-01T…  false   (null)
            2  2     cnas8zw     (null)  (null)      -3     2015-01-01T…  2015-01-01T…  false   moderator
            3  3     cnas8zx     bob     spaced out  7      2015-01-01T…  2015-01-01T…  true    (null)
            4  4     (rejected)

            rejected record 4 (line 4, byte 436):
              $.edited: expected date, found true
              text: {"id":"cnas8zy","author":"carol","body":"","score":1,"edited":true,"created_utc":"1420070580","gilded":0,"distinguished":null}

            <stdin>: the first 4 records: 3 mapped, 1 rejected

            """#)
        // A rejected record among the first ones is shown although the batch it came in holds later records.
        let mixed = try run(["check", "-m", "Fixtures/golden/reddit-comments.mapping.yaml", "-", "--limit", "2"],
                            standardInput: #"{"id":"a","score":"x","created_utc":0,"gilded":0}"# + "\n" + #"{"id":"b","score":1,"created_utc":0,"gilded":0}"# + "\n"
                                + #"{"id":"c","score":2,"created_utc":0,"gilded":0}"# + "\n")
        #expect(mixed.status == 2)
        #expect(mixed.standardOutput.hasSuffix("<stdin>: the first 2 records: 1 mapped, 1 rejected\n"))
        let clean = try run(["check", "-m", "Fixtures/examples/tweets.mapping.yaml", "Fixtures/examples/tweets.ndjson", "--limit", "2"])
        #expect(clean.status == 0)
        #expect(clean.standardOutput.hasSuffix("Fixtures/examples/tweets.ndjson: the first 2 records: 2 mapped, 0 rejected\n"))
        #expect(try run(["check", "-m", "Fixtures/examples/tweets.mapping.yaml", "--limit", "0"]).status == 64)
    }

    @Test func inferWritesAMappingThatMapAcceptsUnchanged() throws {
        let mapping = scratchPath("inferred.yaml")
        defer { try? FileManager.default.removeItem(at: mapping) }
        let inferred = try run(["infer", "Fixtures/realdata/twitter.json", "--records-at", "statuses", "--sample", "50", "-o", mapping.path])
        #expect(inferred.status == 0 && inferred.standardOutput.isEmpty)
        let text = try String(contentsOf: mapping, encoding: .utf8)
        #expect(text.contains("records: statuses") && text.contains("{name: created_at, type: date, formats: [twitter]}"))
        let mapped = try run(["map", "-m", mapping.path, "Fixtures/realdata/twitter.json", "-q", "-o", "/dev/null"])
        #expect(mapped.status == 0)
        #expect(try run(["infer", "Fixtures/realdata/twitter.json", "--sample", "0"]).status == 64)
        // Without --records-at, the wrapper is one record: the hint names its array of records.
        let wrapped = try run(["infer", "Fixtures/realdata/twitter.json"])
        #expect(wrapped.status == 0)
        #expect(wrapped.standardError.contains("the input looks like a document wrapping its records: statuses holds 100 objects"), "\(wrapped.standardError)")
        #expect(wrapped.standardError.hasSuffix("; to map those, run again with --records-at statuses\n"), "\(wrapped.standardError)")
    }

    /// A misspelt name in a mapping file gets the nearest known one.
    @Test func checkSuggestsTheNameAMisspellingMeant() throws {
        let mapping = scratchPath("misspelt.yaml")
        defer { try? FileManager.default.removeItem(at: mapping) }
        try "fields:\n  - {name: d, type: date, formats: [twiter]}\n  - {name: e, type: strng, optinal: true}\n".write(to: mapping, atomically: false, encoding: .utf8)
        let checked = try run(["check", "-m", mapping.path, "Fixtures/examples/tweets.ndjson"])
        let report = checked.standardOutput
        #expect(checked.status == 1, "\(checked.standardError)")
        #expect(report.contains("field 'd': unknown date format 'twiter'; did you mean 'twitter'?"), "\(report)")
        #expect(report.contains("unknown type 'strng' (known: string, int64, double, bool, json, uint64, date, url, bytes, enum, decimal); did you mean 'string'?"), "\(report)")
        #expect(report.contains("unknown key 'optinal'") && report.contains("did you mean 'optional'?"), "\(report)")
        // A pattern is not taken for a name.
        #expect(Spelling.nearest(to: "yyyy", among: DateFormat.names) == nil)
        #expect(Spelling.nearest(to: "isoo8601", among: DateFormat.names) == "iso8601")
        #expect(Spelling.nearest(to: "rfc2282", among: DateFormat.names) == "rfc2822")
    }
}
