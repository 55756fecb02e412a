#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What rejects a record even when its model's `init(from:)` caught the error and returned: the model read a key
/// discovery never saw it read, or went on past an element the engine refused. `JSONDecoder` would have read
/// something there, so a model made without it could hold a value `JSONDecoder` would not give.
///
/// One per thread (a model is made on the thread that reads its batch, and a mapping may serve readers on several
/// threads): the decoder hands on three words and no more, so that handing it on allocates nothing.
final class DecodingStrikes {
    private(set) var first: Rejection.Failure?

    /// Notes a failure that stands whatever the model does with it.
    func strike(_ failure: Rejection.Failure) {
        if first == nil { first = failure }
    }

    func reset() { first = nil }

    /// This thread's strikes.
    static var current: DecodingStrikes {
        if let pointer = pthread_getspecific(key) { return Unmanaged<DecodingStrikes>.fromOpaque(pointer).takeUnretainedValue() }
        let strikes = DecodingStrikes()
        pthread_setspecific(key, Unmanaged.passRetained(strikes).toOpaque())
        return strikes
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        // The thread's strikes go with it.
        pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            Unmanaged<DecodingStrikes>.fromOpaque(pointer).release()
            #else
            if let pointer { Unmanaged<DecodingStrikes>.fromOpaque(pointer).release() }
            #endif
        }
        return key
    }()
}
