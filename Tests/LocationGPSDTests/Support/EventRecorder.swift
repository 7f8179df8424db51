import Foundation
import LocationCore
import LocSimTestHelpers
import LocationGPSD
import Synchronization

/// Iterates a provider's event sequence in a task and records everything, so a test can act
/// (kill gpsd, unplug the feed) between observations and wait for what it expects.
final class EventRecorder: Sendable {
    private struct Recorded {
        var events: [GPSDEvent] = []
        /// The `.fix` events' fixes, kept apart so waiting on them stays cheap on long runs.
        var fixes: [Fix] = []
    }

    private let state = Mutex(Recorded())
    private let ending = Mutex<Result<Void, any Error>?>(nil)
    private let task = Mutex<Task<Void, Never>?>(nil)
    /// Broadcast after every event and at the end, for ``waitBlocking(for:timeout:_:)``.
    private let changed = NSCondition()

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == GPSDEvent {
        let handle = Task { [self] in
            do {
                for try await event in sequence {
                    state.withLock { state in
                        state.events.append(event)
                        if case .fix(let fix) = event { state.fixes.append(fix) }
                    }
                    signal()
                }
                ending.withLock { $0 = .success(()) }
            } catch {
                ending.withLock { $0 = .failure(error) }
            }
            signal()
        }
        task.withLock { $0 = handle }
    }

    var recorded: [GPSDEvent] { state.withLock { $0.events } }
    var fixes: [Fix] { state.withLock { $0.fixes } }
    var fixCount: Int { state.withLock { $0.fixes.count } }
    var positions: [Fix] { fixes.filter(\.hasPosition) }
    /// How iteration ended: `nil` while running, `.success` for a normal end, `.failure` for a throw.
    var end: Result<Void, any Error>? { ending.withLock { $0 } }

    /// Waits (polling every 5 ms) until `condition` holds for the events so far.
    ///
    /// The timeout is generous: it only matters when something is broken, and a loaded machine
    /// can hold a test's tasks back for seconds.
    func wait(
        for what: String, timeout: Duration = .seconds(30), _ condition: ([GPSDEvent]) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(recorded) {
            if end != nil, !condition(recorded) {
                throw HarnessError("iteration ended (\(String(describing: end))) before \(what); events: \(summary)")
            }
            guard ContinuousClock.now < deadline else {
                throw HarnessError("timed out after \(timeout) waiting for \(what); events: \(summary)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until iteration has ended.
    func waitForEnd(timeout: Duration = .seconds(30)) async throws -> Result<Void, any Error> {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let end { return end }
            guard ContinuousClock.now < deadline else { throw HarnessError("iteration did not end within \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Blocks the calling thread (a dedicated one, never the cooperative pool) until `condition`
    /// holds for the fixes so far, woken by each new event.
    ///
    /// - Throws: `HarnessError` when iteration ends first or after `timeout`.
    func waitBlocking(for what: @autoclosure () -> String, timeout: Duration, _ condition: ([Fix]) -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout.timeInterval)
        changed.lock()
        defer { changed.unlock() }
        while true {
            if state.withLock({ condition($0.fixes) }) { return }
            if let end { throw HarnessError("iteration ended (\(end)) before \(what()); events: \(summary)") }
            if !changed.wait(until: deadline), Date() >= deadline {
                throw HarnessError("timed out after \(timeout) waiting for \(what()); events: \(summary)")
            }
        }
    }

    private func signal() {
        changed.lock()
        changed.broadcast()
        changed.unlock()
    }

    /// Cancels the iterating task and waits for it to finish.
    func cancel() async {
        let handle = task.withLock { $0 }
        handle?.cancel()
        await handle?.value
    }

    /// Cancels the iterating task without waiting (for `defer`).
    func cancelNow() { task.withLock { $0?.cancel() } }

    var summary: String {
        recorded.map { event in
            switch event {
            case .fix(let fix): fix.hasPosition ? "fix" : "nofix"
            case .connected: "connected"
            case .disconnected(let error): "disconnected(\(error.code))"
            case .retrying(let attempt, let delay): "retrying(\(attempt), \(delay))"
            case .deviceActivated: "deviceActivated"
            case .deviceRemoved: "deviceRemoved"
            case .daemonError(let text): "daemonError(\(text))"
            }
        }.joined(separator: " ")
    }
}

extension EventRecorder: LockStepConsumer {
    var deliveredCount: Int { fixCount }

    var hasSeenDeviceActivation: Bool {
        recorded.contains { if case .deviceActivated = $0 { true } else { false } }
    }

    func waitBlocking(
        untilDelivered report: RawGPSDClient.TPV, after previous: Int, timeout: Duration,
        context: @autoclosure () -> String
    ) throws {
        try waitBlocking(for: "the provider to yield \(context())", timeout: timeout) { fixes in
            fixes.count > previous && fixes[previous...].contains(where: report.matches)
        }
    }
}
