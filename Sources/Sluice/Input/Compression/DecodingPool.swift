import Foundation

/// Threads that decode compressed units handed to them (bzip2 blocks, gzip members), in the order handed, each
/// unit as a whole.
///
/// Its threads are started as units arrive, up to `threads`, and end when the pool is stopped. They are threads of
/// their own rather than Dispatch's, for the reason ``DedicatedThread`` gives: each waits for work for the whole run.
final class DecodingPool<Decoded: Sendable>: @unchecked Sendable {
    /// One unit to decode, and then what decoding gave.
    final class Job: @unchecked Sendable {
        private let work: @Sendable () -> Decoded
        /// Set once, by the thread that decoded it, under the pool's lock.
        fileprivate var result: Decoded?

        /// A unit that `work` decodes, holding its own copy of the compressed bytes.
        init(_ work: @escaping @Sendable () -> Decoded) {
            self.work = work
        }

        /// Decodes the unit on the calling thread.
        func decode() -> Decoded {
            work()
        }
    }

    private let condition = NSCondition()
    private let threads: Int
    private let name: String
    private var started = 0
    private var queue: [Job] = []
    /// Threads decoding a job now.
    private var busy = 0
    private var isStopping = false

    /// - Parameter name: What its threads are called, numbered: `sluice-bzip2`.
    init(threads: Int, name: String) {
        self.threads = max(threads, 1)
        self.name = name
    }

    /// Queues `job` for the next free thread.
    func submit(_ job: Job) {
        condition.lock()
        defer { condition.unlock() }
        queue.append(job)
        if started < threads && started < queue.count + busy {
            started += 1
            let thread = Thread { [self] in work() }
            thread.name = "\(name)-\(started)"
            thread.start()
        }
        condition.broadcast()
    }

    /// What decoding `job` gave; `nil` if it is not decoded yet, unless `waiting`, which waits until it is.
    func result(of job: Job, waiting: Bool) -> Decoded? {
        condition.lock()
        defer { condition.unlock() }
        while waiting && job.result == nil { condition.wait() }
        return job.result
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
