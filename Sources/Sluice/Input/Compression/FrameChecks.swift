import Synchronization

/// How much of a decompressed input its checksums vouch for: the bytes of every gzip member, zstd frame, bzip2
/// block or xz stream that ended with its checks passed. The decompressor publishes it as it reads (on the pipeline's
/// reader thread); the reader's consumer compares it with how far the records it delivered reach.
///
/// A gzip member is checked against its CRC-32 and length; a zstd frame against its content checksum when it has
/// one (the `zstd` tool writes one by default, the library does not), otherwise only by decoding to its end; a
/// bzip2 block against its CRC (and its stream against the combined CRC at its end); an xz stream against its blocks'
/// checks and its index.
final class FrameChecks: Sendable {
    private let verified = Atomic<Int>(0)

    /// Bytes of decompressed output from the start of the input that lie in checked frames or members.
    var verifiedLength: Int { verified.load(ordering: .acquiring) }

    /// A frame or member that ends `length` bytes into the decompressed output passed its check.
    func frameEnded(at length: Int) {
        verified.store(length, ordering: .releasing)
    }
}

/// A reader's side of the frame checks: how far the records it handed out reach, and whether the checks vouch for
/// all of it.
struct DeliveredInput {
    private let checks: FrameChecks?
    private var end = 0

    init(checks: FrameChecks?) {
        self.checks = checks
    }

    /// Records reaching up to `offset` (at most) have been handed out.
    mutating func handedOut(through offset: Int) {
        end = max(end, offset)
    }

    /// Whether every byte handed out lies in checked frames; always for input that needs no checking.
    var isVerified: Bool { checks.map { $0.verifiedLength >= end } ?? true }
}
