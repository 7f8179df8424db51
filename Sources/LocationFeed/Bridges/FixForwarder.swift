package import LocationCore

/// Where a player's fixes go outside locsim: the Android emulator's console, the iOS Simulator.
///
/// A sink opens a session (a connection, an authentication) and hands it to `body`, which sends
/// fixes through it until it returns or throws; the sink then closes what it opened. A failed
/// session is opened again by ``FixForwarder`` after a back-off.
package protocol FixSink: Sendable {
    /// Where the fixes go, for messages: `127.0.0.1:5554`, `simctl booted`.
    var destination: String { get }
    /// Opens a session, runs `body` with it, and closes it, also when `body` throws.
    func withSession(_ body: (any FixSession) async throws -> Void) async throws
}

/// One open session of a ``FixSink``; used from one task at a time.
package protocol FixSession: AnyObject {
    /// Sends one fix (with a position) and waits until the other side has taken it.
    func send(_ fix: Fix) async throws
}

/// The newest fix of a player not yet sent: a newer one replaces it, so a slow destination gets
/// the latest position, never a backlog.
package final class FixMailbox: Sendable {
    private let pending = Locked<Fix?>(nil)
    private let signals: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    package init() {
        (signals, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Leaves `fix` for the forwarder, replacing any fix it has not taken yet.
    package func post(_ fix: Fix) {
        pending.withLock { $0 = fix }
        continuation.yield()
    }

    /// No more fixes: the forwarder sends what is pending and returns.
    package func finish() { continuation.finish() }

    /// The pending fix, if any, taking it out.
    func take() -> Fix? { pending.withLock { $0.take() } }

    /// Puts back a fix that could not be sent, unless a newer one came meanwhile.
    func putBack(_ fix: Fix) {
        let restored = pending.withLock { pending in
            guard pending == nil else { return false }
            pending = fix
            return true
        }
        if restored { continuation.yield() }
    }

    /// Waits for a fix; `nil` once finished and nothing is pending.
    func next() async -> Fix? {
        var iterator = signals.makeAsyncIterator()
        while true {
            if let fix = take() { return fix }
            guard await iterator.next() != nil else { return take() }
        }
    }
}

/// Sends one player's fixes to a ``FixSink``: at most one per `minimumInterval` (the newest one;
/// fixes in between are skipped, not queued), fixes without a position left out, and a failed
/// session opened again after `backoff`, the fix that failed sent first.
package struct FixForwarder<C: Clock>: Sendable where C.Duration == Duration {
    /// What happened, for the command to show.
    package enum Event: Sendable {
        /// A session opened.
        case opened(destination: String)
        /// A fix was taken by the destination.
        case sent(Fix)
        /// The session failed; the next attempt follows in `retryIn` (`nil`: no more attempts).
        case failed(destination: String, error: any Error, retryIn: Duration?)
    }

    package let sink: any FixSink
    package let minimumInterval: Duration
    package let backoff: Backoff
    private let clock: C
    private let onEvent: @Sendable (Event) -> Void

    /// - Throws: ``/LocationCore/ConfigurationError`` (`minimumInterval`) for a negative interval.
    package init(
        sink: any FixSink, minimumInterval: Duration, backoff: Backoff, clock: C,
        onEvent: @escaping @Sendable (Event) -> Void = { _ in }
    ) throws(ConfigurationError) {
        guard minimumInterval >= .zero else {
            throw ConfigurationError(parameter: "minimumInterval", "must not be negative, got \(minimumInterval)")
        }
        self.sink = sink
        self.minimumInterval = minimumInterval
        self.backoff = backoff
        self.clock = clock
        self.onEvent = onEvent
    }

    /// Forwards the mailbox's fixes until it is finished and empty, or the task is cancelled
    /// (returns quietly). Throws the last error once `backoff` allows no more attempts.
    package func run(_ mailbox: FixMailbox) async throws {
        var failures = 0
        var lastSent: C.Instant?
        while true {
            var failed: Fix?
            do {
                try await sink.withSession { session in
                    onEvent(.opened(destination: sink.destination))
                    while let fix = try await nextFix(mailbox, after: lastSent) {
                        failed = fix
                        try await session.send(fix)
                        failed = nil
                        failures = 0
                        lastSent = clock.now
                        onEvent(.sent(fix))
                    }
                }
                return
            } catch {
                if Task.isCancelled { return }
                if let failed { mailbox.putBack(failed) }
                failures += 1
                guard backoff.allowsRetry(after: failures - 1) else {
                    onEvent(.failed(destination: sink.destination, error: error, retryIn: nil))
                    throw error
                }
                let delay = backoff.delay(afterFailures: failures)
                onEvent(.failed(destination: sink.destination, error: error, retryIn: delay))
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    return  // cancelled while waiting
                }
            }
        }
    }

    /// The next fix with a position, no sooner than `minimumInterval` after the last one sent.
    private func nextFix(_ mailbox: FixMailbox, after lastSent: C.Instant?) async throws -> Fix? {
        while var fix = await mailbox.next() {
            if let lastSent {
                let due = lastSent.advanced(by: minimumInterval)
                if clock.now < due {
                    try await clock.sleep(until: due, tolerance: nil)
                    // Whatever came while waiting is newer.
                    if let newer = mailbox.take() { fix = newer }
                }
            }
            try Task.checkCancellation()
            if fix.hasPosition { return fix }
        }
        return nil
    }
}
