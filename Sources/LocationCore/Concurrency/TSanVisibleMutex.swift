#if LOCSIM_TSAN
// Built only for `LOCSIM_SANITIZE=thread scripts/test.sh`, which passes -DLOCSIM_TSAN.
//
// On Linux, ThreadSanitizer does not see `Synchronization.Mutex`: the lock waits on a futex with
// no annotation TSan understands, so every access to state behind a Mutex is reported as a race
// (scripts/sanitizers/mutex-under-tsan.swift shows it). Under LOCSIM_TSAN, `Mutex` in every
// module that imports LocationCore is this lock instead: the same `init(_:)` and `withLock`, over
// a pthread mutex (NSLock), which TSan intercepts. A declaration in a module shadows one of the
// same name in a module it imports, so `Mutex` here wins over Synchronization's in files that
// import both. Shipped builds never compile this file's contents. See docs/sanitizers.md.
import Synchronization
import Foundation

/// A lock with `Synchronization.Mutex`'s shape that ThreadSanitizer can see (sanitizer builds only).
package final class TSanVisibleMutex<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ initialValue: consuming sending Value) {
        value = initialValue
    }

    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Under LOCSIM_TSAN, `Mutex` means ``TSanVisibleMutex`` wherever LocationCore is imported.
package typealias Mutex<Value> = TSanVisibleMutex<Value>
#endif
