#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// A real gpsd, started by a test on a private loopback port and fed over TCP:
/// `gpsd -N -n -S PORT tcp://127.0.0.1:FEED`.
///
/// Tests stop it with `defer { daemon.stop() }`, so it is stopped (SIGTERM, then SIGKILL, then
/// `waitpid`) even when the test fails. Ports are picked free per daemon, so tests run in parallel.
final class GPSDDaemon: Sendable {
    /// gpsd's executable, when installed.
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/opt/homebrew/sbin"]
        return candidates.map { $0 + "/gpsd" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static var isInstalled: Bool { executable != nil }

    /// The port gpsd serves clients on.
    let port: Int
    /// The port of the feed gpsd reads NMEA from.
    let feedPort: Int
    /// The device path gpsd reports for the feed.
    var devicePath: String { "tcp://127.0.0.1:\(feedPort)" }

    private let pid: Mutex<pid_t?>
    private let logPath: String

    private init(port: Int, feedPort: Int, pid: pid_t, logPath: String) {
        self.port = port
        self.feedPort = feedPort
        self.pid = Mutex(pid)
        self.logPath = logPath
    }

    /// Starts gpsd reading `tcp://127.0.0.1:feedPort`, on `port` or a free port, and returns once
    /// it accepts clients.
    static func start(feedPort: Int, port: Int? = nil) async throws -> GPSDDaemon {
        var lastError: any Error = HarnessError("gpsd did not start")
        for _ in 0..<5 {
            let chosen = try port ?? LoopbackSocket.freePort()
            do {
                return try await launch(port: chosen, feedPort: feedPort)
            } catch {
                lastError = error
                if port != nil { try await Task.sleep(for: .milliseconds(100)) }
            }
        }
        throw lastError
    }

    /// Starts a new gpsd on the same ports (after ``stop()`` or a kill).
    func restarted() async throws -> GPSDDaemon {
        try await Self.start(feedPort: feedPort, port: port)
    }

    private static func launch(port: Int, feedPort: Int) async throws -> GPSDDaemon {
        guard let executable else { throw HarnessError("gpsd is not installed (apt-get install gpsd)") }
        let logPath = NSTemporaryDirectory() + "locsim-gpsd-\(getpid())-\(port)-\(UInt32.random(in: 0...UInt32.max)).log"
        let arguments = [executable, "-N", "-n", "-S", String(port), "tcp://127.0.0.1:\(feedPort)"]
        let pid = try spawn(arguments, output: logPath)
        let daemon = GPSDDaemon(port: port, feedPort: feedPort, pid: pid, logPath: logPath)
        // Ready when it accepts a connection; fail at once if it exited (port taken, ...).
        for _ in 0..<500 {
            if let fd = LoopbackSocket.connectTo(port: port) {
                close(fd)
                return daemon
            }
            if daemon.hasExited() {
                let log = daemon.log
                daemon.stop()
                throw HarnessError("gpsd exited at start on port \(port): \(log)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        daemon.stop()
        throw HarnessError("gpsd did not accept connections on port \(port) within 5 s")
    }

    /// gpsd's stderr so far (for failure messages).
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Kills gpsd with `signal` at once, without cleaning up (a crash, as seen by clients).
    func kill(_ signal: Int32 = SIGKILL) {
        pid.withLock { pid in
            guard let running = pid else { return }
            _ = sendSignal(running, signal)
            var status: Int32 = 0
            _ = waitpid(running, &status, 0)
            pid = nil
        }
    }

    /// Stops gpsd (SIGTERM, SIGKILL after 2 s) and reaps it. Idempotent.
    func stop() {
        pid.withLock { pid in
            guard let running = pid else { return }
            _ = sendSignal(running, SIGTERM)
            var status: Int32 = 0
            var reaped = false
            for _ in 0..<200 {
                if waitpid(running, &status, WNOHANG) == running {
                    reaped = true
                    break
                }
                usleep(10_000)
            }
            if !reaped {
                _ = sendSignal(running, SIGKILL)
                _ = waitpid(running, &status, 0)
            }
            pid = nil
        }
        unlink(logPath)
    }

    private func hasExited() -> Bool {
        pid.withLock { pid in
            guard let running = pid else { return true }
            var status: Int32 = 0
            if waitpid(running, &status, WNOHANG) == running {
                pid = nil
                return true
            }
            return false
        }
    }

    private static func spawn(_ arguments: [String], output: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of ours leaks into gpsd: an inherited copy of another test's feed socket
        // would keep it open after that test closed it.
        closeInheritedDescriptors(&actions)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The child inherits the spawning thread's signal mask; test-runner threads block some
        // signals, and a gpsd with SIGTERM blocked would not stop. Start it with a clean slate.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let status = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
        guard status == 0 else { throw HarnessError("posix_spawn \(arguments[0]): \(String(cString: strerror(status)))") }
        return pid
    }
}

private func sendSignal(_ pid: pid_t, _ signal: Int32) -> Int32 { kill(pid, signal) }

/// Adds "close every descriptor from 3 up" to the spawn actions where the C library has it
/// (glibc 2.34+; Swift's Glibc module does not declare it, so it is looked up by name).
func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return }
    _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
}
