import Foundation

/// Runs asynchronous contenders from a benchmark's synchronous main thread. A program whose top-level code is
/// itself asynchronous cannot be run under valgrind 3.19 (it stops with an internal error), and the instruction
/// counts in docs/benchmarks.md come from there.
public enum AsyncRun {
    /// Runs `body` in a task and blocks the calling thread until it ends; returns its result or throws its error.
    public static func wait<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
        let outcome = Outcome<Value>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { outcome.result = .success(try await body()) } catch { outcome.result = .failure(error) }
            done.signal()
        }
        done.wait()
        guard let result = outcome.result else { throw CancellationError() }
        return try result.get()
    }

    /// The task's result, written by the task before it signals and read by the waiting thread after: the
    /// semaphore orders the two, which the compiler cannot see.
    private final class Outcome<Value>: @unchecked Sendable {
        var result: Result<Value, any Error>?
    }
}
