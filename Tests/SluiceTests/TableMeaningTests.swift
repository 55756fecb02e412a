import CSQLite
import Foundation
import Testing
@testable import Sluice
@testable import SluiceImport

/// What a checkpoint says the table's rows mean: pinned for the bundled mappings, changed by every setting that
/// changes a value, and `--resume` with another mapping (or from a checkpoint that does not say) refused.
@Suite struct TableMeaningTests {
    static func meaning(_ yaml: String, key: [Int] = [], dateStorage: DateStorage? = .text) throws -> TableMeaning {
        let schema = try MappingSchema(mappingText: yaml)
        return TableMeaning(layout: TableLayout(name: "t", fields: schema.fields, keyColumns: key), options: schema.options, dateStorage: dateStorage)
    }

    /// The bundled mappings' meanings and fingerprints, as checkpoints store them: a change here means that
    /// imports checkpointed by an earlier build can no longer be resumed, so it must be deliberate.
    @Test func bundledMappingsKeepTheirMeaning() throws {
        var transcript = ""
        for folder in ["examples", "golden"] {
            let directory = fixturesDirectory.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).filter({ $0.hasSuffix(".mapping.yaml") }).sorted() {
                let schema = try MappingSchema(contentsOfFile: directory.appendingPathComponent(name).path)
                let layout = TableLayout(name: String(name.dropLast(".mapping.yaml".count)), fields: schema.fields)
                let meaning = TableMeaning(layout: layout, options: schema.options, dateStorage: .text)
                transcript += "# \(folder)/\(name): \(meaning.fingerprint)\n" + meaning.text + "\n\n"
            }
        }
        try assertGolden(transcript, file: "golden/table-meanings.txt")
    }

    /// Each setting that changes what a column holds changes the meaning, and the change is named.
    @Test func everySettingThatChangesValuesIsNamed() throws {
        let base = """
            fields:
              - {name: id, type: int64}
              - {name: followers, path: user.followers_count, type: int64, optional: true}
              - {name: at, type: date}

            """
        let before = try Self.meaning(base)
        let variants: [(String, String)] = [
            (base.replacingOccurrences(of: "user.followers_count", with: "user.friends_count"),
             #""followers" was int64 from "user.followers_count", optional and is now int64 from "user.friends_count", optional"#),
            (base.replacingOccurrences(of: "{name: id, type: int64}", with: "{name: id, type: string}"), #""id" was int64 from "id" and is now string from "id""#),
            (base.replacingOccurrences(of: "{name: at, type: date}", with: "{name: at, type: date, formats: [yyyy-MM-dd]}"), #""at" was date"#),
            (base.replacingOccurrences(of: "{name: at, type: date}", with: "{name: at, type: date, unit: milliseconds}"), "epoch in milliseconds"),
            (base.replacingOccurrences(of: "type: int64, optional: true}", with: "type: int64, optional: true, default: 0}"), "default"),
            (base.replacingOccurrences(of: "type: int64, optional: true}", with: "type: int64, optional: true, validate: {min: 0}}"), "validators"),
            (base.replacingOccurrences(of: "type: int64, optional: true}", with: "type: int64, optional: true, nulls: [\"\"]}"), "null when \"\""),
            (base.replacingOccurrences(of: "type: int64, optional: true}", with: "type: int64, optional: true, clean: [trim]}"), "cleanups"),
            (base.replacingOccurrences(of: "type: int64, optional: true}", with: "type: int64}"), #""followers" was int64 from "user.followers_count", optional and is now int64"#),
            (base + "  - {name: extra, type: string}\n", #""extra" is new"#),
            (base.replacingOccurrences(of: "  - {name: at, type: date}\n", with: ""), #""at" is gone"#),
            ("records: items\n" + base, #"records at "items""#),
            ("unmapped: reject\n" + base, "unmapped keys rejected"),
            ("unmapped: reject\nignore: [meta]\n" + base, #"unmapped keys rejected but "meta""#),
        ]
        for (yaml, named) in variants {
            let after = try Self.meaning(yaml)
            #expect(after.fingerprint != before.fingerprint, "\(yaml)")
            let changes = after.changes(since: before).joined(separator: "; ")
            #expect(changes.contains(named), "\(changes)")
        }
        // A decimal's scale and rounding change its values.
        let price = base + "  - {name: price, type: decimal, precision: 10, scale: 2}\n"
        for (changed, named) in [("scale: 3", "scale 3"), ("scale: 2, rounding: half-up", "rounding half-up")] {
            let changes = try Self.meaning(price.replacingOccurrences(of: "scale: 2", with: changed)).changes(since: try Self.meaning(price)).joined(separator: "; ")
            #expect(changes.contains(named), "\(changes)")
        }
        // A child table's columns are part of its records' table's meaning.
        let tabled = base + "  - {name: tags, table: {fields: [{name: text, type: string}]}}\n"
        for (changed, named) in [("{name: text, type: int64}", #"child table from "tags" of [column "text": int64"#),
                                 ("{name: text, path: label, type: string}", #"from "label""#)] {
            let after = try Self.meaning(tabled.replacingOccurrences(of: "{name: text, type: string}", with: changed))
            #expect(after.changes(since: try Self.meaning(tabled)).joined(separator: "; ").contains(named))
        }
        let indexed = try Self.meaning(tabled.replacingOccurrences(of: "{fields:", with: "{index: at, fields:"))
        #expect(indexed.changes(since: try Self.meaning(tabled)).joined(separator: "; ").contains(#"index "at""#))
        let linked = try Self.meaning(tabled.replacingOccurrences(of: "{fields:", with: "{links: {_source: src}, fields:"))
        #expect(linked.changes(since: try Self.meaning(tabled)).joined(separator: "; ").contains(#"link "_source" as "src""#))
        #expect(try Self.meaning(base, key: [0]).changes(since: before) == [#"the table was table "t"; dates stored as text and is now table "t"; key "id"; dates stored as text"#])
        #expect(try Self.meaning(base, dateStorage: .epochMilliseconds).fingerprint != before.fingerprint)
        // The same mapping written otherwise means the same.
        #expect(try Self.meaning(base.replacingOccurrences(of: "{name: id, type: int64}", with: "{type: int64, name: id, path: id}")) == before)
        // A name with a quote in it is told apart from its settings.
        let quoted = try Self.meaning("fields:\n  - {name: 'a\": b', type: int64}\n")
        let renamed = try Self.meaning("fields:\n  - {name: 'a\": b', path: 'x', type: int64}\n")
        #expect(renamed.changes(since: quoted) == [#""a\": b" was int64 from "a\": b" and is now int64 from "x""#])
    }

    // MARK: - Resuming

    /// The dump's mapping changed by `change`, under the same file name (so, the same table) in folder `name`.
    static func tweak(_ dump: ImportCommandTests.Dump, as name: String, _ change: (String) -> String) throws -> String {
        try FileManager.default.createDirectory(atPath: dump.path(name), withIntermediateDirectories: true)
        let path = dump.path(name + "/" + URL(fileURLWithPath: dump.mapping).lastPathComponent)
        try change(try String(contentsOfFile: dump.mapping, encoding: .utf8)).write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// `--resume` through a mapping that reads another key, or gives a column another type, is refused before a
    /// row is written, naming the columns; the same mapping resumes.
    @Test func resumingWithAnotherMappingIsRefused() throws {
        let dump = try ImportCommandTests.Dump(count: 3000)
        let database = dump.path("out.db")
        #expect(try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", database, "--limit", "1000", "--table", "items"]).status == 2)
        let otherKey = try Self.tweak(dump, as: "other-key") { $0.replacingOccurrences(of: "{name: name, type: string}", with: "{name: name, path: title, type: string}") }
        let otherType = try Self.tweak(dump, as: "other-type") { $0.replacingOccurrences(of: "{name: id, type: int64}", with: "{name: id, type: string}") }
        for (mapping, named) in [(otherKey, #""name" was string from "name" and is now string from "title""#), (otherType, #""id" was int64 from "id" and is now string from "id""#)] {
            let resumed = try ImportCommandTests.run(["import", "-m", mapping, dump.input, "--to", database, "--resume", "--table", "items"])
            #expect(resumed.status == 1, "\(resumed.standardError)")
            #expect(resumed.standardError.contains("table items was imported through another mapping (fingerprint "), "\(resumed.standardError)")
            #expect(resumed.standardError.contains(named), "\(resumed.standardError)")
            #expect(resumed.standardError.contains("Resume with the mapping it was started with, or import again with --if-exists replace"), "\(resumed.standardError)")
            #expect(try ImportCommandTests.table(database, "SELECT count(*) FROM items") == [[.integer(990)]])
        }
        // Ordinals within a byte range are not the file's: a range is not resumed.
        let ranged = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", database, "--resume", "--byte-range", "0:4096"])
        #expect(ranged.status == 1 && ranged.standardError.contains("--resume continues whole files"), "\(ranged.standardError)")
        #expect(try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", database, "--resume", "--table", "items"]).status == 2)
        #expect(try ImportCommandTests.table(database, "SELECT count(*), count(DISTINCT id) FROM items") == [[.integer(2970), .integer(2970)]])
    }

    /// A checkpoint table an earlier version wrote (no mapping column) is refused on resume, naming
    /// `--if-exists replace`, which then works.
    @Test func aCheckpointOfAnEarlierVersionIsRefused() throws {
        let dump = try ImportCommandTests.Dump(count: 2000)
        let database = dump.path("old.db")
        #expect(try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", database, "--limit", "500"]).status == 2)
        // The checkpoint table as earlier versions created it.
        try SQLiteRows.execute(database, "ALTER TABLE _sluice_checkpoints DROP COLUMN mapping")
        let resumed = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", database, "--resume"])
        #expect(resumed.status == 1, "\(resumed.standardError)")
        #expect(resumed.standardError.contains("the checkpoints of table items were written by an earlier version of Sluice"), "\(resumed.standardError)")
        #expect(resumed.standardError.contains("import again with --if-exists replace"), "\(resumed.standardError)")
        let replaced = try ImportCommandTests.run(["import", "-m", dump.mapping, dump.input, "--to", database, "--if-exists", "replace"])
        #expect(replaced.status == 2, "\(replaced.standardError)")
        #expect(try ImportCommandTests.table(database, "SELECT count(*) FROM items") == [[.integer(2000 - 2000 / 97)]])
        #expect(try ImportCommandTests.table(database, "SELECT count(*) FROM _sluice_checkpoints WHERE mapping LIKE 'table \"items\"%'") == [[.integer(1)]])
    }
}
