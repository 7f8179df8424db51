import Foundation  // Dispatch, and signal(3)

/// Runs `body` until it finishes or SIGINT, SIGTERM or SIGHUP arrives (SIGHUP: the terminal
/// or ssh session that started the command went away; its output files are still kept whole);
/// on a signal, cancels `body`
/// (the provider closes its connection) and returns the signal's number (nil when `body`
/// finished by itself). A `CancellationError` that `body` throws because of that cancellation
/// (Ctrl-C while `nmea serve` waits for its first client) is the interruption itself, not a
/// failure.
///
/// The signals' default action would kill the process before output is flushed: they are
/// ignored, and observed through dispatch sources instead.
@discardableResult
func runUntilInterrupted(_ body: @escaping @Sendable () async throws -> Void) async throws -> Int32? {
    let (signals, arrived) = AsyncStream.makeStream(of: Int32.self)
    // A source is armed only once dispatch has registered it, some time after resume(); a signal
    // in between would meet SIG_IGN and be lost (a Ctrl-C that does nothing). Go on only when
    // every source is registered, so a signal sent after this is always seen.
    let registered = DispatchGroup()
    let sources = [SIGINT, SIGTERM, SIGHUP].map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        registered.enter()
        source.setRegistrationHandler { registered.leave() }
        source.setEventHandler { arrived.yield(number) }
        source.resume()
        return source
    }
    registered.wait()
    defer { for source in sources { source.cancel() } }
    return try await withThrowingTaskGroup(of: Int32?.self) { group in
        group.addTask {
            try await body()
            return nil
        }
        group.addTask {
            for await number in signals { return number }  // a signal (even one before this)
            return nil  // cancelled
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { return nil }
        group.cancelAll()
        // Let the provider finish closing before the process exits.
        do {
            while let _ = try await group.next() {}
        } catch is CancellationError where first != nil {
            return first
        }
        return first
    }
}
