import Foundation
@testable import Sluice
@testable import SluiceWriters
import Testing

/// Files written under a temporary name: a run killed with SIGKILL leaves its partial file, and a later run to the
/// same directory removes it, and says so, while it never touches the partial file of an import still running.
@Suite struct PartialFileTests {
    /// An import reading its records from a pipe the test holds open, so that it stays in the middle of its run.
    final class RunningImport {
        let process = Process()
        private let input = Pipe()

        init(_ arguments: [String]) throws {
            process.executableURL = CommandLineTests.executable
            process.arguments = arguments
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try input.fileHandleForWriting.write(contentsOf: Data((1...2_000).map { "{\"id\":\($0),\"name\":\"n\"}\n" }.joined().utf8))
        }

        func kill() {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        deinit {
            if process.isRunning { kill() }
        }
    }

    static func names(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    /// Waits until `directory` holds a partial file, as the import started writing its output.
    static func waitForPartial(in directory: String) throws -> String? {
        for _ in 0..<200 {
            if let name = try names(in: directory).first(where: { $0.hasSuffix("-partial") }) { return name }
            usleep(20_000)
        }
        return nil
    }

    @Test func aKilledImportsPartialFileIsRemovedByTheNextRunAndARunningOnesIsNot() throws {
        let dump = try ImportCommandTests.Dump(count: 50)
        let output = dump.path("out.csv")
        let running = try RunningImport(["import", "-m", dump.mapping, "-", "--to", output, "-q"])
        let partial = try #require(try Self.waitForPartial(in: dump.directory.path))

        // Another import to the same file, while the first is still writing: it leaves the first's file alone.
        let beside = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", output])
        #expect(beside.status == 0, "\(beside.standardError)")
        #expect(!beside.standardError.contains("removed"), "\(beside.standardError)")
        #expect(try Self.names(in: dump.directory.path).contains(partial))

        running.kill()
        #expect(try Self.names(in: dump.directory.path).contains(partial), "SIGKILL leaves the partial file")
        let next = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", output, "--if-exists", "replace"])
        #expect(next.status == 0, "\(next.standardError)")
        #expect(next.standardError.contains("removed \(dump.directory.path)/\(partial) ("), "\(next.standardError)")
        #expect(try Self.names(in: dump.directory.path) == ["dump.ndjson", "items.mapping.yaml", "out.csv"])
    }

    /// Parquet parts wait, closed, for the run's end: a killed run's parts are removed, a running run's kept.
    @Test func partsOfAKilledParquetImportAreRemoved() throws {
        let dump = try ImportCommandTests.Dump(count: 50)
        let directory = dump.path("parts") + "/"
        let running = try RunningImport(["import", "-m", dump.mapping, "-", "--to", directory, "--max-file-rows", "100", "--workers", "1", "-q"])
        let tableDirectory = directory + "items"
        // The parts' partial names; a row group's page spill is also made under a partial name, but unlinked at
        // once, so a listing may catch it for a moment and the next run never finds it.
        func parts() throws -> [String] { try Self.names(in: tableDirectory).filter { $0.hasSuffix("-partial") && $0.hasPrefix(".part-") } }
        for _ in 0..<200 where ((try? parts())?.count ?? 0) < 3 { usleep(20_000) }
        let partials = try parts()
        #expect(partials.count >= 3, "finished parts wait for the run's end under their temporary names")
        #expect(PartialFiles.removeAbandoned(in: tableDirectory + "/", sparing: []).isEmpty, "a running import's parts are held")

        running.kill()
        let next = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", directory, "--max-file-rows", "100", "--if-exists", "replace"])
        #expect(next.status == 0, "\(next.standardError)")
        for partial in partials { #expect(next.standardError.contains(partial), "\(next.standardError)") }
        let left = try Self.names(in: tableDirectory)
        #expect(left == ["part-00000.parquet"], "\(left)")
    }

    /// Within one process: a file being written keeps its lock however many others come and go beside it, and
    /// names Sluice did not give (or gave before it took locks) are never removed.
    @Test func onlyUnheldPartialFilesAreRemoved() throws {
        let directory = scratchPath("partials").path + "/"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let foreign = [".a.csv.sluice-12345-partial", ".b.csv.sluice-0123456789abcdeg-partial", ".sluice-0123.lock", "c.csv"]
        for name in foreign { _ = FileManager.default.createFile(atPath: directory + name, contents: Data("x".utf8)) }
        // What a killed run leaves: its partial file, and the lock file no process holds.
        let abandoned = ".d.csv.sluice-00000000000000ab-partial"
        _ = FileManager.default.createFile(atPath: directory + abandoned, contents: Data(repeating: 1, count: 10))
        _ = FileManager.default.createFile(atPath: directory + ".sluice-00000000000000ab.lock", contents: nil)
        // A partial file whose lock file is gone is held by nothing.
        let unlocked = ".e.csv.sluice-00000000000000cd-partial"
        _ = FileManager.default.createFile(atPath: directory + unlocked, contents: nil)

        let first = try FileOutput(path: directory + "x.csv", ifExists: .replace)
        #expect(first.removedPartials == [AbandonedPartial(path: directory + abandoned, bytes: 10), AbandonedPartial(path: directory + unlocked, bytes: 0)])
        let second = try FileOutput(path: directory + "y.csv", ifExists: .replace)
        #expect(second.removedPartials.isEmpty, "a directory is cleared once per process")
        try second.commit()
        // The directory's lock stays while `first` is unsettled: another run's clearing, however often, spares it.
        #expect(PartialFiles.removeAbandoned(in: directory, sparing: []).isEmpty)
        #expect(try Self.names(in: directory).filter { $0.hasSuffix("-partial") }.count == 3)
        first.discard()
        #expect(try Self.names(in: directory) == (foreign + ["y.csv"]).sorted())
    }
}
