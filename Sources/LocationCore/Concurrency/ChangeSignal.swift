/// A counter that tasks can wait on: ``bump()`` moves it on and wakes every task waiting in
/// ``wait(after:)`` for a newer value. The package's one way to wait for a change of shared state:
/// a feed player's runner waits on it for control changes, its hub for the player's removal,
/// LocationSimulation's `ReplayControl` for a resume, and a request held by a fault for the
/// server's shutdown.
package final class ChangeSignal: Sendable {
    private struct State {
        var generation = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var cancelled: Set<Int> = []
        var nextID = 0
    }
    private let state = Locked(State())

    /// A counter at 0.
    package init() {}

    /// The current value.
    package var generation: Int { state.withLock { $0.generation } }

    /// Moves the counter on and wakes every waiter.
    package func bump() {
        let waiters = state.withLock { state in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the counter is past `generation`, or at once when the task is cancelled.
    package func wait(after generation: Int) async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.generation != generation || state.cancelled.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                if let waiter = state.waiters.removeValue(forKey: id) { return Optional(waiter) }
                state.cancelled.insert(id)
                return nil
            }
            waiter?.resume()
        }
        // A cancellation that came after the wait ended leaves no trace.
        _ = state.withLock { $0.cancelled.remove(id) }
    }
}
