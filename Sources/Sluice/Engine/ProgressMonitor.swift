import Foundation
import Synchronization

/// How far a run has come, readable from any thread while the run goes on (for a progress bar or a job
/// scheduler): take ``ColumnarReader/progress`` once and ask it for ``snapshot`` whenever you like.
public final class ProgressMonitor: Sendable {
    /// One reading of the counters.
    public struct Snapshot: Sendable, Hashable {
        /// Bytes read from the input as stored (compressed bytes for a compressed file).
        public var bytesRead: Int
        /// The input's size as stored, when known (a regular file).
        public var totalBytes: Int?
        /// Bytes of JSON mapped so far: the input after decompression, as far as the records handed on reach.
        public var jsonBytesRead: Int
        /// Records delivered or rejected so far.
        public var recordsRead: Int
        /// Records rejected so far.
        public var recordsRejected: Int
        /// Seconds since the input was opened.
        public var elapsedSeconds: Double
        /// Whether the run has ended.
        public var isFinished: Bool

        /// The fraction of the input read, when its size is known.
        public var fractionDone: Double? {
            guard let totalBytes, totalBytes > 0 else { return nil }
            return min(Double(bytesRead) / Double(totalBytes), 1)
        }

        /// Input bytes (as stored) per second so far.
        public var bytesPerSecond: Double { elapsedSeconds > 0 ? Double(bytesRead) / elapsedSeconds : 0 }

        /// Bytes of JSON (decompressed) per second so far.
        public var jsonBytesPerSecond: Double { elapsedSeconds > 0 ? Double(jsonBytesRead) / elapsedSeconds : 0 }

        /// Records handed on (read and not rejected) per second so far.
        public var recordsMappedPerSecond: Double { elapsedSeconds > 0 ? Double(recordsRead - recordsRejected) / elapsedSeconds : 0 }
    }

    private struct State {
        var bytesRead = 0
        var totalBytes: Int?
        var jsonBytesRead = 0
        var recordsRead = 0
        var recordsRejected = 0
        var started = DispatchTime.now().uptimeNanoseconds
        var finished: UInt64?
    }

    private let state = Mutex(State())

    init() {}

    /// The counters now.
    public var snapshot: Snapshot {
        state.withLock { state in
            let end = state.finished ?? DispatchTime.now().uptimeNanoseconds
            return Snapshot(
                bytesRead: state.bytesRead, totalBytes: state.totalBytes, jsonBytesRead: state.jsonBytesRead, recordsRead: state.recordsRead,
                recordsRejected: state.recordsRejected, elapsedSeconds: Double(end - state.started) / 1e9,
                isFinished: state.finished != nil)
        }
    }

    func start(totalBytes: Int?) {
        state.withLock {
            $0.totalBytes = totalBytes
            $0.started = DispatchTime.now().uptimeNanoseconds
        }
    }

    func addRead(bytes: Int) {
        state.withLock { $0.bytesRead += bytes }
    }

    func update(_ statistics: ReadStatistics) {
        state.withLock {
            $0.recordsRead = statistics.recordsRead
            $0.recordsRejected = statistics.recordsRejected
            $0.jsonBytesRead = statistics.bytesRead
        }
    }

    func finish() {
        state.withLock { state in
            if state.finished == nil { state.finished = DispatchTime.now().uptimeNanoseconds }
        }
    }
}

/// Counts the bytes read from the stored input, for progress.
struct CountingSource: ByteSource {
    private var inner: any ByteSource
    private let progress: ProgressMonitor
    /// Bytes read again that progress has counted already.
    private var countedBefore: Int

    /// - Parameter countedBefore: The first bytes to read were read and counted before.
    init(_ inner: any ByteSource, progress: ProgressMonitor, countedBefore: Int = 0) {
        self.inner = inner
        self.progress = progress
        self.countedBefore = countedBefore
    }

    var name: String { inner.name }
    var size: Int? { inner.size }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        let count = try inner.read(into: buffer)
        let recounted = min(count, countedBefore)
        countedBefore -= recounted
        progress.addRead(bytes: count - recounted)
        return count
    }

    /// Bytes passed over are not read: progress counts what is.
    mutating func skip(_ count: Int) throws(SluiceError) -> Int {
        try inner.skip(count)
    }
}
