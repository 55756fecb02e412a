#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard error, written with `write(2)`: the C global `stderr` is not concurrency-safe in Swift 6.
public enum StandardError {
    /// Writes `line` and `terminator` whole (a short write is continued; a failed one is given up, there being
    /// nowhere left to report it).
    public static func print(_ line: String, terminator: String = "\n") {
        var text = line + terminator
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(2, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
