import Foundation
package import LocationCore
import Subprocess
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// The iOS Simulator as a ``FixSink`` (macOS with Xcode only): each fix runs
/// `xcrun simctl location DEVICE set LAT,LON`.
///
/// Every fix starts a process (about a tenth of a second on a Mac), so forward at most one or two
/// fixes a second (``FixForwarder``'s `minimumInterval`). On Linux there is no `xcrun`: the
/// project's tests run this sink against a stand-in executable that records its arguments, so
/// the command line is checked there, but the real `simctl` is untested on Linux.
package struct SimulatorLocation: FixSink {
    package struct Configuration: Sendable, Hashable {
        /// A simulator's UDID or name, or `booted` (the one booted simulator).
        package var device: String
        /// `xcrun`; another executable that takes the same arguments in tests.
        package var executable: String
        /// How long one `simctl` may take before it is stopped and the fix counts as failed.
        package var timeout: Duration

        /// - Throws: ``/LocationCore/ConfigurationError`` naming `device` or `timeout`.
        package init(device: String, executable: String = "/usr/bin/xcrun", timeout: Duration = .seconds(10))
            throws(ConfigurationError)
        {
            guard !device.isEmpty, !device.hasPrefix("-"), !device.contains(where: \.isNewline) else {
                throw ConfigurationError(parameter: "device", "a simulator UDID, name or 'booted', got '\(device)'")
            }
            guard timeout > .zero else { throw ConfigurationError(parameter: "timeout", "must be positive, got \(timeout)") }
            self.device = device
            self.executable = executable
            self.timeout = timeout
        }
    }

    package let configuration: Configuration
    package var destination: String { "simctl \(configuration.device)" }
    /// What ``Configuration/timeout`` is measured on.
    let sleep: @Sendable (Duration) async throws -> Void

    /// - Parameter clock: The clock the timeout is measured on (the command's `ContinuousClock`).
    package init<C: Clock>(configuration: Configuration, clock: C) where C.Duration == Duration {
        self.configuration = configuration
        self.sleep = { try await clock.sleep(for: $0) }
    }

    /// The arguments for one fix: `simctl location DEVICE set LAT,LON` (7 decimals, about 1 cm).
    package static func arguments(for fix: Fix, device: String) -> [String]? {
        guard fix.hasPosition, let coordinate = fix.coordinate else { return nil }
        return [
            "simctl", "location", device, "set",
            DecimalText.fixed(coordinate.latitude, decimals: 7) + "," + DecimalText.fixed(coordinate.longitude, decimals: 7),
        ]
    }

    package func withSession(_ body: (any FixSession) async throws -> Void) async throws {
        try await body(Session(sink: self))
    }

    final class Session: FixSession {
        let sink: SimulatorLocation

        init(sink: SimulatorLocation) { self.sink = sink }

        func send(_ fix: Fix) async throws {
            guard let arguments = SimulatorLocation.arguments(for: fix, device: sink.configuration.device) else { return }
            try await sink.run(arguments)
        }
    }

    /// What standard error of one run is read up to (simctl's messages are a line or two).
    static let errorLimit = 64 << 10

    /// Runs the executable with `arguments` and waits for it without holding a thread (a
    /// swift-subprocess child); one still running after the timeout is killed. A failure says
    /// what it wrote on standard error.
    func run(_ arguments: [String]) async throws {
        let executable = configuration.executable
        let shown = ([executable] + arguments).joined(separator: " ")
        let timeout = configuration.timeout
        let sleep = sleep
        // The child, or the timeout: whichever ends first; the other is cancelled (a cancelled
        // child is killed by swift-subprocess's teardown).
        let outcome = try await withThrowingTaskGroup(of: (status: TerminationStatus, errors: String)?.self) { group in
            group.addTask {
                do {
                    let result = try await Subprocess.run(
                        .path(FilePath(executable)), arguments: Arguments(arguments), input: .none, output: .discarded,
                        error: .string(limit: Self.errorLimit))
                    return (result.terminationStatus, result.standardError)
                } catch let error as SubprocessError {
                    throw SimulatorLocationError(command: shown, Self.reason(error, executable: executable))
                }
            }
            group.addTask {
                try await sleep(timeout)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        guard let outcome else { throw SimulatorLocationError(command: shown, "no result within \(timeout); stopped") }
        let message = outcome.errors.trimmingCharacters(in: .whitespacesAndNewlines)
        switch outcome.status {
        case .exited(0):
            return
        case .exited(let status):
            throw SimulatorLocationError(command: shown, "exit status \(status)\(message.isEmpty ? "" : ": " + message)")
        case .signaled(let signal):
            throw SimulatorLocationError(command: shown, "signal \(signal)\(message.isEmpty ? "" : ": " + message)")
        }
    }

    /// Why the child could not be run: it could not be started (no such file, not executable),
    /// or something went wrong while it ran (more than ``errorLimit`` bytes on standard error).
    static func reason(_ error: SubprocessError, executable: String) -> String {
        guard error.code == .executableNotFound || error.code == .spawnFailed else { return "\(error)" }
        let why = error.underlyingError.map { ": \($0.description)" } ?? ""
        return "cannot start \(executable)\(why) (simctl needs macOS with Xcode)"
    }
}

/// Why `simctl` did not take a fix: the command and what went wrong.
package struct SimulatorLocationError: Error, Sendable, CustomStringConvertible {
    package let command: String
    package let message: String

    init(command: String, _ message: String) {
        self.command = command
        self.message = message
    }

    package var description: String { "\(command): \(message)" }
}
