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
    /// The timeout is generous: it only matters when something is broken. It counts only the
    /// time this task got to run: when the whole test process was held back (sleeping 5 ms took
    /// over a second, as when other suites' blocking work fills Swift's two-thread pool on this
    /// machine), the stall is added to the deadline, and before giving up the recorder's task
    /// is given its turn, so a starved pool does not read as a broken provider.
    func wait(
        for what: String, timeout: Duration = .seconds(30), _ condition: ([GPSDEvent]) -> Bool
    ) async throws {
        var clock = StallTolerantDeadline(timeout: timeout)
        while !condition(recorded) {
            if end != nil, !condition(recorded) {
                throw HarnessError("iteration ended (\(String(describing: end))) before \(what); events: \(summary)")
            }
            if clock.isPast {
                for _ in 0..<20 { await Task.yield() }
                if condition(recorded) { return }
                throw HarnessError("timed out after \(timeout) waiting for \(what); events: \(summary)")
            }
            try await clock.pause()
        }
    }

    /// Waits until iteration has ended (the timeout counted as in ``wait(for:timeout:_:)``).
    func waitForEnd(timeout: Duration = .seconds(30)) async throws -> Result<Void, any Error> {
        var clock = StallTolerantDeadline(timeout: timeout)
        while true {
            if let end { return end }
            if clock.isPast {
                for _ in 0..<20 { await Task.yield() }
                if let end { return end }
                throw HarnessError("iteration did not end within \(timeout)")
            }
            try await clock.pause()
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

/// A deadline for polling waits that does not count time the whole process was held back.
struct StallTolerantDeadline {
    private var deadline: ContinuousClock.Instant
    private static let interval = Duration.milliseconds(5)

    init(timeout: Duration) { deadline = ContinuousClock.now + timeout }

    var isPast: Bool { ContinuousClock.now >= deadline }

    /// Sleeps one polling interval; a sleep that overran by more than a second moves the
    /// deadline by the overrun.
    mutating func pause() async throws {
        let start = ContinuousClock.now
        try await Task.sleep(for: Self.interval)
        let overrun = ContinuousClock.now - start - Self.interval
        if overrun > .seconds(1) { deadline += overrun }
    }
}
