#if LOCSIM_TSAN
// Built only for `LOCSIM_SANITIZE=thread scripts/test.sh`, which passes -DLOCSIM_TSAN.
//
// On Linux, ThreadSanitizer does not see `Synchronization.Mutex`: the lock waits on a futex with
// no annotation TSan understands, so every access to state behind a Mutex is reported as a race
// (scripts/sanitizers/mutex-under-tsan.swift shows it). Under LOCSIM_TSAN each module that uses
// Mutex declares `typealias Mutex<Value> = TSanVisibleMutex<Value>` in its TSanMutex.swift: a
// module's own declaration shadows the imported one, so the same code locks this pthread mutex
// (NSLock), which TSan intercepts. Shipped builds never compile this file's contents.
// See docs/sanitizers.md.
import Foundation

/// A lock with `Synchronization.Mutex`'s `init(_:)` and `withLock(_:)` that ThreadSanitizer
/// can see (sanitizer builds only).
///
/// The value lives in memory of its own, reached through a pointer, as `Mutex` keeps it in a
/// cell: not in a class property, whose accesses Swift's exclusivity checks (and TSan's view of
/// them) would track as well. What TSan checks is the memory the closure reads and writes,
/// and the lock held around it.
package final class TSanVisibleMutex<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private let storage: UnsafeMutablePointer<Value>

    package init(_ initialValue: consuming sending Value) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: initialValue)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&storage.pointee)
    }
}
#endif
