import Foundation
import Testing
@testable import Sluice
@testable import SluiceWriters

/// Each way a run can fail has the category a job needs to act on it: its own options, its input's syntax or data,
/// or the machine's input and output. Problems with the input are never reported as options.
@Suite struct ErrorCategoryTests {
    static func failure(_ body: () throws(SluiceError) -> Void) -> SluiceError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    static func read(_ text: String, _ fields: [FieldSpec] = [field("id", .int64)], options: ReaderOptions = ReaderOptions(),
                     schemaOptions: MappingOptions = MappingOptions()) -> SluiceError? {
        failure { () throws(SluiceError) in
            let reader = try ColumnarReader(input: .bytes(Array(text.utf8)), schema: try MappingSchema(fields: fields, options: schemaOptions), options: options)
            while try reader.next() != nil {}
        }
    }

    @Test func malformedAndTruncatedInputIsSyntax() {
        #expect(Self.read("{\"id\": 1,,}\n")?.category == .syntax)
        #expect(Self.read("{\"id\": 1} 2\n", options: ReaderOptions(shape: .ndjson))?.category == .syntax)
        #expect(Self.read("[{\"id\": 1}, {\"id\": 2", options: ReaderOptions(shape: .array, rejectionPolicy: .collect))?.category == .truncated)
    }

    @Test func valuesThatDoNotFitAreData() {
        #expect(Self.read("{\"id\": \"x\"}\n")?.category == .data)
        #expect(Self.read("{\"id\": 1, \"extra\": 2}\n", schemaOptions: MappingOptions(unmappedKeys: .reject))?.category == .data)
        #expect(Self.read("{\"id\": [1]}\n", schemaOptions: MappingOptions(recordsPath: "items"))?.category == .data)
    }

    /// A shard past the start reads the header from the file's first lines: one that names no columns is the
    /// input's fault.
    @Test func aHeaderThatNamesNoColumnsIsData() throws {
        let url = try temporaryFile(Array("{\"not\": \"a header\"}\n[1]\n[2]\n".utf8), name: "header.ndjson")
        defer { try? FileManager.default.removeItem(at: url) }
        let error = Self.failure { () throws(SluiceError) in
            let schema = try MappingSchema(fields: [field("id", .int64)], options: MappingOptions(columnsFromHeader: true))
            let reader = try ColumnarReader(input: .file(url.path), schema: schema, options: ReaderOptions(byteRange: 22..<30))
            while try reader.next() != nil {}
        }
        #expect(error?.category == .data, "\(String(describing: error))")
        #expect(error?.description.contains("the header line") == true, "\(String(describing: error))")
    }

    struct Point: Sendable, Equatable {
        var x: Int64 = 0
    }

    @Test func foundationValuesThatAreNotJSONAreDataAndNoRecordIsTruncated() throws {
        let mapping = try Mapping(Point.init) { Field("x", \.x) }
        let notJSON = Self.failure { () throws(SluiceError) in _ = try mapping.model(from: ["x": NSObject()]) }
        #expect(notJSON?.category == .data)
        #expect(notJSON?.description.hasPrefix("$.x: a NSObject is not a JSON value") == true, "\(String(describing: notJSON))")
        var point = Point()
        let empty = Self.failure { () throws(SluiceError) in try mapping.update(&point, from: .bytes(Array("  ".utf8))) }
        #expect(empty?.category == .truncated, "\(String(describing: empty))")
    }

    @Test func unusableMappingsAndOptionsAreOptions() {
        #expect(Self.read("{}\n", options: ReaderOptions(batchCapacity: 0))?.category == .options)
        #expect(Self.read("{}\n", [field("id", .int64), field("id", .string)])?.category == .options)
    }

    @Test func readingAndWritingFailuresAreIOAndSink() {
        #expect(Self.failure { () throws(SluiceError) in _ = try ColumnarReader(input: .file("/nonexistent/in.ndjson"), schema: try MappingSchema(fields: [field("id", .int64)])) }?.category == .io)
        #expect(Self.failure { () throws(SluiceError) in _ = try FileOutput(path: "/nonexistent/out.csv", ifExists: .fail) }?.category == .sink)
    }

    @Test func aRejectionLimitIsData() {
        #expect(SluiceError.tooManyRejections("stopped: 4 of 40 records rejected, more than --max-rejects 3").category == .data)
    }
}
