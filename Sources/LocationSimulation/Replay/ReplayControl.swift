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
    private let paused: Locked<Bool>
    private let resumed = ChangeSignal()

    /// Creates a control; `paused: true` holds the very first fix until ``resume()``.
    package init(paused: Bool = false) {
        self.paused = Locked(paused)
    }

    /// Whether fixes are being held.
    package var isPaused: Bool { paused.withLock { $0 } }

    /// Holds the next fix (and everything after it) until ``resume()``.
    package func pause() {
        paused.withLock { $0 = true }
    }

    /// Releases a held fix and lets the provider continue.
    package func resume() {
        paused.withLock { $0 = false }
        resumed.bump()
    }

    /// Returns at once when running; otherwise suspends until ``resume()``.
    ///
    /// - Throws: `CancellationError` as soon as the waiting task is cancelled.
    func waitWhilePaused() async throws {
        while true {
            try Task.checkCancellation()
            // Read before looking: a resume after the look moves the signal past it.
            let generation = resumed.generation
            guard isPaused else { return }
            await resumed.wait(after: generation)
        }
    }
}
