import LocationCore

/// A ``GPSDProvider``'s sessions as ``GPSDEvent`` values: fixes, connections, losses, retries
/// and device changes, in the order they happened.
///
/// Obtain one from ``GPSDProvider/events``. Each iteration runs its own connection, with the
/// provider's ``GPSDProvider/Configuration``:
///
/// ```
/// connected ─ fix ─ fix ─ disconnected ─ retrying(1, 250 ms) ─ disconnected ─ retrying(2, 500 ms) ─ connected ─ fix
/// ```
///
/// Iteration ends (returns `nil`) when the task is cancelled, and throws a ``GPSDError`` when
/// the configuration says to give up.
package struct GPSDEventSequence<C: Clock>: AsyncSequence, Sendable where C.Duration == Duration {
    package typealias Element = GPSDEvent

    let provider: GPSDProvider<C>

    package func makeAsyncIterator() -> Iterator { Iterator(provider: provider) }

    /// Iterates one gpsd session.
    ///
    /// - Important: One consumer per iterator. Dropping the iterator (leaving the `for` loop)
    ///   closes its connection.
    package struct Iterator: AsyncIteratorProtocol {
        private enum Phase {
            /// Next: start a session, first announcing and sleeping a back-off when `attempt` > 0.
            case idle(attempt: Int, announced: Bool)
            /// A session is starting; the `?WATCH` is not yet acknowledged.
            case connecting(attempt: Int)
            /// Reports flow.
            case streaming
            /// The session failed with this error, and the event that explains it (a device
            /// removed, gpsd's `ERROR` in answer to the `?WATCH`) was returned: next, retry or
            /// throw as the configuration says.
            case failed(GPSDError, attempt: Int)
            case finished
        }

        /// Owns the live session so that dropping the iterator stops its thread.
        private final class Storage {
            var session: GPSDSession?
            deinit { session?.cancel() }
        }

        private let provider: GPSDProvider<C>
        private let storage = Storage()
        private var phase: Phase = .idle(attempt: 0, announced: false)
        private var release = ""
        private var hasConnected = false

        init(provider: GPSDProvider<C>) {
            self.provider = provider
        }

        /// The next event, or `nil` when the task was cancelled.
        ///
        /// - Throws: ``GPSDError`` when the provider's configuration says to give up, or
        ///   (only from the `clock`) an error its `sleep` throws other than cancellation.
        package mutating func next() async throws -> GPSDEvent? {
            while true {
                switch phase {
                case .finished:
                    return nil

                case .failed(let error, let attempt):
                    if let retry = try retry(after: error, attempt: attempt) { return retry }

                case .idle(let attempt, let announced):
                    if attempt > 0 {
                        let delay = provider.configuration.backoff.delay(afterFailures: attempt)
                        if !announced {
                            phase = .idle(attempt: attempt, announced: true)
                            return .retrying(attempt: attempt, after: delay)
                        }
                        do {
                            try await provider.clock.sleep(for: delay)
                        } catch is CancellationError {
                            phase = .finished
                            return nil
                        }
                    }
                    guard !Task.isCancelled else {
                        phase = .finished
                        return nil
                    }
                    release = ""
                    storage.session = GPSDSession.start(
                        host: provider.host, port: provider.port, device: provider.device,
                        keptFixes: provider.configuration.keptFixes, now: provider.now)
                    phase = .connecting(attempt: attempt)

                case .connecting(let attempt):
                    guard let event = await nextSessionEvent() else { return nil }
                    switch event {
                    case .failed(let error):
                        if let retry = try retry(after: error, attempt: attempt) { return retry }
                    case .message(.version(let name)):
                        release = name
                    case .message(.watch):
                        phase = .streaming
                        hasConnected = true
                        return .connected(release: release)
                    case .message(.error(let text)):
                        // gpsd refused the subscription (an unknown device): no report will come.
                        let request = provider.device.map { "?WATCH for device \($0)" } ?? "?WATCH"
                        let error = GPSDError(
                            .watchRejected, host: provider.host, port: provider.port, detail: "\(request): \(text)")
                        phase = .failed(error, attempt: attempt)
                        return .daemonError(text)
                    case .message(let message):
                        // gpsd streams only after the WATCH reply; anything else is handled alike.
                        if let event = handle(message) { return event }
                    }

                case .streaming:
                    guard let event = await nextSessionEvent() else { return nil }
                    switch event {
                    case .failed(let error):
                        if let retry = try retry(after: error, attempt: 0) { return retry }
                    case .message(.version(let name)):
                        release = name
                    case .message(let message):
                        if let event = handle(message) { return event }
                    }
                }
            }
        }

        /// The current session's next event; `nil` (and the iteration over) when cancelled.
        private mutating func nextSessionEvent() async -> GPSDSessionEvent? {
            guard let session = storage.session else { return nil }
            if let event = await session.next() { return event }
            stopSession()
            // The session ends without a failure only when it was cancelled.
            phase = .finished
            return nil
        }

        private mutating func handle(_ message: GPSDMessage) -> GPSDEvent? {
            switch message {
            case .fix(let fix):
                return .fix(fix)
            case .device(let path, isActive: true):
                return .deviceActivated(path: path)
            case .device(let path, isActive: false):
                if let device = provider.device, device == path, !provider.configuration.reconnect {
                    // Report the removal first; the next call ends the sequence with it.
                    phase = .failed(
                        GPSDError(.deviceRemoved, host: provider.host, port: provider.port, detail: path), attempt: 0)
                }
                return .deviceRemoved(path: path)
            case .error(let text):
                return .daemonError(text)
            case .skyUnreadable(let reason):
                return .skyUnreadable(reason)
            case .version, .watch, .other:
                return nil
            }
        }

        /// Decides what a session failure means: `.disconnected` (a retry follows), or a throw.
        private mutating func retry(after error: GPSDError, attempt: Int) throws(GPSDError) -> GPSDEvent? {
            stopSession()
            let configuration = provider.configuration
            let allowed = hasConnected ? configuration.reconnect : configuration.waitForDaemon
            let next = attempt + 1
            if allowed, configuration.backoff.allowsRetry(after: attempt) {
                phase = .idle(attempt: next, announced: false)
                return .disconnected(error)
            }
            phase = .finished
            throw error
        }

        private func stopSession() {
            storage.session?.cancel()
            storage.session = nil
        }
    }
}

@available(*, unavailable)
extension GPSDEventSequence.Iterator: Sendable {}
