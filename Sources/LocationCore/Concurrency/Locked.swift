#if canImport(Darwin)
import os
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The package's one lock: a value that is read and written only while its lock is held.
///
/// Why not `Synchronization.Mutex`: it needs iOS 18 and macOS 15, and the game's own test
/// targets run on iOS 17 and macOS 14; and on Linux ThreadSanitizer does not see it (it waits on
/// a futex TSan has no annotation for, so every access behind it reads as a race). This lock is
/// `os_unfair_lock` on Apple platforms and a `pthread_mutex_t` elsewhere, both of which the
/// sanitizers intercept, so the same code is checked under `LOCSIM_SANITIZE=thread`.
///
/// The value lives in memory of its own, reached through a pointer (as `Mutex` keeps it in a
/// cell), so what a sanitizer checks is exactly that memory and the lock held around it.
package final class Locked<Value>: @unchecked Sendable {
    #if canImport(Darwin)
    private let lock: UnsafeMutablePointer<os_unfair_lock>
    #else
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    #endif
    private let storage: UnsafeMutablePointer<Value>

    package init(_ initialValue: consuming sending Value) {
        #if canImport(Darwin)
        lock = .allocate(capacity: 1)
        lock.initialize(to: os_unfair_lock())
        #else
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
        #endif
        storage = .allocate(capacity: 1)
        storage.initialize(to: initialValue)
    }

    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(lock)
        #endif
        lock.deinitialize(count: 1)
        lock.deallocate()
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Runs `body` with the value, holding the lock; what `body` returns leaves the lock with it.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        #if canImport(Darwin)
        os_unfair_lock_lock(lock)
        defer { os_unfair_lock_unlock(lock) }
        #else
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        #endif
        return try body(&storage.pointee)
    }
}
