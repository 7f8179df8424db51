#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif
import Foundation
import Synchronization
#if LOCSIM_TSAN
import LocationCore  // TSanMutex.swift: Mutex is TSanVisibleMutex, whose withLock is declared there
#endif

/// A program a test starts (gpsd, the `locsim` command), with standard output and standard
/// error in files of its own, that the test stops with `defer { child.stop() }`, so it is stopped
/// (SIGTERM, then SIGKILL, then `waitpid`) even when the test fails.
///
/// It starts with no signal blocked and default signal actions, whatever the test runner's
/// thread had, and with no descriptor of the test process but its three standard ones: an
/// inherited copy of another test's socket would keep that socket open after the test closed it.
public final class ChildProcess: Sendable {
    /// How a child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// `exit(status)`.
        case exited(Int32)
        /// Killed by a signal.
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let status): "exit status \(status)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    /// The command line, program first.
    public let arguments: [String]
    /// The file standard output goes to.
    public let outputPath: String
    /// The file standard error goes to (the same as ``outputPath`` when merged).
    public let errorPath: String
    public let pid: pid_t

    private let state: Mutex<Termination?>
    private let directory: String

    /// Starts `arguments[0]` (a path) with `arguments`, the test's environment plus `environment`.
    ///
    /// - Parameter mergeErrors: Send standard error to the same file as standard output.
    /// - Throws: `HarnessError` when the program cannot be started.
    public init(_ arguments: [String], environment extra: [String: String] = [:], mergeErrors: Bool = false) throws {
        let directory = NSTemporaryDirectory() + "locsim-child-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let outputPath = directory + "/stdout"
        let errorPath = mergeErrors ? outputPath : directory + "/stderr"
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in extra { environment[key] = value }
        do {
            pid = try Self.spawn(arguments, environment: environment, output: outputPath, error: errorPath)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        self.arguments = arguments
        self.outputPath = outputPath
        self.errorPath = errorPath
        self.directory = directory
        self.state = Mutex(nil)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Standard output so far.
    public var output: String { Self.read(outputPath) }

    /// Standard error so far.
    public var errors: String { Self.read(errorPath) }

    /// How it ended, once it has (reaping it); `nil` while it runs.
    public var termination: Termination? {
        state.withLock { termination in
            if termination == nil { termination = Self.reap(pid, blocking: false) }
            return termination
        }
    }

    /// Sends `signal` (nothing once it has been reaped).
    public func send(_ signal: Int32) {
        state.withLock { termination in
            if termination == nil { _ = deliver(signal, to: pid) }
        }
    }

    /// Waits (polling every 10 ms) until it has ended.
    ///
    /// - Throws: `HarnessError` after `timeout`, with what it wrote to standard error.
    public func waitForExit(timeout: Duration = .seconds(30)) async throws -> Termination {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let termination { return termination }
            guard ContinuousClock.now < deadline else {
                throw HarnessError("\(name) did not exit within \(timeout); stderr: \(errors)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Kills it with `signal` at once and reaps it, without a grace period (a crash).
    public func kill(_ signal: Int32 = SIGKILL) {
        state.withLock { termination in
            guard termination == nil else { return }
            _ = deliver(signal, to: pid)
            termination = Self.reap(pid, blocking: true)
        }
    }

    /// Stops it (SIGTERM, SIGKILL after `grace`) and reaps it. Idempotent; safe in `defer`.
    public func stop(grace: Duration = .seconds(2)) {
        state.withLock { termination in
            guard termination == nil else { return }
            _ = deliver(SIGTERM, to: pid)
            let deadline = ContinuousClock.now + grace
            while ContinuousClock.now < deadline {
                if let ended = Self.reap(pid, blocking: false) {
                    termination = ended
                    return
                }
                usleep(10_000)
            }
            _ = deliver(SIGKILL, to: pid)
            termination = Self.reap(pid, blocking: true)
        }
    }

    /// The program's file name, for messages.
    public var name: String { (arguments[0] as NSString).lastPathComponent }

    private static func read(_ path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func reap(_ pid: pid_t, blocking: Bool) -> Termination? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            if result == pid { break }
            if result == -1, errno == EINTR { continue }
            // 0: still running. -1 (ECHILD): reaped elsewhere; report it as gone.
            return result == 0 ? nil : .signalled(0)
        }
        // The <sys/wait.h> macros do not import: the low 7 bits are the signal, 0 for an exit.
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    private static func spawn(
        _ arguments: [String], environment: [String: String], output: String, error: String
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if error == output {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, error, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        closeInheritedDescriptors(&actions)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        // The child inherits the spawning thread's signal mask; test-runner threads block some
        // signals, and a child with SIGTERM blocked would not stop. Start it with a clean slate.
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
        let status = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard status == 0 else { throw HarnessError("posix_spawn \(arguments[0]): \(String(cString: strerror(status)))") }
        return pid
    }
}

private func deliver(_ signal: Int32, to pid: pid_t) -> Int32 { kill(pid, signal) }

/// Adds "close every descriptor from 3 up" to the spawn actions where the C library has it
/// (glibc 2.34+; Swift's Glibc module does not declare it, so it is looked up by name).
private func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return }
    _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
}
