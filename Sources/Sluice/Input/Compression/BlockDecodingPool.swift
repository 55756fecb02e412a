import Foundation

/// Threads that decode compressed blocks handed to them, in the order handed, each block as a whole.
///
/// Its threads are started as blocks arrive, up to `threads`, and end when the pool is stopped. They are threads of
/// their own rather than Dispatch's, for the reason ``DedicatedThread`` gives: each waits for work for the whole run.
final class BlockDecodingPool: @unchecked Sendable {
    /// One block to decode, and then what decoding gave.
    final class Job: @unchecked Sendable {
        private let stream: [UInt8]
        private let level: UInt8
        /// Set once, by the thread that decoded it, under the pool's lock.
        fileprivate var result: Bzip2Block.Decoded?

        /// A block wrapped in a stream of its own (``Bzip2Block/stream(_:from:to:level:)``).
        init(stream: [UInt8], level: UInt8) {
            self.stream = stream
            self.level = level
        }

        /// Decodes the block on the calling thread.
        func decode() -> Bzip2Block.Decoded {
            Bzip2Block.decode(stream, level: level)
        }
    }

    private let condition = NSCondition()
    private let threads: Int
    private var started = 0
    private var queue: [Job] = []
    /// Threads decoding a job now.
    private var busy = 0
    private var isStopping = false

    init(threads: Int) {
        self.threads = max(threads, 1)
    }

    /// Queues `job` for the next free thread.
    func submit(_ job: Job) {
        condition.lock()
        defer { condition.unlock() }
        queue.append(job)
        if started < threads && started < queue.count + busy {
            started += 1
            let thread = Thread { [self] in work() }
            thread.name = "sluice-bzip2-\(started)"
            thread.start()
        }
        condition.broadcast()
    }

    /// Whether `job` has been decoded; its result if so.
    func result(of job: Job) -> Bzip2Block.Decoded? {
        condition.lock()
        defer { condition.unlock() }
        return job.result
    }

    /// Waits until `job` has been decoded and returns what it gave.
    func wait(for job: Job) -> Bzip2Block.Decoded {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let result = job.result { return result }
            condition.wait()
        }
    }

    /// Drops those of `jobs` no thread has begun: what they would give is no longer wanted.
    func cancel(_ jobs: [Job]) {
        condition.lock()
        defer { condition.unlock() }
        queue.removeAll { queued in jobs.contains { $0 === queued } }
    }

    /// Drops the queued jobs; each thread ends after the job it is decoding.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        isStopping = true
        queue.removeAll()
        condition.broadcast()
    }

    private func work() {
        condition.lock()
        defer { condition.unlock() }
        while true {
            while queue.isEmpty && !isStopping { condition.wait() }
            if isStopping { return }
            let job = queue.removeFirst()
            busy += 1
            condition.unlock()
            let result = job.decode()
            condition.lock()
            busy -= 1
            job.result = result
            condition.broadcast()
        }
    }
}
