import Foundation
import LocationCore
import LocationGPSD
import Synchronization

/// Iterates a provider's event sequence in a task and records everything, so a test can act
/// (kill gpsd, unplug the feed) between observations and wait for what it expects.
final class EventRecorder: Sendable {
    private let events = Mutex<[GPSDEvent]>([])
    private let ending = Mutex<Result<Void, any Error>?>(nil)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == GPSDEvent {
        let handle = Task { [self] in
            do {
                for try await event in sequence { events.withLock { $0.append(event) } }
                ending.withLock { $0 = .success(()) }
            } catch {
                ending.withLock { $0 = .failure(error) }
            }
        }
        task.withLock { $0 = handle }
    }

    var recorded: [GPSDEvent] { events.withLock { $0 } }
    var fixes: [Fix] { recorded.compactMap { if case .fix(let fix) = $0 { fix } else { nil } } }
    var positions: [Fix] { fixes.filter(\.hasPosition) }
    /// How iteration ended: `nil` while running, `.success` for a normal end, `.failure` for a throw.
    var end: Result<Void, any Error>? { ending.withLock { $0 } }

    /// Waits (polling every 5 ms) until `condition` holds for the events so far.
    func wait(
        for what: String, timeout: Duration = .seconds(10), _ condition: ([GPSDEvent]) -> Bool
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
    func waitForEnd(timeout: Duration = .seconds(10)) async throws -> Result<Void, any Error> {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let end { return end }
            guard ContinuousClock.now < deadline else { throw HarnessError("iteration did not end within \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
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
