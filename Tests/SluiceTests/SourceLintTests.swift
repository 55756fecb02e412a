import Foundation
import Testing

/// The engineering rules that can be checked by reading the source: nothing on the per-value path boxes values
/// or keys them by String, and nothing anywhere crashes on purpose. A line may opt out with a `lint:` comment
/// that says why.
@Suite struct SourceLintTests {
    static let sources = repositoryRoot.appendingPathComponent("Sources")

    static func lines(under folder: URL) throws -> [(file: String, number: Int, text: String)] {
        var result: [(String, Int, String)] = []
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                result.append((file.path.replacingOccurrences(of: repositoryRoot.path + "/", with: ""), index + 1, String(line)))
            }
        }
        return result
    }

    static func violations(under folder: URL, patterns: [String]) throws -> [String] {
        try lines(under: folder).compactMap { line in
            let code = line.text.components(separatedBy: "//").first ?? ""
            guard !line.text.contains("lint:"), let pattern = patterns.first(where: { code.contains($0) }) else { return nil }
            return "\(line.file):\(line.number): \(pattern)"
        }
    }

    @Test func thePerValuePathHasNoBoxingAndNoStringKeyedDictionaries() throws {
        for stage in ["Tokenizer", "Mapping", "Batches", "Conversion"] {
            let found = try Self.violations(under: Self.sources.appendingPathComponent("Sluice/\(stage)"), patterns: [": Any", " Any]", "[Any", "[String: ", "AnyObject", "NSString"])
            #expect(found.isEmpty, "\(found)")
        }
    }

    @Test func nothingCrashesOnPurpose() throws {
        let found = try Self.violations(under: Self.sources, patterns: ["try!", "fatalError(", "as!", "precondition(false"])
        #expect(found.isEmpty, "\(found)")
    }

    /// Foundation's atomic writes on Linux leave a `TemporaryDirectory.*` folder in the temporary directory each
    /// time; the programs and the tests write files whole in other ways.
    @Test func nothingLeavesTemporaryFoldersBehind() throws {
        var found: [String] = []
        for folder in ["Sources", "Tests/SluiceTests", "Benchmarks"] {
            found += try Self.violations(under: repositoryRoot.appendingPathComponent(folder), patterns: ["atomically: true", "options: .atomic"])  // lint: the patterns
        }
        #expect(found.isEmpty, "\(found)")
    }

    /// A rule about column types asks a question `FieldType` answers in an exhaustive switch (`keepsJSONText`,
    /// `isOrdered`, …) or switches over the type itself: a comparison such as `type == .date` would let a new type
    /// slip past it unnoticed.
    @Test func columnTypesAreNotComparedCaseByCase() throws {
        let cases = "int64|uint64|double|bool|string|date|url|bytes|json|enumeration"
        let comparison = try Regex("(?:\\.type|\\btype|[tT]ypes\\[[^\\]]*\\])\\s*[!=]=\\s*\\.(?:\(cases))\\b|\\[\\.(?:\(cases))\\b[^\\]]*\\]\\.contains\\(")
        let found = try Self.lines(under: Self.sources).filter { line in
            let code = line.text.components(separatedBy: "//").first ?? ""
            return !line.text.contains("lint:") && code.contains(comparison)
        }.map { "\($0.file):\($0.number): \($0.text.trimmingCharacters(in: .whitespaces))" }
        #expect(found.isEmpty, "\(found)")
        // The rule sees such a comparison.
        #expect("if field.type == .date {".contains(comparison) && "[.int64, .uint64].contains(field.type)".contains(comparison))
    }

    /// The tokenizer is chosen once a run: the opener alone reads the options' choice, `Tokenizer` alone resolves it
    /// (and reads the environment), and every other part of the run asks the resolved `Tokenizer`.
    @Test func theTokenizerIsChosenOnce() throws {
        let homes = ["Tokenizer/TokenizerChoice.swift", "Engine/ReaderOptions.swift", "Tokenizer/Tokenizer.swift", "Readers/BatchSourceOpener.swift"]
        let readsOptions = try Regex("[oO]ptions\\.tokenizer\\b")
        let found = try Self.lines(under: Self.sources.appendingPathComponent("Sluice")).filter { line in
            let code = line.text.components(separatedBy: "//").first ?? ""
            let asksTheChoice = code.contains(readsOptions) || code.contains("TokenizerChoice") || code.contains("SLUICE_TOKENIZER")
            return asksTheChoice && !homes.contains { line.file.hasSuffix($0) }
        }.map { "\($0.file):\($0.number): \($0.text.trimmingCharacters(in: .whitespaces))" }
        #expect(found.isEmpty, "\(found)")
        let environment = try Self.violations(under: Self.sources.appendingPathComponent("Sluice"), patterns: ["SLUICE_TOKENIZER"])
        #expect(environment.allSatisfy { $0.contains("Tokenizer/Tokenizer.swift") } && !environment.isEmpty, "\(environment)")
        // The rule sees a read of the choice.
        #expect("guard options.tokenizer == .yajl".contains(readsOptions) && !"self.tokenizer = tokenizer".contains(readsOptions))
    }

    /// A file that grows past 600 lines holds more than one job: it is split by job (an extension a file), not
    /// left to grow.
    @Test func noSourceFileIsLongerThan600Lines() throws {
        var found: [String] = []
        for folder in ["Sources", "Tests", "Benchmarks"] {
            let root = repositoryRoot.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            for file in files where ["swift", "c", "cpp", "h", "py"].contains(file.pathExtension) && !file.path.contains("/.build") {
                let count = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count - 1
                if count > 600 { found.append("\(file.path.replacingOccurrences(of: repositoryRoot.path + "/", with: "")): \(count) lines") }
            }
        }
        #expect(found.isEmpty, "\(found)")
    }

    @Test func theLintSeesTheSources() throws {
        #expect(try Self.lines(under: Self.sources).count > 3000)
    }
}
