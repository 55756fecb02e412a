import Foundation
import Testing
@testable import Sluice

/// A record that has arrived through a pipe is mapped and handed out at once, not when a chunk (or the peek that
/// decides the shape) has filled: the writer keeps the pipe open while the reader must already deliver.
@Suite struct PipeLatencyTests {
    /// Writes `first` into a pipe, expects a batch holding its records while the pipe is still open, then writes
    /// `rest`, closes the pipe and returns every id read.
    private func readWhileOpen(first: String, rest: String, shape: InputShape) throws -> (firstBatch: [Int64]?, all: [Int64]) {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
        defer { close(readEnd) }
        var writeEndOpen = true
        defer { if writeEndOpen { close(writeEnd) } }
        func write(_ text: String) {
            let bytes = Array(text.utf8)
            #expect(bytes.withUnsafeBytes { Glibc.write(writeEnd, $0.baseAddress, $0.count) } == bytes.count)
        }
        write(first)

        let outcome = Outcome()
        let finished = DispatchSemaphore(value: 0)
        let delivered = DispatchSemaphore(value: 0)
        let options = ReaderOptions(shape: shape, rejectionPolicy: .collect)
        Thread.detachNewThread {
            do {
                let reader = try ColumnarReader(input: .file("/dev/fd/\(readEnd)"), schema: MappingSchema(fields: [field("id", .int64)]), options: options)
                var isFirst = true
                while let batch = try reader.next() {
                    outcome.add(batch, isFirst: isFirst)
                    if isFirst { delivered.signal() }
                    isFirst = false
                }
            } catch {
                outcome.fail(error)
            }
            delivered.signal()
            finished.signal()
        }
        let inTime = delivered.wait(timeout: .now() + 30) == .success
        let firstBatch = inTime ? outcome.firstBatch : nil
        write(rest)
        close(writeEnd)
        writeEndOpen = false
        finished.wait()
        #expect(outcome.error == nil, "\(outcome.error.map { "\($0)" } ?? "")")
        return (firstBatch, outcome.all)
    }

    /// What the reading thread saw, handed to the test's thread.
    private final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var first: [Int64]?
        private var ids: [Int64] = []
        private var failure: (any Error)?

        func add(_ batch: ColumnarBatch, isFirst: Bool) {
            let read = (0..<batch.count).map { batch.column(0).int64($0) ?? -1 }
            lock.withLock {
                if isFirst { first = read }
                ids += read
            }
        }

        func fail(_ error: any Error) { lock.withLock { failure = error } }
        var firstBatch: [Int64]? { lock.withLock { first } }
        var all: [Int64] { lock.withLock { ids } }
        var error: (any Error)? { lock.withLock { failure } }
    }

    @Test func ndjsonLinesAreDeliveredAsTheyArrive() throws {
        let read = try readWhileOpen(first: "{\"id\":1}\n{\"id\":2}\n", rest: "{\"id\":3}\n", shape: .automatic)
        #expect(read.firstBatch == [1, 2])
        #expect(read.all == [1, 2, 3])
    }

    @Test func arrayElementsAreDeliveredAsTheyArrive() throws {
        let read = try readWhileOpen(first: "[{\"id\":1},\n", rest: "{\"id\":2}]\n", shape: .array)
        #expect(read.firstBatch == [1])
        #expect(read.all == [1, 2])
    }
}
