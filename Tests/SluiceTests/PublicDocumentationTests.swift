import Foundation
import Testing

/// Every public declaration of the libraries says what it is for in a doc comment (`///` or `/** */` just above it,
/// past its attributes), which DocC shows. Members that only fulfil a standard protocol's requirement (`description`,
/// `==`, `hash(into:)`, `init(from:)`, literals, an async sequence's iterator) show the protocol's documentation and
/// are not asked for one.
@Suite struct PublicDocumentationTests {
    static let libraries = ["Sources/Sluice", "Sources/SluiceImport", "Sources/SluiceWriters"]

    /// Declarations that fulfil a standard library or Foundation protocol, named as they start after `public`.
    /// (After `public` and modifiers such as `static`.)
    static let protocolWitnesses = [
        "var description:", "var debugDescription:", "var customMirror:", "var errorDescription:", "func == (", "func < (",
        "func hash(into", "init(from decoder:", "func encode(to encoder:", "init(integerLiteral", "init(stringLiteral", "init(booleanLiteral",
        "init(floatLiteral", "init(nilLiteral", "func makeAsyncIterator()", "func next() async", "typealias Element", "var valueReading:",
    ]

    static var declaration: Regex<(Substring, Substring)> { #/^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:static|final|mutating|nonisolated|convenience|override|indirect|required)\s+)*(.*)$/# }

    /// The public declarations without a doc comment, as `file:line: declaration`, and how many were read.
    static func undocumented(in folders: [String]) throws -> (found: [String], read: Int) {
        var found: [String] = []
        var read = 0
        for folder in folders {
            let root = repositoryRoot.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            for file in files where file.pathExtension == "swift" {
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                for (index, line) in lines.enumerated() {
                    guard let match = line.firstMatch(of: declaration), !line.contains("public import") else { continue }
                    read += 1
                    let rest = String(match.output.1)
                    if protocolWitnesses.contains(where: rest.hasPrefix) { continue }
                    if isDocumented(lines, before: index) { continue }
                    let path = file.path.replacingOccurrences(of: repositoryRoot.path + "/", with: "")
                    found.append("\(path):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        return (found, read)
    }

    /// Whether a doc comment ends just above line `index`, past attribute lines.
    static func isDocumented(_ lines: [String], before index: Int) -> Bool {
        var above = index - 1
        while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
        guard above >= 0 else { return false }
        let text = lines[above].trimmingCharacters(in: .whitespaces)
        return text.hasPrefix("///") || text.hasSuffix("*/")
    }

    @Test func everyPublicDeclarationHasADocComment() throws {
        let (found, read) = try Self.undocumented(in: Self.libraries)
        #expect(read > 300, "the rule read only \(read) public declarations")
        #expect(found.isEmpty, "public declarations without a doc comment:\n\(found.joined(separator: "\n"))")
    }

    /// The rule sees what it should, and lets through what it should.
    @Test func theRuleSeesAnUndocumentedDeclaration() throws {
        let lines = ["/// Documented.", "@inlinable", "public func a() {}", "", "public var b = 1", "    public static func == (l: A, r: A) -> Bool"]
        #expect(Self.isDocumented(lines, before: 2))
        #expect(!Self.isDocumented(lines, before: 4))
        #expect(lines[4].firstMatch(of: Self.declaration)?.output.1 == "var b = 1")
        #expect(lines[5].firstMatch(of: Self.declaration).map { String($0.output.1) }.map { rest in Self.protocolWitnesses.contains { rest.hasPrefix($0) } } == true)
    }
}
