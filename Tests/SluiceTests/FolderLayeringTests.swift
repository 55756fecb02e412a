import Foundation
import Testing

/// The library's folders are layers: no two folders need each other, directly or through others. A folder needs
/// another when its code (outside comments and string literals) names a type declared at the top level there.
@Suite struct FolderLayeringTests {
    static let library = repositoryRoot.appendingPathComponent("Sources/Sluice")

    /// Per folder, the folders whose types it names.
    static func dependencies() throws -> [String: Set<String>] {
        let folders = try FileManager.default.contentsOfDirectory(atPath: library.path).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: library.appendingPathComponent(name).path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
        var code: [String: [String]] = [:]
        var owner: [String: String] = [:]
        let declaration = try Regex(#"(?m)^(?:public |package |internal |private |fileprivate |final |indirect )*(?:struct|class|enum|protocol|actor|typealias)\s+([A-Z]\w*)"#)
        let commentsAndStrings = try Regex(#"//[^\n]*|"(?:[^"\\\n]|\\.)*""#)
        for folder in folders {
            let files = FileManager.default.enumerator(at: library.appendingPathComponent(folder), includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
            for file in files {
                let text = try String(contentsOf: file, encoding: .utf8)
                for match in text.matches(of: declaration) {
                    if let name = match.output[1].substring { owner[String(name), default: folder] = owner[String(name)] ?? folder }
                }
                code[folder, default: []].append(text.replacing(commentsAndStrings, with: "\"\""))
            }
        }
        var result: [String: Set<String>] = [:]
        for (folder, texts) in code {
            let words = Set(texts.flatMap { $0.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init) })
            result[folder] = Set(words.compactMap { owner[$0] }.filter { $0 != folder })
        }
        return result
    }

    @Test func noTwoFoldersNeedEachOther() throws {
        var remaining = try Self.dependencies()
        #expect(remaining.count > 10)
        // Peel off folders that need nothing left; whatever cannot be peeled off is in a cycle.
        while let free = remaining.first(where: { $0.value.isSubset(of: []) || $0.value.allSatisfy { remaining[$0] == nil } })?.key {
            remaining[free] = nil
        }
        let cycle = remaining.mapValues { $0.filter { remaining[$0] != nil }.sorted() }.sorted { $0.key < $1.key }
        #expect(remaining.isEmpty, "folders in a cycle, with what each needs among them: \(cycle)")
    }

    /// The README's layout lists the library's folders lowest layer first: each once, none needing one listed after it.
    @Test func theReadmeListsTheFoldersLowestLayerFirst() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.hasPrefix("| `Sources/Sluice/` folders") })
        let rows = lines[(start + 1)...].prefix { $0.hasPrefix("| `") && !$0.hasPrefix("| `Sources/") }
        let listed = rows.compactMap { $0.split(separator: "`").dropFirst().first.map(String.init) }
        let dependencies = try Self.dependencies()
        #expect(listed.sorted() == dependencies.keys.sorted(), "the README lists \(listed), the library has \(dependencies.keys.sorted())")
        for (index, folder) in listed.enumerated() {
            let later = Set(listed[(index + 1)...])
            let needed = dependencies[folder, default: []].intersection(later).sorted()
            #expect(needed.isEmpty, "\(folder) is listed before \(needed), which it needs")
        }
    }
}
