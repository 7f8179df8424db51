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
/// `?WATCH`, then loops a 250 ms `poll` on the socket / one whole line decoded, delivering each message. Delivery
/// keeps only the newest fix while the consumer is behind (like `AsyncStream`'s
/// `.bufferingNewest(1)`), but never drops a status message (device, watch, failure) and never
/// reorders anything.
///
/// Cancelling (``cancel()``, or cancelling the task waiting in ``next()``) sets a flag under the
/// lock and shuts the socket down, which wakes the thread out of `poll` at once; the thread
/// then closes the connection. The 250 ms poll is the fallback bound should the wake-up be lost.
final class GPSDSession: Sendable {
    private struct State {
        var pending: [GPSDSessionEvent] = []
        var isFinished = false
        var isCancelled = false
        /// Non-nil only while `pending` is empty.
        var waiter: CheckedContinuation<GPSDSessionEvent?, Never>?
        /// Set while the connection is open; used (under the lock) only to wake the reader.
        var interrupt: GPSDConnection.InterruptHandle?
    }

    private let state = Locked(State())

    /// The poll interval of the reader thread: the upper bound on noticing cancellation even if
    /// the socket shutdown did not wake it.
    static let pollInterval: Duration = .milliseconds(250)

    private init() {}

    /// Starts a reader thread connected to `host:port`.
    ///
    /// - Parameters:
    ///   - device: Watch only this device path, or every device when `nil`.
    ///   - now: Wall-clock time used to stamp reports that carry no time of their own.
    static func start(
        host: String, port: Int, device: String?, now: @escaping @Sendable () -> Date
    ) -> GPSDSession {
        let session = GPSDSession()
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
                    if !state.pending.isEmpty { return .some(state.pending.removeFirst()) }
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
            if case .message(.fix) = event, case .message(.fix)? = state.pending.last {
                state.pending[state.pending.count - 1] = event
            } else {
                state.pending.append(event)
            }
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
