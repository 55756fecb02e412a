import Foundation
import Synchronization
import Testing
@testable import Sluice

/// What yajl's event walk, the core the matched walks replaced, gave on the differential tests' inputs: a digest of
/// each run's whole outcome (rows, rejections with their raw text, counts, unmapped keys), kept under a name in
/// Fixtures/golden/event-walk.digests. They were recorded from the event walk itself while it was still there, when
/// the matched walks gave the same; the matched walks are held to them now that it is gone. They hold the one
/// difference allowed (``MatchedWalkTests/aDamagedLineFailsForItsDamageAlone(_:workers:)`` shows it): a record that
/// is no well-formed JSON value fails for its damage alone, where the events also named the fields that failed
/// before it and counted the keys no field reads that they met before it (for a document, also before the size
/// limit).
///
/// `SLUICE_UPDATE_GOLDEN=1 swift test` records the runs as they stand instead of checking them: only for a change
/// of behaviour that is meant, named in the CHANGELOG, after reading the failing case's transcript.
enum EventWalkDigests {
    static let url = fixturesDirectory.appendingPathComponent("golden/event-walk.digests")
    static let updates = ProcessInfo.processInfo.environment["SLUICE_UPDATE_GOLDEN"] == "1"
    static let recorded: [String: String] = {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [:] }
        var digests: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let tab = line.lastIndex(of: "\t") else { continue }
            digests[String(line[..<tab])] = String(line[line.index(after: tab)...])
        }
        return digests
    }()
    /// The digests a recording run has written so far, kept whole so that concurrent tests each add theirs, and the
    /// names it wrote: runs recorded under one name must agree.
    static let written = Mutex<(digests: [String: String], names: Set<String>)?>(nil)

    /// Expects the digest of `text` to be the one recorded under `name` (or records it).
    static func expect(_ text: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let key = name.debugDescription
        let digest = Self.digest(of: text)
        guard !updates else {
            written.withLock { written in
                var (digests, names) = written ?? (recorded, [])
                if names.contains(key), digests[key] != digest {
                    Issue.record("\(name): runs recorded under one name differ; this one gave:\n\(text)", sourceLocation: sourceLocation)
                }
                digests[key] = digest
                names.insert(key)
                written = (digests, names)
                let lines = digests.sorted { $0.key < $1.key }.map { "\($0.key)\t\($0.value)\n" }.joined()
                do {
                    try lines.write(to: url, atomically: false, encoding: .utf8)
                } catch {
                    Issue.record("could not record \(url.path): \(error)", sourceLocation: sourceLocation)
                }
            }
            return
        }
        guard let expected = recorded[key] else {
            Issue.record("no digest is recorded for \(key) in \(url.lastPathComponent)", sourceLocation: sourceLocation)
            return
        }
        #expect(digest == expected, "\(name): the run differs from what the event walk gave; it gave now:\n\(text)", sourceLocation: sourceLocation)
    }

    static func expect(_ outcome: MatchedWalkTests.Outcome, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        expect(outcome.recordedText, named: name, sourceLocation: sourceLocation)
    }

    /// Two 64-bit FNV-1a hashes of `text` from different starting values: a change anywhere in a run changes it.
    static func digest(of text: String) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x6c62_272e_07bb_0142
        for byte in text.utf8 {
            first = (first ^ UInt64(byte)) &* 0x100_0000_01b3
            second = (second ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return [first, second].map { half in
            let digits = String(half, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}

extension MatchedWalkTests.Outcome {
    /// Everything the outcome's `==` compares, as text: the byte count only where the run ended without an error
    /// (where it ends with one, how far the reading had read is the reader's affair).
    var recordedText: String {
        let counts = transcript.statistics
        return description + "\n-- raw text\n" + transcript.rawTexts.joined(separator: "\n")
            + "\n-- \(counts.recordsRead) read, \(counts.recordsMapped) mapped, \(counts.recordsRejected) rejected"
            + (transcript.error == nil ? ", \(counts.bytesRead) bytes" : "") + ", shape \(counts.shape)"
    }
}
