import Foundation

/// A run of whole records cut from the input by the pipeline's reader, mapped by one worker.
struct Chunk: @unchecked Sendable {
    /// Its place in the input: results are delivered in this order.
    let index: Int
    /// The bytes, owned by the pipeline's buffer pool until the worker is done with them.
    let bytes: UnsafeMutablePointer<UInt8>
    let capacity: Int
    let count: Int
    /// The absolute input offset of `bytes[0]`.
    let offset: Int
    /// Bytes of the memory budget held for this chunk until its batches are consumed: what the reader reserved,
    /// and what its batches' element and table rows hold once mapped.
    var reservation: Int
    /// A problem the reader found after this chunk's records; the run ends with it.
    var failure: FramingFailure?
    /// With a records path leading to an object: the keys of the chunk's records, in order.
    var recordKeys: [[UInt8]] = []
    /// With several records paths: whose records the chunk holds (an index into the pipeline's plans).
    var recordType = 0
    /// For an array's elements: the absolute offset just past each whole element in the chunk, in order.
    var elementEnds: [Int] = []
    /// An array's lines, cut at line feeds, each to be checked to hold one element and its comma.
    var holdsArrayLines = false
    /// An array's lines end there, however they look: the array is to be read exactly from there on (the input's
    /// end, or a line longer than a record may be).
    var exactReadingFrom: Int?
    /// The bytes the reader dropped, unhanded, between the previous chunk and this one, and the line feeds among
    /// them that count for the lines of this chunk's records.
    var droppedBytes = 0
    var droppedLineFeeds = 0
    /// The records the chunk starts with that are not mapped (records to skip, a header row still to come), and
    /// whether the header row is among its records.
    var leadingRecords = LeadingRecords()
    var holdsHeader = false
}

/// The records at the input's start that are not mapped: a number to skip, then, with columns from a header, the
/// header row. The reader counts them off chunk by chunk, so that they may spread over any number of chunks.
struct LeadingRecords: Sendable {
    var toSkip = 0
    var readsHeader = false

    /// The share of a chunk of `count` records: what the chunk starts with, and whether the header row is among
    /// its records; the rest is left for the chunks after it.
    mutating func take(_ count: Int) -> (startingWith: LeadingRecords, holdsHeader: Bool) {
        let start = self
        let skipped = min(toSkip, count)
        toSkip -= skipped
        let holdsHeader = readsHeader && count > skipped
        if holdsHeader { readsHeader = false }
        return (start, holdsHeader)
    }
}

/// A problem the reader found in the input's structure, reported as the rejection that ends the run.
struct FramingFailure: Sendable {
    /// Where the unreadable record starts.
    var byteOffset: Int
    /// Line feeds between the end of the chunk's bytes and `byteOffset`.
    var lineFeedsBefore: Int
    var failure: Rejection.Failure
    var rawText: [UInt8]
    var isRawTextTruncated = false
}

/// A reusable chunk buffer, so that steady-state reading allocates (and page-faults) nothing.
final class ChunkBufferPool: @unchecked Sendable {
    private var free: [(bytes: UnsafeMutablePointer<UInt8>, capacity: Int)] = []
    private let lock = NSLock()

    func take(capacity: Int) -> (bytes: UnsafeMutablePointer<UInt8>, capacity: Int) {
        lock.lock()
        if let index = free.firstIndex(where: { $0.capacity >= capacity }) {
            let buffer = free.remove(at: index)
            lock.unlock()
            return buffer
        }
        lock.unlock()
        return (.allocate(capacity: capacity), capacity)
    }

    /// Takes a buffer back; buffers larger than `keepLimit` (grown for one huge record) are freed instead.
    func give(_ bytes: UnsafeMutablePointer<UInt8>, capacity: Int, keepLimit: Int) {
        guard capacity <= keepLimit else {
            bytes.deallocate()
            return
        }
        lock.lock()
        free.append((bytes, capacity))
        lock.unlock()
    }

    deinit {
        for buffer in free { buffer.bytes.deallocate() }
    }
}
