import Dispatch
import Foundation
package import LocationCore

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

    package init(configuration: Configuration) { self.configuration = configuration }

    /// The arguments for one fix: `simctl location DEVICE set LAT,LON` (7 decimals, about 1 cm).
    package static func arguments(for fix: Fix, device: String) -> [String]? {
        guard fix.hasPosition, let coordinate = fix.coordinate else { return nil }
        return [
            "simctl", "location", device, "set",
            DecimalText.fixed(coordinate.latitude, decimals: 7) + "," + DecimalText.fixed(coordinate.longitude, decimals: 7),
        ]
    }

    package func withSession(_ body: (any FixSession) async throws -> Void) async throws {
        try await body(Session(configuration: configuration, destination: destination))
    }

    final class Session: FixSession {
        let configuration: Configuration
        let destination: String

        init(configuration: Configuration, destination: String) {
            self.configuration = configuration
            self.destination = destination
        }

        func send(_ fix: Fix) async throws {
            guard let arguments = SimulatorLocation.arguments(for: fix, device: configuration.device) else { return }
            try await SimulatorLocation.run(configuration.executable, arguments, timeout: configuration.timeout)
        }
    }

    /// Runs the executable and waits for it; a failure says what it wrote on standard error.
    static func run(_ executable: String, _ arguments: [String], timeout: Duration) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let shown = ([executable] + arguments).joined(separator: " ")
        let timedOut = Locked(false)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(
                    throwing: SimulatorLocationError(
                        command: shown, "cannot start \(executable): \(FileErrorText.reason(for: error)) (simctl needs macOS with Xcode)"))
                return
            }
            let deadline = DispatchTime.now() + .microseconds(Int(clamping: timeout.wholeMicroseconds))
            DispatchQueue.global().asyncAfter(deadline: deadline) { [process] in
                guard process.isRunning else { return }
                timedOut.withLock { $0 = true }
                process.terminate()
            }
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if timedOut.withLock({ $0 }) {
            throw SimulatorLocationError(command: shown, "no result within \(timeout); stopped")
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let status =
                process.terminationReason == .exit
                ? "exit status \(process.terminationStatus)" : "signal \(process.terminationStatus)"
            throw SimulatorLocationError(command: shown, "\(status)\(message.isEmpty ? "" : ": " + message)")
        }
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
