import Foundation  // Dispatch, and signal(3)
import LocationCore

/// SIGINT, SIGTERM and SIGHUP for the commands that stop cleanly on them (``runUntilInterrupted(_:)``):
/// caught from the moment the command is known (``install()``, the start of `main`, before it reads
/// its files), so a signal is never lost from then on, whatever the process inherited (one during
/// the program's loading, before `main`, meets the inherited disposition). A shell script's
/// `locsim replay … &` starts with SIGINT ignored; before this, a Ctrl-C or `kill -INT` in the
/// first few tenths of a second met that inherited SIG_IGN and was dropped, and the replay ran
/// on for its whole length.
///
/// Before the command's run has begun, a signal ends the process at once with the status its
/// default action gives (128 + the signal's number), saying so: there is nothing yet to finish
/// or summarise. From the run's start, each signal goes to the run.
///
/// A reader of standard output that goes away (`locsim gpsd --record walk.gpx | head -3`) stops
/// the run the same way, once (``readerLeft()``): SIGPIPE is ignored, so the write that meets the
/// closed pipe fails with EPIPE instead of killing the process, and the run ends as on SIGINT, its
/// recording finished and its summary on standard error. The process then exits with the status
/// SIGPIPE would have given (141), so a shell's `pipefail` sees what it saw before.
enum Interruption {
    /// A command whose run ends cleanly on a signal (it calls ``runUntilInterrupted(_:)``):
    /// `LocSim.main()` installs the catchers as soon as it has parsed one.
    protocol Command {}

    private enum Phase {
        /// Installed; no run has begun.
        case beforeRun
        /// A run listens.
        case running(AsyncStream<Int32>.Continuation)
        /// Between runs: signals wait for the next one (or are dropped at exit).
        case betweenRuns(pending: [Int32])
    }

    private static let phase = Locked<Phase?>(nil)
    /// Whether standard output's reader went away while the catchers were installed.
    private static let readerGone = Locked(false)
    /// The catchers, kept for the life of the process; written once, by ``install()``.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Catches SIGINT, SIGTERM and SIGHUP from now on (once; later calls do nothing). Returns only
    /// once every catcher is registered, so a signal sent after this is always seen.
    static func install() {
        let first = phase.withLock { phase in
            guard case .none = phase else { return false }
            phase = .beforeRun
            return true
        }
        guard first else { return }
        // A closed pipe is a failed write (EPIPE, ``readerLeft()``), not the end of the process.
        signal(SIGPIPE, SIG_IGN)
        // A source is armed only once dispatch has registered it, some time after resume(); a
        // signal in between would meet SIG_IGN and be lost. Go on only when every one is.
        let registered = DispatchGroup()
        let made = [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            registered.enter()
            source.setRegistrationHandler { registered.leave() }
            source.setEventHandler { deliver(number) }
            source.resume()
            return source
        }
        registered.wait()
        sources = made
    }

    /// Standard output's reader went away (a write failed with EPIPE): the run stops as on a
    /// signal, SIGPIPE. Only the first time, and only for a command whose catchers are installed:
    /// another command (which met EPIPE because SIGPIPE was ignored when it started) says at its
    /// end that its output is incomplete.
    static func readerLeft() {
        let first = phase.withLock { phase in phase != nil } && readerGone.withLock { gone in
            defer { gone = true }
            return !gone
        }
        if first { deliver(SIGPIPE) }
    }

    /// Whether ``readerLeft()`` stopped the command: it exits as SIGPIPE would have ended it.
    static var stoppedByReader: Bool { readerGone.withLock { $0 } }

    private static func deliver(_ number: Int32) {
        let exitNow = phase.withLock { phase -> Bool in
            switch phase {
            case .beforeRun?, nil: return true
            case .running(let continuation)?:
                continuation.yield(number)
                return false
            case .betweenRuns(let pending)?:
                phase = .betweenRuns(pending: pending + [number])
                return false
            }
        }
        guard exitNow else { return }
        if number == SIGPIPE { Foundation.exit(128 + number) }  // as the default action would, silently
        Terminal.err("locsim: interrupted (\(name(of: number))) before writing anything")
        Foundation.exit(128 + number)
    }

    /// The signals from now until ``end(_:)``: any that came between runs first.
    fileprivate static func begin() -> AsyncStream<Int32> {
        install()
        let (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        phase.withLock { phase in
            if case .betweenRuns(let pending)? = phase {
                for number in pending { continuation.yield(number) }
            }
            phase = .running(continuation)
        }
        return signals
    }

    /// The run is over: later signals wait for the next one.
    fileprivate static func end() {
        phase.withLock { phase in
            if case .running(let continuation)? = phase { continuation.finish() }
            phase = .betweenRuns(pending: [])
        }
    }

    static func name(of number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        case SIGPIPE: "SIGPIPE"
        default: "signal \(number)"
        }
    }
}

/// Runs `body` until it finishes or SIGINT, SIGTERM or SIGHUP arrives (SIGHUP: the terminal
/// or ssh session that started the command went away; its output files are still kept whole);
/// on a signal, cancels `body`
/// (the provider closes its connection) and returns the signal's number (nil when `body`
/// finished by itself). A `CancellationError` that `body` throws because of that cancellation
/// (Ctrl-C while `nmea serve` waits for its first client) is the interruption itself, not a
/// failure.
///
/// The signals' default action would kill the process before output is flushed: they are
/// caught (``Interruption``), and one that came before the run (after an earlier run of the same
/// command) ends this one at once.
@discardableResult
func runUntilInterrupted(_ body: @escaping @Sendable () async throws -> Void) async throws -> Int32? {
    let signals = Interruption.begin()
    defer { Interruption.end() }
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

/// Runs `body` with each SIGINT, SIGTERM or SIGHUP handed to `handle` as it comes (its number, and
/// how many have come in this run, from 1) instead of cancelling `body`: `serve` begins its drain
/// at the first and stops at the second. An error `handle` throws ends the run: `body` is cancelled
/// and awaited, and the error is rethrown. Signals are caught as for ``runUntilInterrupted(_:)``
/// (``Interruption``), so the two are one mechanism.
func runHandlingSignals(
    _ body: @escaping @Sendable () async throws -> Void,
    handle: @escaping @Sendable (_ number: Int32, _ count: Int) async throws -> Void
) async throws {
    let signals = Interruption.begin()
    defer { Interruption.end() }
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await body() }
        group.addTask {
            var count = 0
            for await number in signals {
                count += 1
                try await handle(number, count)
            }
        }
        // The first to end is `body` (the run is over) or `handle` throwing (rethrown here).
        defer { group.cancelAll() }
        try await group.next()
    }
}
