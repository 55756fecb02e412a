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
                let path = file.path.replacingOccurrences(of: repositoryRoot.path + "/", with: "")
                for index in publicDeclarations(in: lines) {
                    read += 1
                    if !isDocumented(lines, before: index) { found.append("\(path):\(index + 1): \(lines[index].trimmingCharacters(in: .whitespaces))") }
                }
            }
        }
        return (found, read)
    }

    /// The lines that declare something public: those that say `public` (protocol witnesses left out), and the
    /// cases of a public enum and the requirements of a public protocol, which are public without saying so.
    static func publicDeclarations(in lines: [String]) -> [Int] {
        var result: [Int] = []
        /// The indentation of the body's members and its kind, while inside a public enum or protocol.
        var body: (members: String, isProtocol: Bool)?
        for (index, line) in lines.enumerated() {
            if let current = body {
                if line.hasPrefix(String(current.members.dropLast(4)) + "}") {
                    body = nil
                } else if line.hasPrefix(current.members) && !line.hasPrefix(current.members + " ") {
                    let member = line.dropFirst(current.members.count)
                    let starts = current.isProtocol ? ["var ", "func ", "init", "static ", "associatedtype ", "mutating ", "subscript"] : ["case "]
                    if starts.contains(where: member.hasPrefix) { result.append(index) }
                }
            }
            guard let match = line.firstMatch(of: declaration), !line.contains("public import") else { continue }
            let rest = String(match.output.1)
            for kind in ["enum ", "protocol "] where rest.hasPrefix(kind) && line.hasSuffix("{") {
                body = (String(line.prefix { $0 == " " }) + "    ", kind == "protocol ")
            }
            if !protocolWitnesses.contains(where: rest.hasPrefix) { result.append(index) }
        }
        return result
    }

    /// Whether a doc comment ends just above line `index`, past attribute lines.
    static func isDocumented(_ lines: [String], before index: Int) -> Bool {
        var above = index - 1
        while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
        guard above >= 0 else { return false }
        let text = lines[above].trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("///") { return true }
        // A block comment counts when it is a doc comment: `/**`.
        guard text.hasSuffix("*/") else { return false }
        while above >= 0 && !lines[above].contains("/*") { above -= 1 }
        return above >= 0 && lines[above].contains("/**")
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
        #expect(!Self.isDocumented(["/* Not a doc comment. */", "public var c = 2"], before: 1))
        let enumeration = ["public enum E {", "    /// One.", "    case one", "    case two", "    func f() {", "        switch self { case .one: break }", "    }", "}",
                           "public protocol P {", "    var p: Int { get }", "}"]
        #expect(Self.publicDeclarations(in: enumeration) == [0, 2, 3, 8, 9])
    }
}
