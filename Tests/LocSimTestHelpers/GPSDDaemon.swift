#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif
import Foundation

/// A real gpsd, started by a test on a private loopback port and fed over TCP:
/// `gpsd -N -n -S PORT tcp://127.0.0.1:FEED`.
///
/// Tests stop it with `defer { daemon.stop() }`, so it is stopped (SIGTERM, then SIGKILL) even
/// when the test fails. Ports are picked free per daemon, so tests run in parallel.
public final class GPSDDaemon: Sendable {
    /// gpsd's executable, when installed.
    public static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/opt/homebrew/sbin"]
        return candidates.map { $0 + "/gpsd" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    public static var isInstalled: Bool { executable != nil }

    /// The port gpsd serves clients on.
    public let port: Int
    /// The port of the feed gpsd reads NMEA from.
    public let feedPort: Int
    /// The device path gpsd reports for the feed.
    public var devicePath: String { "tcp://127.0.0.1:\(feedPort)" }

    /// gpsd's control socket (`-F`), where `gpsdctl add`/`remove` plug and unplug devices, when
    /// started with one.
    public let controlSocket: String?
    /// Whether gpsd runs with `-b`, never writing to the feed (``start(feedPort:port:controlSocket:readOnly:opensOnWatch:)``).
    public let readOnly: Bool
    /// Whether gpsd runs without `-n`: it opens the feed when a client first watches, not at start.
    public let opensOnWatch: Bool

    private let process: ChildProcess

    private init(port: Int, feedPort: Int, controlSocket: String?, readOnly: Bool, opensOnWatch: Bool, process: ChildProcess) {
        self.port = port
        self.feedPort = feedPort
        self.controlSocket = controlSocket
        self.readOnly = readOnly
        self.opensOnWatch = opensOnWatch
        self.process = process
    }

    /// Starts gpsd reading `tcp://127.0.0.1:feedPort`, on `port` or a free port, and returns once
    /// it accepts clients; with `controlSocket`, gpsd also listens there for `gpsdctl`.
    ///
    /// With `readOnly`, gpsd runs with `-b` and never writes to the feed (its driver probes): for
    /// a feed that the test ends with a reset. Linux reports a reset once, to the first read or
    /// write on the socket; a probe written after it takes the error, the read that follows sees
    /// a plain end of stream, and gpsd 3.22 then keeps the device as if it had only gone quiet.
    ///
    /// With `opensOnWatch`, gpsd runs without `-n`: it connects to the feed only when its first
    /// client watches, so that client sees every report of the feed from its start (a feed that
    /// plays once, from when gpsd connects, would otherwise run ahead of a client still connecting).
    public static func start(
        feedPort: Int, port: Int? = nil, controlSocket: String? = nil, readOnly: Bool = false, opensOnWatch: Bool = false
    ) async throws -> GPSDDaemon {
        var lastError: any Error = HarnessError("gpsd did not start")
        for _ in 0..<5 {
            let chosen = try port ?? LoopbackSocket.freePort()
            do {
                return try await launch(
                    port: chosen, feedPort: feedPort, controlSocket: controlSocket, readOnly: readOnly, opensOnWatch: opensOnWatch)
            } catch {
                lastError = error
                if port != nil { try await Task.sleep(for: .milliseconds(100)) }
            }
        }
        throw lastError
    }

    /// Starts a new gpsd on the same ports (after ``stop()`` or a kill).
    public func restarted() async throws -> GPSDDaemon {
        try await Self.start(feedPort: feedPort, port: port, controlSocket: controlSocket, readOnly: readOnly, opensOnWatch: opensOnWatch)
    }

    /// Plugs in (`add`) or unplugs (`remove`) the device at `path` through ``controlSocket`` with
    /// gpsd's own `gpsdctl`.
    public func control(_ action: String, _ path: String) async throws {
        guard let controlSocket else { throw HarnessError("this gpsd was started without a control socket") }
        let gpsdctl = ["/usr/sbin/gpsdctl", "/usr/local/sbin/gpsdctl", "/usr/bin/gpsdctl"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let gpsdctl else { throw HarnessError("gpsdctl is not installed (apt-get install gpsd)") }
        let child = try await ChildProcess([gpsdctl, action, path], environment: ["GPSD_SOCKET": controlSocket])
        let status = try await child.waitForExit(timeout: .seconds(30))
        guard status == .exited(0) else { throw HarnessError("gpsdctl \(action) \(path): \(status), \(child.errors)") }
    }

    private static func launch(
        port: Int, feedPort: Int, controlSocket: String?, readOnly: Bool, opensOnWatch: Bool
    ) async throws -> GPSDDaemon {
        guard let executable else { throw HarnessError("gpsd is not installed (apt-get install gpsd)") }
        // `-D 3` makes gpsd say "listening on port N" once its socket listens: the test waits for
        // that line (or gpsd's exit: port taken, ...) rather than trying to connect until it can.
        let control = controlSocket.map { ["-F", $0] } ?? []
        let process = try await ChildProcess(
            [executable, "-N"] + (opensOnWatch ? [] : ["-n"]) + ["-D", "3", "-S", String(port)] + (readOnly ? ["-b"] : []) + control
                + ["tcp://127.0.0.1:\(feedPort)"], mergeErrors: true)
        let daemon = GPSDDaemon(
            port: port, feedPort: feedPort, controlSocket: controlSocket, readOnly: readOnly, opensOnWatch: opensOnWatch, process: process)
        do {
            try await process.wait(for: "gpsd to listen on port \(port)") { process.output.contains("listening on port \(port)") }
            // gpsd says so when either of its sockets listens: with 127.0.0.1:PORT held a moment
            // by another test's probe for a free port, only IPv6 does, and IPv4 clients are refused.
            if process.output.contains("can't bind to IPv4 port") {
                throw HarnessError("gpsd could not bind 127.0.0.1:\(port): \(process.output)")
            }
        } catch {
            daemon.stop()
            throw error
        }
        return daemon
    }

    /// gpsd's output so far (for failure messages).
    public var log: String { process.output }

    /// Kills gpsd with `signal` at once, without cleaning up (a crash, as seen by clients), and
    /// waits for it to end.
    public func kill(_ signal: Int32 = SIGKILL) async throws { try await process.kill(signal) }

    /// Stops gpsd (SIGTERM, SIGKILL after 2 s) without waiting. Idempotent; safe in `defer`.
    public func stop() { process.stop() }

    /// Stops gpsd and waits until it has ended (its port is free again).
    public func stopped() async { await process.stopped() }
}
