import Sluice
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A file an earlier run was writing under a temporary name and never finished (it was killed), removed by a later
/// run writing into the same directory.
public struct AbandonedPartial: Sendable, Equatable {
    /// The temporary file's path.
    public let path: String
    /// Its size when it was removed.
    public let bytes: Int
}

/// Names the files written under a temporary name beside their target, guards them while a run may still rename
/// them, and clears those no running import holds.
///
/// A partial file is `.NAME.sluice-TOKEN-partial`. The run that writes it holds an exclusive `flock` on
/// `.sluice-TOKEN.lock` in the same directory for as long as any of its partial files there may still be renamed into
/// place. A process id could not tell whether the writer lives: the Dask and Spark recipes write over a shared file
/// system from several machines, where one number names a different process on each. A lock dies with its process
/// however that ends, `kill -9` included, so a partial whose lock can be taken, or is gone, belongs to no running
/// import. One lock per directory rather than per file, because a finished part is closed while it waits for the
/// run's end (a run may write thousands of parts) and a lock on a closed file is released.
enum PartialFiles {
    /// The token of the lock this process holds in a directory, and how many of its files there are unsettled.
    private struct Lease {
        let token: String
        let descriptor: Int32
        var files: Int
    }

    private struct State {
        var leases: [String: Lease] = [:]
        /// Directories cleared already: once per process is enough, where a run writing thousands of parts would
        /// otherwise read its directory again for each.
        var cleared: Set<String> = []
    }

    /// Everything here happens under this lock, clearing included: on a shared file system a process may take its
    /// own `flock` again (NFS carries it as a POSIX lock), so the files it holds are told apart by their tokens,
    /// which must not change while a directory is cleared.
    private static let state = Mutex(State())

    /// The temporary name for `path`, whose directory is `directory` ("" or ending in "/"), holding that directory's
    /// lock until ``release(directory:)`` is called once for each call of this.
    static func acquire(for path: String, directory: String) throws(SluiceError) -> String {
        let token = try state.withLock { state throws(SluiceError) -> String in
            if var lease = state.leases[directory] {
                lease.files += 1
                state.leases[directory] = lease
                return lease.token
            }
            for _ in 0..<8 {
                let token = newToken()
                let lockPath = directory + ".sluice-" + token + ".lock"
                let descriptor = open(lockPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                guard descriptor >= 0 else {
                    throw .write(destination: path, message: "cannot create the lock beside it (\(lockPath)): " + String(cString: strerror(errno)))
                }
                // Another run clearing the directory may hold the new, still unlocked file for a moment, or have
                // taken it for abandoned and removed it: a lock on a file no longer under its name guards nothing.
                guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                    let reason = errno
                    close(descriptor)
                    if reason == EWOULDBLOCK { continue }
                    unlink(lockPath)
                    throw .write(destination: path, message: "cannot lock \(lockPath): " + String(cString: strerror(reason)))
                }
                var held = stat(), named = stat()
                if fstat(descriptor, &held) == 0, stat(lockPath, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev {
                    state.leases[directory] = Lease(token: token, descriptor: descriptor, files: 1)
                    return token
                }
                close(descriptor)
            }
            throw .write(destination: path, message: "cannot keep a lock beside it: its directory's locks keep being taken or removed")
        }
        return directory + "." + path.dropFirst(directory.count) + ".sluice-" + token + "-partial"
    }

    /// Gives back one file's hold on the directory's lock: the file has been renamed into place or removed. The
    /// lock file goes with the last.
    static func release(directory: String) {
        state.withLock { state in
            guard var lease = state.leases[directory] else { return }
            lease.files -= 1
            guard lease.files == 0 else {
                state.leases[directory] = lease
                return
            }
            state.leases[directory] = nil
            // Unlinked before it is unlocked: a run that takes the lock meanwhile finds none of these files left.
            unlink(directory + ".sluice-" + lease.token + ".lock")
            close(lease.descriptor)
        }
    }

    /// Removes the partial files in `directory` ("" or ending in "/") that no running import holds, with their locks,
    /// the first time this process writes there. Files this process is writing are never touched.
    static func removeAbandoned(in directory: String) -> [AbandonedPartial] {
        state.withLock { state in
            guard state.cleared.insert(directory).inserted else { return [] }
            let own = Set(state.leases.values.map(\.token))
            return removeAbandoned(in: directory, sparing: own)
        }
    }

    /// The same, every time it is called, sparing the files of the tokens `own`.
    static func removeAbandoned(in directory: String, sparing own: Set<String>) -> [AbandonedPartial] {
        guard let stream = opendir(directory.isEmpty ? "." : directory) else { return [] }
        var partials: [String: [String]] = [:]
        var locks: Set<String> = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if let token = token(ofPartial: name) {
                partials[token, default: []].append(name)
            } else if let token = token(ofLock: name) {
                locks.insert(token)
            }
        }
        closedir(stream)
        var removed: [AbandonedPartial] = []
        for token in Set(partials.keys).union(locks).subtracting(own).sorted() {
            let lockPath = directory + ".sluice-" + token + ".lock"
            let descriptor = open(lockPath, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 || errno == ENOENT else { continue }
            // The lock is held until its files and then its own file are gone, so that no run finds the lock
            // free while files it guarded remain.
            if descriptor >= 0 && flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                close(descriptor)
                continue
            }
            for name in (partials[token] ?? []).sorted() {
                let path = directory + name
                var status = stat()
                let bytes = stat(path, &status) == 0 ? Int(status.st_size) : 0
                if unlink(path) == 0 { removed.append(AbandonedPartial(path: path, bytes: bytes)) }
            }
            if descriptor >= 0 {
                unlink(lockPath)
                close(descriptor)
            }
        }
        return removed
    }

    /// 16 random hexadecimal digits: unique across the machines that share a file system.
    private static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The token of a partial file's name, `.NAME.sluice-TOKEN-partial`; nil for other names, and for the names of
    /// Sluice versions that used a process id, which no lock guards.
    private static func token(ofPartial name: String) -> String? {
        guard name.hasPrefix("."), name.hasSuffix("-partial") else { return nil }
        let stem = name.dropLast("-partial".count)
        guard stem.count > 17 + ".sluice-".count, stem.dropLast(16).hasSuffix(".sluice-") else { return nil }
        let token = String(stem.suffix(16))
        return isToken(token) ? token : nil
    }

    /// The token of a lock's name, `.sluice-TOKEN.lock`.
    private static func token(ofLock name: String) -> String? {
        guard name.hasPrefix(".sluice-"), name.hasSuffix(".lock"), name.utf8.count == ".sluice-".count + 16 + ".lock".count else { return nil }
        let token = String(name.dropFirst(".sluice-".count).dropLast(".lock".count))
        return isToken(token) ? token : nil
    }

    private static func isToken(_ text: String) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
    }
}
