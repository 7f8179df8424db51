import Foundation
package import LocationCore
package import LocationGPSD

/// Iterates a provider's event sequence in a task and records everything, so a test can act
/// (kill gpsd, unplug the feed) between observations and wait for what it expects.
package final class EventRecorder: Sendable {
    private struct Recorded {
        var events: [GPSDEvent] = []
        /// The `.fix` events' fixes, kept apart so waiting on them stays cheap on long runs.
        var fixes: [Fix] = []
    }

    private let state = Locked(Recorded())
    private let ending = Locked<Result<Void, any Error>?>(nil)
    private let task = Locked<Task<Void, Never>?>(nil)
    /// Signalled after every event, ended when iteration ends.
    private let changes = Changes()

    package init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == GPSDEvent {
        let handle = Task { [self] in
            do {
                for try await event in sequence {
                    state.withLock { state in
                        state.events.append(event)
                        if case .fix(let fix) = event { state.fixes.append(fix) }
                    }
                    changes.signal()
                }
                ending.withLock { $0 = .success(()) }
            } catch {
                ending.withLock { $0 = .failure(error) }
            }
            changes.end()
        }
        task.withLock { $0 = handle }
    }

    package var recorded: [GPSDEvent] { state.withLock { $0.events } }
    package var fixes: [Fix] { state.withLock { $0.fixes } }
    package var fixCount: Int { state.withLock { $0.fixes.count } }
    package var positions: [Fix] { fixes.filter(\.hasPosition) }
    /// How iteration ended: `nil` while running, `.success` for a normal end, `.failure` for a throw.
    package var end: Result<Void, any Error>? { ending.withLock { $0 } }

    /// Waits until `condition` holds for the events so far, checking again after each event.
    ///
    /// - Throws: `HarnessError` when iteration ends first or after `timeout` (generous: it only
    ///   runs out when something is broken).
    package func wait(
        for what: String, timeout: Duration = .seconds(30), _ condition: @escaping @Sendable ([GPSDEvent]) -> Bool
    ) async throws {
        try await changes.wait(for: what, timeout: timeout, account: { [self] in "ended: \(String(describing: end)); events: \(summary)" }) {
            [self] in condition(recorded)
        }
    }

    /// Waits until iteration has ended.
    package func waitForEnd(timeout: Duration = .seconds(30)) async throws -> Result<Void, any Error> {
        try await changes.wait(for: "the end of iteration", timeout: timeout, account: { [self] in summary }) { [self] in end != nil }
        return end!
    }

    /// Cancels the iterating task and waits for it to finish.
    package func cancel() async {
        let handle = task.withLock { $0 }
        handle?.cancel()
        await handle?.value
    }

    /// Cancels the iterating task without waiting (for `defer`).
    package func cancelNow() { task.withLock { $0?.cancel() } }

    package var summary: String {
        recorded.map { event in
            switch event {
            case .fix(let fix): fix.hasPosition ? "fix" : "nofix"
            case .connected: "connected"
            case .disconnected(let error): "disconnected(\(error.code))"
            case .retrying(let attempt, let delay): "retrying(\(attempt), \(delay))"
            case .deviceActivated: "deviceActivated"
            case .deviceRemoved: "deviceRemoved"
            case .daemonError(let text): "daemonError(\(text))"
            case .skyUnreadable(let reason): "skyUnreadable(\(reason))"
            }
        }.joined(separator: " ")
    }
}

extension EventRecorder: LockStepConsumer {
    package var deliveredCount: Int { fixCount }

    package var hasSeenDeviceActivation: Bool {
        recorded.contains { if case .deviceActivated = $0 { true } else { false } }
    }

    package func waitUntilDelivered(
        _ report: RawGPSDClient.TPV, after previous: Int, timeout: Duration, context: String
    ) async throws {
        try await changes.wait(for: "the provider to yield \(context)", timeout: timeout, account: { [self] in summary }) {
            [self] in
            let fixes = self.fixes
            return fixes.count > previous && fixes[previous...].contains(where: report.matches)
        }
    }
}
