import Testing
@testable import Sluice

@Suite struct PlanCompilerTests {
    private func problems(_ fields: [FieldSpec]) -> [String] {
        mappingProblems { _ = try MappingSchema(fields: fields) }.map(\.description)
    }

    /// A key path of tens of thousands of segments once overflowed the compiler's stack: it is refused before any
    /// work, without quoting the path back.
    @Test func aKeyPathDeeperThanAnyInputIsRefusedWithoutWork() {
        let deep = Array(repeating: "a", count: 20_000).joined(separator: ".")
        #expect(problems([field("deep", .string, path: deep)]) == ["field 'deep': the key path has more than 1024 segments; no input can be read that deep"])
        let longest = Array(repeating: "a", count: FieldPath.maximumSegments).joined(separator: ".")
        #expect(problems([field("deep", .string, path: longest)]) == [])
    }

    /// Each numeric segment is read both as an object key and as an array index, doubling the trie below it: a
    /// path of many of them is refused once the trie would pass its bound, instead of taking minutes and gigabytes.
    @Test func numericSegmentsCannotMakeTheTrieExplode() {
        let many = "a." + Array(repeating: "0", count: 40).joined(separator: ".")
        let refusal = "the key paths make too large a trie (over 262144 nodes, 1048576 steps to build, or 64 MiB of key paths): a numeric segment is read both as an object key and as an array index, which doubles what lies below it (use fewer numeric segments in one path, or '*')"
        #expect(problems([field("many", .json, path: many)]) == [refusal])
        let some = "a." + Array(repeating: "0", count: 12).joined(separator: ".")
        #expect(problems([field("some", .json, path: some)]) == [])
        // Each further field on such a path would visit the whole subtree again: the steps count those visits.
        let repeated = (0..<1000).map { field("f\($0)", .json, path: some) }
        #expect(problems(repeated) == [refusal])
    }

    /// A path deeper than the reader's depth limit could never match: opening the reader says so, naming the field.
    @Test func aKeyPathPastTheReadersDepthLimitIsAMappingProblem() throws {
        let schema = try MappingSchema(fields: [field("ok", .string, path: "a.b.x"), field("deep", .string, path: "a.b.c.d")])
        #expect {
            _ = try ColumnarReader(input: .bytes(Array("{}".utf8)), schema: schema, options: ReaderOptions(maximumDepth: 3))
        } throws: { error in
            guard case SluiceError.invalidMapping(let problems) = error else { return false }
            return problems.map(\.description) == ["field 'deep': reads 4 levels deep, past the reader's depth limit of 3 (maximumDepth); it could never match"]
        }
        _ = try ColumnarReader(input: .bytes(Array("{}".utf8)), schema: schema, options: ReaderOptions(maximumDepth: 4))
    }

    @Test func reportsEveryProblemAtOnceEachNamingItsField() {
        #expect(problems([
            field("id", .int64),
            field("id", .string),
            field("bad", .string, path: "a..b"),
            field("", .bool, path: "flag"),
            field("user", .string),
            field("user_name", .string, path: "user.name"),
        ]) == [
            "field 'id': the name is used by more than one field",
            "field 'bad': key path 'a..b' has an empty segment",
            "field '': the name is empty",
            "field 'user': reads $.user as string, but 'user_name' reads inside it; only a json or transformed field can share a node with fields beneath it",
        ])
    }

    @Test func anEmptyMappingIsAProblem() {
        #expect(problems([]) == ["a mapping needs at least one field"])
    }

    @Test func jsonMayShareANodeWithFieldsBeneathIt() {
        #expect(problems([field("ceo", .json, path: "company_ceo"), field("ceo_name", .string, path: "company_ceo.name")]).isEmpty)
    }

    @Test func scalarsWithFieldsBeneathThemAreReportedInTheOrderOfThePaths() {
        // `c.d` is met first in the field list, but `a` comes before `c` in the trie, depth first.
        #expect(problems([
            field("ax", .string, path: "a.x"), field("cd", .string, path: "c.d"), field("cde", .string, path: "c.d.e"),
            field("ab", .string, path: "a.b"), field("abf", .string, path: "a.b.f"),
        ]) == [
            "field 'ab': reads $.a.b as string, but 'abf' reads inside it; only a json or transformed field can share a node with fields beneath it",
            "field 'cd': reads $.c.d as string, but 'cde' reads inside it; only a json or transformed field can share a node with fields beneath it",
        ])
    }

    /// Keys of one length that differ only in bytes the sampled hash passes over (`k00000x` … `k00999x`): a node of
    /// many children hashes whole keys, and finds each one.
    @Test func aNodeOfManyKeysFindsEachOfThem() throws {
        let keys = (0..<1_000).map { "k" + String(repeating: "0", count: 5 - String($0).count) + String($0) + "x" }
        let plan = try PlanCompiler.compile(keys.enumerated().map { field("f\($0.offset)", .string, path: $0.element, optional: true) })
        #expect(plan.nodes[0].hashesWholeKeys)
        for (column, key) in keys.enumerated() {
            let entry = Array(key.utf8).withUnsafeBufferPointer { buffer in
                buffer.baseAddress.map { plan.lookupFull(node: plan.nodes[0], key: $0, buffer.count) } ?? -1
            }
            let node = entry >= 0 ? plan.nodes[Int(plan.keyEntries[Int(entry)].node)] : PlanNode()
            #expect(entry >= 0 && node.targetCount == 1 && plan.targets[Int(node.targetStart)] == Int32(column), "\(key)")
        }
        let missing = Array("k01000x".utf8).withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { plan.lookupFull(node: plan.nodes[0], key: $0, buffer.count) } ?? 0
        }
        #expect(missing == -1)
        // A node of few children keeps the sampled hash.
        #expect(try !PlanCompiler.compile([field("a", .string, path: "x.a"), field("b", .string, path: "x.b")]).nodes[1].hashesWholeKeys)
    }

    @Test func aFieldPrintsItsSettingsNotTheirBox() {
        let text = String(describing: FieldSpec(name: "d", type: .date, isOptional: true, epochUnit: .milliseconds))
        #expect(text.hasPrefix(#"FieldSpec(name: "d", path: nil"#) && text.contains("milliseconds") && !text.contains("Box"), "\(text)")
    }

    @Test func scalarAtANumericSegmentConflictIsReportedOnce() {
        #expect(problems([field("first", .string, path: "tags.0"), field("first_name", .string, path: "tags.0.name")]) == [
            "field 'first': reads $.tags.0 as string, but 'first_name' reads inside it; only a json or transformed field can share a node with fields beneath it",
        ])
    }

    @Test func buildsOneNodePerPathStepAndBothBranchesForIndexes() throws {
        let plan = try PlanCompiler.compile([
            field("a", .int64, path: "user.id"), field("b", .string, path: "user.name"), field("c", .string, path: "media.0.url"),
        ])
        // $, user, media, user.id, user.name, media.0 (key), media[0] (index), and url under each.
        #expect(plan.nodeCount == 9)
        #expect(plan.displayPaths.sorted() == ["$", "$.media", "$.media.0", "$.media.0.url", "$.media[0]", "$.media[0].url", "$.user", "$.user.id", "$.user.name"])
    }

    @Test func looksUpEveryKeyThroughTheHashTable() throws {
        let names = (0..<200).map { "key_\($0)_" + String(repeating: "x", count: $0 % 7) }
        let plan = try PlanCompiler.compile(names.map { field($0, .int64) })
        let root = plan.nodes[0]
        for name in names {
            let entry = Array(name.utf8).withUnsafeBufferPointer { plan.lookupFull(node: root, key: $0.baseAddress!, $0.count) }
            #expect(entry >= 0)
            #expect(plan.displayPaths[Int(plan.keyEntries[Int(entry)].node)] == "$." + name)
        }
        let missing = Array("key_5".utf8).withUnsafeBufferPointer { plan.lookupFull(node: root, key: $0.baseAddress!, $0.count) }
        #expect(missing == -1)
    }
}
