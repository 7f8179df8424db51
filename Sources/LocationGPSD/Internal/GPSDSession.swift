import Foundation
import LocationCore

/// What a session's reader thread hands to the consuming task.
enum GPSDSessionEvent: Sendable {
    case message(GPSDMessage)
    case failed(GPSDError)
}

/// One connection to gpsd: a dedicated reader thread plus the lock-protected hand-over to the
/// task that consumes it.
///
/// The thread (never a thread of Swift's cooperative pool) opens the connection, sends the
/// `?WATCH`, then loops a 250 ms `poll` on the socket / one whole line decoded, delivering each
/// message. Delivery keeps at most `keptFixes` fixes waiting while the consumer is behind
/// (``GPSDPending``): 1, live data's newest (like `AsyncStream`'s `.bufferingNewest(1)`), or a
/// recorder's backlog; it never drops a status message (device, watch, failure) and never
/// reorders anything.
///
/// Cancelling (``cancel()``, or cancelling the task waiting in ``next()``) sets a flag under the
/// lock and shuts the socket down, which wakes the thread out of `poll` at once; the thread
/// then closes the connection. The 250 ms poll is the fallback bound should the wake-up be lost.
final class GPSDSession: Sendable {
    private struct State {
        var pending: GPSDPending
        var isFinished = false
        var isCancelled = false
        /// Non-nil only while `pending` is empty.
        var waiter: CheckedContinuation<GPSDSessionEvent?, Never>?
        /// Set while the connection is open; used (under the lock) only to wake the reader.
        var interrupt: GPSDConnection.InterruptHandle?
    }

    private let state: Locked<State>

    /// The poll interval of the reader thread: the upper bound on noticing cancellation even if
    /// the socket shutdown did not wake it.
    static let pollInterval: Duration = .milliseconds(250)

    private init(keptFixes: Int) { state = Locked(State(pending: GPSDPending(keptFixes: keptFixes))) }

    /// Starts a reader thread connected to `host:port`.
    ///
    /// - Parameters:
    ///   - device: Watch only this device path, or every device when `nil`.
    ///   - keptFixes: How many fixes wait for a consumer that is behind (at least 1).
    ///   - now: Wall-clock time used to stamp reports that carry no time of their own.
    static func start(
        host: String, port: Int, device: String?, keptFixes: Int, now: @escaping @Sendable () -> Date
    ) -> GPSDSession {
        let session = GPSDSession(keptFixes: keptFixes)
        let thread = Thread {
            session.run(host: host, port: port, device: device, now: now)
        }
        thread.name = "locsim.gpsd \(host):\(port)"
        thread.start()
        return session
    }

    /// The next event, or `nil` once the session has ended or the waiting task was cancelled.
    func next() async -> GPSDSessionEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<GPSDSessionEvent?, Never>) in
                let ready: GPSDSessionEvent?? = state.withLock { state in
                    if let first = state.pending.removeFirst() { return .some(first) }
                    if state.isFinished || state.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Stops the session: wakes the reader so it closes the connection, and ends ``next()``.
    /// Idempotent; safe from any thread.
    func cancel() {
        let waiter = state.withLock { state -> CheckedContinuation<GPSDSessionEvent?, Never>? in
            state.isCancelled = true
            state.interrupt?.interrupt()
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: nil)
    }

    // MARK: - Reader thread

    private var isCancelled: Bool { state.withLock { $0.isCancelled } }

    private func run(host: String, port: Int, device: String?, now: @Sendable () -> Date) {
        let connection: GPSDConnection
        do {
            connection = try GPSDConnection.open(host: host, port: port)
        } catch {
            deliver(.failed(error))
            finish()
            return
        }
        let registered = state.withLock { state -> Bool in
            guard !state.isCancelled else { return false }
            state.interrupt = connection.interruptHandle
            return true
        }
        defer {
            // Unregister first: once the handle is gone nobody can shut down a closed descriptor.
            state.withLock { $0.interrupt = nil }
            connection.close()
            finish()
        }
        guard registered else { return }
        do {
            try connection.watch(device: device)
            while !isCancelled {
                guard connection.waitForInput(timeout: Self.pollInterval) else { continue }
                if isCancelled { break }
                if let message = try connection.read(receivedAt: now()) {
                    deliver(.message(message))
                }
            }
        } catch {
            if !isCancelled { deliver(.failed(error)) }
        }
    }

    private func deliver(_ event: GPSDSessionEvent) {
        let waiter = state.withLock { state -> CheckedContinuation<GPSDSessionEvent?, Never>? in
            guard !state.isCancelled else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending.append(event)
            return nil
        }
        waiter?.resume(returning: event)
    }

    private func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<GPSDSessionEvent?, Never>? in
            state.isFinished = true
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: nil)
    }
}

/// The events a session's consumer has not taken yet, in order. Fixes are kept up to
/// `keptFixes`; beyond that a new fix that follows a fix replaces it (the newest wins), so a
/// consumer that is behind gets the latest position, not an ever longer backlog. Any other
/// event is always kept.
struct GPSDPending {
    /// How many fixes may wait (at least 1).
    let keptFixes: Int
    private var events: [GPSDSessionEvent] = []
    private var fixes = 0
    /// The index of the first event not yet taken (the taken ones are dropped now and then).
    private var head = 0

    init(keptFixes: Int) {
        precondition(keptFixes >= 1, "at least one fix waits")
        self.keptFixes = keptFixes
    }

    mutating func append(_ event: GPSDSessionEvent) {
        let isFix = Self.isFix(event)
        if isFix, fixes >= keptFixes, head < events.count, Self.isFix(events[events.count - 1]) {
            events[events.count - 1] = event
            return
        }
        events.append(event)
        if isFix { fixes += 1 }
    }

    /// The oldest event, removed; nil when none waits.
    mutating func removeFirst() -> GPSDSessionEvent? {
        guard head < events.count else { return nil }
        let first = events[head]
        head += 1
        if Self.isFix(first) { fixes -= 1 }
        if head == events.count {
            events.removeAll(keepingCapacity: events.count <= 64)
            head = 0
        } else if head >= 1_024, head * 2 >= events.count {
            events.removeFirst(head)
            head = 0
        }
        return first
    }

    private static func isFix(_ event: GPSDSessionEvent) -> Bool {
        if case .message(.fix) = event { return true }
        return false
    }
}
