import Dispatch
import LocationCore
import LocationGPSD
import Synchronization

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
        case .jsonl: Terminal.out(json(event).text)
        case .text: Terminal.out(text(event))
        }
    }

    // MARK: jsonl

    func json(_ event: GPSDEvent) -> JSONValue {
        switch event {
        case .fix(let fix) where fix.hasPosition:
            return .object(Self.fixMembers(fix))
        case .fix(let fix):
            return .object([
                ("type", .string("status")), ("t", .string(UTCTimestamp.format(fix.time, fractionDigits: 3))),
                ("mode", .string(fix.mode.description)),
            ])
        case .connected(let release):
            return Self.event("connected", [("endpoint", .string(endpoint)), ("release", .string(release))])
        case .disconnected(let error):
            return Self.event("disconnected", [("endpoint", .string(endpoint)), ("error", .string(error.description))])
        case .retrying(let attempt, let delay):
            return Self.event("retrying", [("attempt", .int(attempt)), ("delay", JSONValue.rounded(delay.fractionalSeconds, 3))])
        case .deviceActivated(let path):
            return Self.event("deviceActivated", [("device", .string(path))])
        case .deviceRemoved(let path):
            return Self.event("deviceRemoved", [("device", .string(path))])
        case .daemonError(let message):
            return Self.event("daemonError", [("message", .string(message))])
        }
    }

    /// `{"type":"fix","t":..,"lat":..,"lon":..,"mode":..,"accuracy":..,...}`; optional members
    /// only when known (lat and lon are null for a fix without a position). `locsim gpsd` and
    /// `locsim simulate` print fixes this way.
    static func fixMembers(_ fix: Fix) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("type", .string("fix")),
            ("t", .string(UTCTimestamp.format(fix.time, fractionDigits: 3))),
            ("lat", fix.coordinate.map { .number($0.latitude) } ?? .null),
            ("lon", fix.coordinate.map { .number($0.longitude) } ?? .null),
            ("mode", .string(fix.mode.description)),
        ]
        if let accuracy = fix.horizontalAccuracy { members.append(("accuracy", JSONValue.rounded(accuracy, 3))) }
        if let altitude = fix.altitude { members.append(("alt", JSONValue.rounded(altitude, 3))) }
        if let vertical = fix.verticalAccuracy { members.append(("vaccuracy", JSONValue.rounded(vertical, 3))) }
        if let speed = fix.speed { members.append(("speed", JSONValue.rounded(speed, 3))) }
        if let course = fix.course { members.append(("course", JSONValue.rounded(course, 2))) }
        return members
    }

    private static func event(_ name: String, _ members: [(String, JSONValue)]) -> JSONValue {
        .object([("type", .string("event")), ("event", .string(name))] + members)
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
            return "# disconnected: \(error)"
        case .retrying(let attempt, let delay):
            return "# retrying in \(Self.decimal(delay.fractionalSeconds, 2)) s (attempt \(attempt))"
        case .deviceActivated(let path):
            return "# device activated: \(path)"
        case .deviceRemoved(let path):
            return "# device removed: \(path)"
        case .daemonError(let message):
            return "# gpsd error: \(message)"
        }
    }

    private static func decimal(_ value: Double, _ places: Int) -> String {
        JSONValue.rounded(value, places).text
    }
}

/// Waits for a termination signal without the default action (which would kill the process
/// before output is flushed): the signals are ignored and observed through a dispatch source.
final class SignalWaiter: Sendable {
    private let sources: Mutex<[any DispatchSourceSignal]>
    private let state = Mutex<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init(signals: [Int32]) {
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            sources.append(source)
        }
        self.sources = Mutex(sources)
        self.sources.withLock { sources in
            for source in sources {
                source.setEventHandler { [weak self] in self?.fire() }
                source.resume()
            }
        }
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
