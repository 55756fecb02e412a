import Testing
@testable import Sluice

@Suite struct KeyPathTests {
    private func keys(_ text: String) throws -> [String] {
        try FieldPath(parsing: text).segments.map { String(decoding: $0.key, as: UTF8.self) }
    }

    @Test func splitsOnDots() throws {
        #expect(try keys("user.stats.views") == ["user", "stats", "views"])
        #expect(try keys("id") == ["id"])
    }

    @Test func dollarIsTheWholeRecordAndMayPrefixAPath() throws {
        #expect(try FieldPath(parsing: "$").segments.isEmpty)
        #expect(try keys("$.user.name") == ["user", "name"])
    }

    @Test func escapedDotStaysInTheKey() throws {
        #expect(try keys("a\\.b.c") == ["a.b", "c"])
        #expect(try keys("back\\\\slash") == ["back\\slash"])
    }

    @Test func decimalSegmentsAreAlsoArrayIndexes() throws {
        let path = try FieldPath(parsing: "user_avatars.0.image_url")
        #expect(path.segments.map(\.index) == [nil, 0, nil])
        #expect(try FieldPath(parsing: "a.12").segments[1].index == 12)
        // Leading zeros, signs and escaped digits are keys only.
        #expect(try FieldPath(parsing: "a.01").segments[1].index == nil)
        #expect(try FieldPath(parsing: "a.-1").segments[1].index == nil)
        #expect(try FieldPath(parsing: "a.\\\\1").segments[1].index == nil)
    }

    @Test func unicodeKeysAreMatchedByTheirBytes() throws {
        #expect(try FieldPath(parsing: "名前.é").segments.map(\.key) == [Array("名前".utf8), Array("é".utf8)])
    }

    @Test(arguments: [
        ("", "the key path is empty (use $ for the whole record)"),
        ("a..b", "key path 'a..b' has an empty segment"),
        ("a.", "key path 'a.' has an empty segment"),
        (".a", "key path '.a' has an empty segment"),
        ("a\\b", "key path 'a\\b' has a '\\' that is not followed by '.', '\\' or '*'"),
        ("a\\", "key path 'a\\' has a '\\' that is not followed by '.', '\\' or '*'"),
    ])
    func rejectsMalformedPaths(_ text: String, _ message: String) {
        #expect(throws: FieldPathSyntaxError(message: message)) { try FieldPath(parsing: text) }
    }

    @Test func rendersAsRejectionsPrintIt() throws {
        #expect(try FieldPath(parsing: "user.stats.views").description == "$.user.stats.views")
        #expect(try FieldPath(parsing: "a\\.b").description == "$.a\\.b")
        #expect(try FieldPath(parsing: "$").description == "$")
    }
}
