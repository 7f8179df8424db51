import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` until it finishes or SIGINT/SIGTERM arrives; on a signal, cancels `body`
/// (the provider closes its connection) and returns `true`. A `CancellationError` that `body`
/// throws because of that cancellation (Ctrl-C while `nmea serve` waits for its first client)
/// is the interruption itself, not a failure.
func runUntilInterrupted(_ body: @escaping @Sendable () async throws -> Void) async throws -> Bool {
    let signals = SignalWaiter(signals: [SIGINT, SIGTERM])
    defer { signals.stop() }
    return try await withThrowingTaskGroup(of: Bool.self) { group in
        group.addTask {
            try await body()
            return false
        }
        group.addTask {
            await signals.wait()
            return true
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { return false }
        group.cancelAll()
        // Let the provider finish closing before the process exits.
        do {
            while let _ = try await group.next() {}
        } catch is CancellationError where first {
            return true
        }
        return first
    }
}
