import LocationCore

/// Pause and resume for a running replay or synthetic motion, shared between whoever holds the
/// controls (a CLI key handler, a test) and the provider's iterator.
///
/// Pausing takes effect at the next fix: the fix that falls due while paused is held, and is
/// delivered when ``resume()`` is called. Everything after it moves later by the time the hold
/// lasted on the provider's clock, so the rest of the replay keeps its spacing. Pausing an
/// already paused control, or resuming a running one, does nothing.
///
/// ```swift
/// let control = ReplayControl()
/// let replay = try GPXReplay(path: path, control: control)
/// control.pause()    // the next fix is held
/// control.resume()   // ...and released
/// ```
package final class ReplayControl: Sendable {
    private struct State {
        var isPaused = false
        var nextID: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var cancelledBeforeRegistration: Set<UInt64> = []
    }

    private let state: Locked<State>

    /// Creates a control; `paused: true` holds the very first fix until ``resume()``.
    package init(paused: Bool = false) {
        state = Locked(State(isPaused: paused))
    }

    /// Whether fixes are being held.
    package var isPaused: Bool { state.withLock { $0.isPaused } }

    /// Holds the next fix (and everything after it) until ``resume()``.
    package func pause() {
        state.withLock { $0.isPaused = true }
    }

    /// Releases a held fix and lets the provider continue.
    package func resume() {
        let waiters = state.withLock { state in
            state.isPaused = false
            let waiters = Array(state.waiters.values)
            state.waiters.removeAll()
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns at once when running; otherwise suspends until ``resume()``.
    ///
    /// - Throws: `CancellationError` as soon as the waiting task is cancelled.
    func waitWhilePaused() async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Action { case resume, cancel, wait }
                let action = state.withLock { state -> Action in
                    if state.cancelledBeforeRegistration.remove(id) != nil { return .cancel }
                    guard state.isPaused else { return .resume }
                    state.waiters[id] = continuation
                    return .wait
                }
                switch action {
                case .resume: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                state.cancelledBeforeRegistration.insert(id)
                return nil
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
