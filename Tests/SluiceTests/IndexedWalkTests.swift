import CWalk
import Testing
import SluiceFixtures
@testable import Sluice

/// simdjson reads most records by a walk over its first stage's structural indexes, and leaves the rest to its
/// On-Demand walk. Wherever the first reads a record, it must give exactly what the On-Demand walk gives: the same
/// tape (kinds, nodes, bytes, offsets), the same end, the same counts of keys no field reads, the same verdict on
/// UTF-8. A record it reads that the On-Demand walk would hand to yajl would change a verdict; so the records here
/// are generated tweets damaged one byte at a time, at random places, with the bytes JSON's grammar turns on.
@Suite struct IndexedWalkTests {
    /// One walk of one record, its tape copied out of the parser.
    struct Walked: Equatable {
        var status: UInt32
        var entries: [Entry]
        var end: Int
        /// For each string entry, whether its bytes were copied out of the record (unescaped): the walks may differ
        /// in where they copy to, not in whether they copy.
        var copiedStrings: [Bool] = []
    }

    struct Entry: Equatable {
        var kind: Int32
        var node: Int32
        var bytes: [UInt8]?
        var length: Int
        var end: Int
    }

    /// A parser walking with the indexes first, or with On-Demand only.
    final class Walker {
        let parser: OpaquePointer
        let tables: MatchTables

        init(plan: CompiledPlan, indexes: Bool) throws {
            parser = try #require(sluice_simdjson_parser_create(256, .max))
            sluice_simdjson_parser_walk_indexes(parser, indexes)
            tables = MatchTables(plan: plan, mapsElements: false)
        }

        deinit { sluice_simdjson_parser_free(parser) }

        func walk(_ record: [UInt8]) -> Walked {
            // The padding holds what a chunk's next lines would: closing brackets first, then another record.
            let next = Array("}]}\n{\"id\":1,\"user\":{\"id\":[".utf8)
            let padded = record + (0..<SimdjsonTokenizer.padding).map { next[$0 % next.count] }
            return padded.withUnsafeBufferPointer { buffer in
                var tape: UnsafePointer<sluice_tape_entry>?
                var count = 0
                var end = 0
                let status = sluice_simdjson_match(parser, buffer.baseAddress, record.count, buffer.count, tables.tables, nil, 0, &tape, &count, &end)
                guard status == SLUICE_MATCH_OK else { return Walked(status: status.rawValue, entries: [], end: 0) }
                let walked = UnsafeBufferPointer(start: tape, count: count)
                let entries = walked.map { entry in
                    // Element markers and list starts carry no bytes; a key's `end` is its position.
                    Entry(kind: entry.kind, node: entry.node, bytes: entry.bytes.map { Array(UnsafeBufferPointer(start: $0, count: entry.length)) },
                          length: entry.length, end: entry.end)
                }
                let record = UnsafeRawBufferPointer(buffer)
                let copied = walked.filter { $0.kind == Int32(SLUICE_TAPE_STRING.rawValue) }.map { entry in
                    entry.bytes.map { !(record.baseAddress! <= UnsafeRawPointer($0) && UnsafeRawPointer($0) < record.baseAddress! + record.count) } ?? false
                }
                return Walked(status: status.rawValue, entries: entries, end: end, copiedStrings: copied)
            }
        }

        func unmappedCounts() -> [UnmappedKey: Int] {
            var sightings: UnsafePointer<sluice_unmapped_sighting>?
            let count = sluice_simdjson_take_unmapped(parser, &sightings)
            var counts: [UnmappedKey: Int] = [:]
            UnmappedKey.count(UnsafeBufferPointer(start: sightings, count: count), into: &counts)
            return counts
        }
    }

    /// Bytes a damage puts in or takes the place of: every one JSON's grammar turns on, and some it never allows.
    static let damageBytes = Array(#"{}[]:,"\ 0-.e+tfn"#.utf8) + [0x09, 0x0A, 0x01, 0xC3, 0xFF]

    /// Clean tweets, each also damaged at `damages` random places (a byte deleted, inserted or replaced), and the
    /// hand-made shapes the matched walks are tested on.
    static func records(count: Int, damages: Int, seed: UInt64) -> [[UInt8]] {
        var generator = TweetGenerator(seed: seed)
        var random = SplitMix(seed: seed)
        var records: [[UInt8]] = []
        for ordinal in 1...count {
            let clean = Array(generator.nextRecord(ordinal: ordinal).utf8)
            records.append(clean)
            for _ in 0..<damages {
                var damaged = clean
                let at = Int(random.next() % UInt64(damaged.count))
                let byte = damageBytes[Int(random.next() % UInt64(damageBytes.count))]
                switch random.next() % 3 {
                case 0: damaged.remove(at: at)
                case 1: damaged.insert(byte, at: at)
                default: damaged[at] = byte
                }
                records.append(damaged)
            }
        }
        let shapes = MatchedWalkTests.listShapes + MatchedWalkTests.listMismatches + MatchedWalkTests.unreadDamage
            + MatchedWalkTests.capturedDamage + MatchedWalkTests.capturedShapes + MatchedWalkTests.escapedKeys
        records += shapes.map { Array($0.utf8) }
        records += TokenizerDifferentialTests.damagedTweets(count: 60, seed: seed).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        return records
    }

    /// Plans whose records the indexes leave to the On-Demand walk: a plan reading no key of the record, and one that
    /// looks beneath keys whose values the tweets hold as another kind.
    static let onDemandMappings: Set = ["elements of the record", "only the whole record, strict", "ignoring beneath keys no field reads"]

    @Test(arguments: 0..<MatchedWalkTests.mappings.count)
    func bothWalksGiveTheSameTape(_ mapping: Int) throws {
        let (name, fields, options) = MatchedWalkTests.mappings[mapping]
        let plan = try PlanCompiler.compile(fields, options: options)
        let indexed = try Walker(plan: plan, indexes: true)
        let onDemand = try Walker(plan: plan, indexes: false)
        let records = Self.records(count: 40, damages: 25, seed: UInt64(mapping) + 1)
        var disagreements = 0
        for record in records {
            let first = indexed.walk(record), second = onDemand.walk(record)
            // Where the indexed walk leaves a record to the On-Demand walk, the parser gives that walk's tape anyway.
            if first != second {
                disagreements += 1
                if disagreements <= 3 {
                    Issue.record("\(name): the walks differ on \(String(decoding: record, as: UTF8.self)):\n\(first)\n\(second)")
                }
            }
        }
        #expect(disagreements == 0, "\(name): \(disagreements) of \(records.count) records walked differently")
        let counted = indexed.unmappedCounts(), countedOnDemand = onDemand.unmappedCounts()
        let differing = Set(counted.keys).union(countedOnDemand.keys).filter { counted[$0] != countedOnDemand[$0] }
        #expect(differing.isEmpty, "\(name): \(differing.count) keys no field reads counted differently, such as \(differing.prefix(3).map { String(decoding: $0.key, as: UTF8.self) })")
        #expect(sluice_simdjson_indexed_records(onDemand.parser) == 0)
        // Every other plan's records are read by the indexes, every clean one at least.
        let read = sluice_simdjson_indexed_records(indexed.parser)
        if !Self.onDemandMappings.contains(name) { #expect(read >= 40, "\(name): the indexed walk read \(read) records") }
    }

    /// The walks check a number's grammar and look for a string's escapes a word or a block at a time, reading past
    /// the token: a number is read exactly when JSON's grammar allows it (lengths across the word's edges), and a
    /// string's escape is found wherever it sits in its block, never one in the bytes after the string.
    @Test func numbersAndEscapesAcrossWordEdges() throws {
        let plan = try PlanCompiler.compile(ReferenceMapping.fields, options: MappingOptions())
        let walker = try Walker(plan: plan, indexes: true)
        let grammar = try Regex(#"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?"#)
        var random = SplitMix(seed: 7)
        var numbers = ["0", "-0", "01", "-", "1.", ".5", "1e", "1e+", "1E-7", "12345678", "123456789", "1234567812345678",
                       "-12345678.12345678e+12345678", "0.00000000", "1.2.3", "1e5e5", "--1", "+1", "1ee5"]
        let alphabet = Array("0123456789-+.eE")
        for _ in 0..<3000 {
            numbers.append(String((0..<Int(1 + random.next() % 24)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }))
        }
        for number in numbers {
            let walked = walker.walk(Array(#"{"id":\#(number),"id_str":"1"}"#.utf8))
            let isNumber = (try? grammar.wholeMatch(in: number)) != nil
            #expect((walked.status == SLUICE_MATCH_OK.rawValue) == isNumber, "\(number)")
            if isNumber { #expect(walked.entries.first?.bytes == Array(number.utf8), "\(number)") }
        }
        for before in 0..<40 {
            for after in 0..<4 {
                let text = String(repeating: "a", count: before) + #"\n"# + String(repeating: "b", count: after)
                let escaped = walker.walk(Array(#"{"id":1,"id_str":"\#(text)"}"#.utf8))
                #expect(escaped.entries.last { $0.kind == Int32(SLUICE_TAPE_STRING.rawValue) }?.bytes == Array((String(repeating: "a", count: before) + "\n" + String(repeating: "b", count: after)).utf8))
                #expect(escaped.copiedStrings == [true])
                // No escape in the string itself, one in the next key a few bytes on: read in place.
                let plain = walker.walk(Array(#"{"id":1,"id_str":"\#(String(repeating: "a", count: before))","\\n":1}"#.utf8))
                #expect(plain.entries.last { $0.kind == Int32(SLUICE_TAPE_STRING.rawValue) }?.bytes == Array(String(repeating: "a", count: before).utf8))
                #expect(plain.copiedStrings == [false])
            }
        }
    }

    /// A key is matched against the guess for its position sixteen bytes at a time: keys of the guess's length that
    /// differ in one byte anywhere (either side of the sixteenth) are other keys, whether the guess was a field's
    /// key or one no field reads.
    @Test func keysDifferingInOneByteAcrossTheBlockEdgeAreOtherKeys() throws {
        for length in [1, 8, 15, 16, 17, 24, 31, 32] {
            let name = String((0..<length).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) })
            let plan = try PlanCompiler.compile([FieldSpec(name: "v", path: name, type: .string, isOptional: true)], options: MappingOptions())
            let walker = try Walker(plan: plan, indexes: true)
            func read(_ key: String) -> [UInt8]? {
                walker.walk(Array(#"{"\#(key)":"x","id":1}"#.utf8)).entries.first { $0.kind == Int32(SLUICE_TAPE_STRING.rawValue) }?.bytes
            }
            for place in 0..<length {
                var other = Array(name.utf8)
                other[place] = UInt8(ascii: "Z")
                let otherKey = String(decoding: other, as: UTF8.self)
                // The field's key as the guess, then the other key where it was: not the field's.
                #expect(read(name) == Array("x".utf8))
                #expect(read(otherKey) == nil, "\(otherKey) read as \(name)")
                // The other key as the guess (no field reads it), then the field's key: the field's.
                #expect(read(name) == Array("x".utf8), "\(name) after \(otherKey)")
            }
        }
    }
}
