import Dispatch
import LocationCore
import LocationGPSD

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Prints `locsim gpsd` lines: one per event, written straight to the descriptor (no stdio
/// buffer), so a pipe sees live data and nothing is left unflushed at exit.
struct GPSDPrinter: Sendable {
    let format: GPSDOutputFormat
    let endpoint: String

    func print(_ event: GPSDEvent) {
        switch format {
        case .jsonl: Terminal.out(jsonLine(event))
        case .text: Terminal.out(text(event))
        }
    }

    // MARK: jsonl

    /// The event's jsonl line: a `fix` (the same record `replay` and `simulate` write), a `status`
    /// for a report without a position, or an `event` (docs/reference/jsonl.md).
    func jsonLine(_ event: GPSDEvent) -> String {
        switch event {
        case .fix(let fix) where fix.hasPosition:
            FixRecord(fix: fix).line
        case .fix(let fix):
            StatusRecord(fix: fix).line
        case .connected(let release):
            GPSDEventRecord.connected(endpoint: endpoint, release: release).line
        case .disconnected(let error):
            GPSDEventRecord.disconnected(endpoint: endpoint, error: error.description).line
        case .retrying(let attempt, let delay):
            GPSDEventRecord.retrying(attempt: attempt, delay: delay.fractionalSeconds).line
        case .deviceActivated(let path):
            GPSDEventRecord.deviceActivated(device: path).line
        case .deviceRemoved(let path):
            GPSDEventRecord.deviceRemoved(device: path).line
        case .daemonError(let message):
            GPSDEventRecord.daemonError(message: message).line
        }
    }

    // MARK: text

    func text(_ event: GPSDEvent) -> String {
        switch event {
        case .fix(let fix) where fix.hasPosition:
            var line = "\(UTCTimestamp.format(fix.time, fractionDigits: 3))  \(fix.coordinate!)  \(fix.mode)"
            if let accuracy = fix.horizontalAccuracy { line += "  ±\(Self.decimal(accuracy, 1)) m" }
            if let altitude = fix.altitude { line += "  alt \(Self.decimal(altitude, 1)) m" }
            if let speed = fix.speed { line += "  \(Self.decimal(speed, 2)) m/s" }
            if let course = fix.course { line += "  \(Self.decimal(course, 1))°" }
            return line
        case .fix(let fix):
            return "\(UTCTimestamp.format(fix.time, fractionDigits: 3))  no fix"
        case .connected(let release):
            return "# connected to gpsd \(release.isEmpty ? "" : release + " ")at \(endpoint)"
        case .disconnected(let error):
            return "# disconnected: \(PeopleText.escaped(error.description))"
        case .retrying(let attempt, let delay):
            return "# retrying in \(Self.decimal(delay.fractionalSeconds, 2)) s (attempt \(attempt))"
        case .deviceActivated(let path):
            return "# device activated: \(path)"
        case .deviceRemoved(let path):
            return "# device removed: \(path)"
        case .daemonError(let message):
            return "# gpsd error: \(PeopleText.escaped(message))"
        }
    }

    private static func decimal(_ value: Double, _ places: Int) -> String {
        PeopleText.number(value, decimals: places)
    }
}

/// Waits for a termination signal without the default action (which would kill the process
/// before output is flushed): the signals are ignored and observed through a dispatch source.
final class SignalWaiter: Sendable {
    private let sources: Locked<[any DispatchSourceSignal]>
    private let state = Locked<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init(signals: [Int32]) {
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            sources.append(source)
        }
        self.sources = Locked(sources)
        // A source is armed only once dispatch has registered it, some time after resume(); a
        // signal in between would meet SIG_IGN and be lost (a Ctrl-C that does nothing). Return
        // only when every source is registered, so a signal sent after this is always seen.
        let registered = DispatchGroup()
        self.sources.withLock { sources in
            for source in sources {
                registered.enter()
                source.setRegistrationHandler { registered.leave() }
                source.setEventHandler { [weak self] in self?.fire() }
                source.resume()
            }
        }
        registered.wait()
    }

    /// Returns once a signal has arrived (at once if one already has), or when the task is cancelled.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let fired = state.withLock { state -> Bool in
                    if state.fired || Task.isCancelled { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if fired { continuation.resume() }
            }
        } onCancel: {
            fire()
        }
    }

    func stop() {
        sources.withLock { sources in
            for source in sources { source.cancel() }
        }
    }

    private func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
