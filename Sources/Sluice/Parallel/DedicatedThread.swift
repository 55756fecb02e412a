import Foundation

/// Starts the pipeline's long-lived blocking loops (the reader, each worker) on threads of their own.
///
/// Dispatch's pool is for short work items: on Linux it holds about 255 threads, and a loop that blocks on a
/// condition there keeps one of them for the whole run. With 255 workers, or fewer in a process whose other code
/// already keeps Dispatch threads busy, the last loops never started and the run waited for them for ever.
enum DedicatedThread {
    /// Runs `body` on a new thread named `name`, which ends when `body` returns.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}
