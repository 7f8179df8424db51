public import Foundation
import LocationCore

/// Runs blocking work (accept, connect, waitpid, paced writes) on its own thread, never on
/// Swift's cooperative pool, and awaits its result.
public func onThread<T: Sendable>(
    _ name: String = "locsim.test", _ body: @escaping @Sendable () throws -> T
) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.name = name
        thread.start()
    }
}

/// Runs `body`, and throws `HarnessError` if it has not finished after `timeout` (cancelling it).
///
/// The one way the harness bounds a wait: `body` waits for an event (a line, an exit, an answer)
/// and the deadline only ends the wait when the event never comes. `describe` says what was
/// awaited and what was seen, for the message.
public func withDeadline<T: Sendable>(
    _ timeout: Duration, _ describe: @escaping @Sendable () -> String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw HarnessError("timed out after \(timeout): \(describe())")
        }
        return value
    }
}

/// A failure in the test harness itself (not in the code under test).
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension Duration {
    /// The duration in seconds, for APIs that take a `TimeInterval` or a `Date` deadline.
    public var timeInterval: TimeInterval {
        fractionalSeconds
    }
}

/// Wakes the tasks waiting on something that changes (a child's output, a provider's events):
/// each waiter gets its own stream, told of every change from the moment it asked.
///
/// ```swift
/// try await changes.wait(for: "a fix", timeout: .seconds(30)) { !recorder.fixes.isEmpty }
/// ```
public final class Changes: Sendable {
    private struct State {
        var watchers: [Int: AsyncStream<Void>.Continuation] = [:]
        var next = 0
        var ended = false
    }

    private let state = Locked(State())

    public init() {}

    /// Tells every waiter that something changed.
    public func signal() {
        for watcher in state.withLock({ Array($0.watchers.values) }) { watcher.yield() }
    }

    /// Nothing will change any more: every wait checks its condition a last time and ends.
    public func end() {
        let watchers = state.withLock { state in
            state.ended = true
            defer { state.watchers = [:] }
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher.finish() }
    }

    /// A stream that yields after each change from now on, and ends after ``end()``.
    public func stream() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let ended = state.withLock { state -> Bool in
            guard !state.ended else { return true }
            let id = state.next
            state.next += 1
            state.watchers[id] = continuation
            continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) } }
            return false
        }
        if ended { continuation.finish() }
        return stream
    }

    /// Waits until `condition` holds, checking it now and after every change.
    ///
    /// - Throws: `HarnessError` naming `what` (and what `account` says) after `timeout`, or once
    ///   nothing will change any more and `condition` still does not hold.
    public func wait(
        for what: String, timeout: Duration = .seconds(30), account: @escaping @Sendable () -> String = { "" },
        _ condition: @escaping @Sendable () -> Bool
    ) async throws {
        try await withDeadline(timeout, { "waiting for \(what); \(account())" }) {
            var changes = self.stream().makeAsyncIterator()
            while !condition() {
                if await changes.next() == nil {
                    try Task.checkCancellation()
                    if condition() { return }
                    throw HarnessError("nothing more will happen, and still not \(what); \(account())")
                }
            }
        }
    }
}
