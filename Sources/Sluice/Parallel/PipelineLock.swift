#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The pipeline's one mutex, with a condition variable for each kind of thread that waits on it, so that an
/// event wakes only the threads it concerns: a new chunk one worker, a result the consumer only when it is the
/// one it waits for, freed budget the reader. (One condition for all, broadcast on every event, woke every
/// thread for every chunk: about four context switches a chunk, and most of the pipeline's extra CPU.)
final class PipelineLock: @unchecked Sendable {
    enum Waiter: Int, CaseIterable {
        /// Workers, waiting for a chunk.
        case worker
        /// The consumer, waiting for the next result in input order.
        case consumer
        /// The reader, waiting for budget.
        case reader
        /// Anyone waiting for the threads to stop.
        case stop
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let conditions = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: Waiter.allCases.count)

    init() {
        pthread_mutex_init(mutex, nil)
        for index in Waiter.allCases.indices { pthread_cond_init(conditions + index, nil) }
    }

    deinit {
        for index in Waiter.allCases.indices { pthread_cond_destroy(conditions + index) }
        pthread_mutex_destroy(mutex)
        conditions.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }

    func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits until woken as `waiter` (or spuriously: callers check their condition in a loop). Call with the lock held.
    func wait(as waiter: Waiter) { pthread_cond_wait(conditions + waiter.rawValue, mutex) }

    /// Wakes one thread waiting as `waiter`.
    func wakeOne(_ waiter: Waiter) { pthread_cond_signal(conditions + waiter.rawValue) }

    /// Wakes every thread waiting as `waiter`.
    func wakeAll(_ waiter: Waiter) { pthread_cond_broadcast(conditions + waiter.rawValue) }

    /// Wakes every waiting thread: the run ended or was cancelled.
    func wakeEveryone() {
        for waiter in Waiter.allCases { wakeAll(waiter) }
    }
}
