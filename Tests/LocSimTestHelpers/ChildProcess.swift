#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif
import Foundation
import LocationCore
import Subprocess
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// A program a test starts (gpsd, PostgreSQL's tools, a gpsd client, the `locsim` command),
/// on swift-subprocess: its exit is awaited, never waited for on a thread of Swift's cooperative
/// pool, and what it writes is read as it arrives, so a test waits for an event (a line, an exit)
/// rather than polling.
///
/// A test that starts one stops it with `defer { child.stop() }`: SIGTERM at once, SIGKILL after
/// the grace period if it is still running, without holding the test's thread. A test that needs
/// the exit awaits it (``waitForExit(timeout:)``, ``stopped(grace:)``). Children start with no
/// descriptor of the test process but their three standard ones and default signal actions
/// (swift-subprocess's spawn).
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

    /// What ``run(_:environment:removing:directory:timeout:)`` returns.
    public struct Outcome: Sendable {
        public var termination: Termination
        public var output: String
        public var errors: String
        /// The exit status, or 128 + the signal's number for a child killed by a signal (as a
        /// shell reports it).
        public var status: Int32 {
            switch termination {
            case .exited(let status): status
            case .signalled(let signal): 128 + signal
            }
        }
    }

    /// The command line, program first.
    public let arguments: [String]
    public let pid: Int32
    private let state: ChildState

    /// Starts `arguments[0]` (a path) with `arguments`: the test's environment with `environment`
    /// added and `removing` taken out, in `directory` (the test's own by default).
    ///
    /// - Parameters:
    ///   - mergeErrors: Standard error goes where standard output goes (``output``).
    ///   - holdingInput: Standard input is a pipe the test process holds open until the child
    ///     has ended, so a stand-in that serves until its input ends never outlives the test
    ///     process; otherwise it is `/dev/null`.
    /// - Throws: `HarnessError` when the program cannot be started.
    public init(
        _ arguments: [String], environment extra: [String: String] = [:], removing: [String] = [],
        directory: String? = nil, mergeErrors: Bool = false, holdingInput: Bool = false
    ) async throws {
        guard let program = arguments.first else { throw HarnessError("ChildProcess: no program given") }
        var changes: [Environment.Key: String?] = [:]
        for (key, value) in extra { changes[try Self.key(key)] = value }
        for key in removing { changes.updateValue(nil, forKey: try Self.key(key)) }
        let configuration = Configuration(
            executable: .path(FilePath(program)), arguments: Arguments(Array(arguments.dropFirst())),
            environment: .inherit.updating(changes), workingDirectory: directory.map { FilePath($0) })
        let state = ChildState()
        let input = try holdingInput ? FileDescriptor.pipe() : nil
        let heldInput = input.map { (child: $0.readEnd, held: $0.writeEnd) }
        state.hold(heldInput?.held)
        self.arguments = arguments
        self.state = state
        pid = try await withCheckedThrowingContinuation { (started: CheckedContinuation<pid_t, any Error>) in
            let once = Locked<CheckedContinuation<pid_t, any Error>?>(started)
            @Sendable func report(_ result: Result<pid_t, any Error>) {
                once.withLock { continuation in
                    continuation?.resume(with: result)
                    continuation = nil
                }
            }
            Task {
                let termination: Termination
                do {
                    switch (heldInput, mergeErrors) {
                    case (let input?, true):
                        termination = try await Self.run(
                            configuration, state: state, input: .fileDescriptor(input.child, closeAfterSpawningProcess: true),
                            error: .combinedWithOutput, report: report)
                    case (let input?, false):
                        termination = try await Self.run(
                            configuration, state: state, input: .fileDescriptor(input.child, closeAfterSpawningProcess: true),
                            error: .sequence, report: report)
                    case (nil, true):
                        termination = try await Self.run(configuration, state: state, input: .none, error: .combinedWithOutput, report: report)
                    case (nil, false):
                        termination = try await Self.run(configuration, state: state, input: .none, error: .sequence, report: report)
                    }
                } catch {
                    report(.failure(HarnessError("cannot start \(program): \(error)")))
                    termination = .exited(127)
                }
                state.finish(termination)
            }
        }
    }

    /// Runs `arguments` to its end and returns how it ended and everything it wrote.
    ///
    /// - Throws: `HarnessError` when it cannot be started or is still running after `timeout`
    ///   (it is then stopped).
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], removing: [String] = [],
        directory: String? = nil, timeout: Duration = .seconds(120)
    ) async throws -> Outcome {
        let child = try await ChildProcess(arguments, environment: environment, removing: removing, directory: directory)
        defer { child.stop() }
        let termination = try await child.waitForExit(timeout: timeout)
        return Outcome(termination: termination, output: child.output, errors: child.errors)
    }

    deinit { stop() }

    /// Standard output so far (and standard error, when merged).
    public var output: String { state.text(\.output) }

    /// Standard error so far (empty when merged into ``output``).
    public var errors: String { state.text(\.errors) }

    /// How it ended, once it has (and its output has been read to the end); `nil` while it runs.
    public var termination: Termination? { state.termination }

    /// The program's file name, for messages.
    public var name: String { (arguments[0] as NSString).lastPathComponent }

    /// Sends `signal` (nothing once it has ended).
    public func send(_ signal: Int32) { state.send(signal, to: pid) }

    /// Waits until `condition` holds, checking it again each time the child writes something or
    /// ends; the check never holds the child's state locked.
    ///
    /// - Throws: `HarnessError` after `timeout`, or when the child has ended and `condition` still
    ///   does not hold; both name `what` and say what the child wrote.
    public func wait(
        for what: String, timeout: Duration = .seconds(30), _ condition: @escaping @Sendable () -> Bool
    ) async throws {
        let state = self.state
        let name = self.name
        try await state.changes.wait(
            for: "\(name): \(what)", timeout: timeout,
            account: { "\(state.termination.map { "ended (\($0)); " } ?? "")\(state.account)" }, condition)
    }

    /// Waits for it to end.
    ///
    /// - Throws: `HarnessError` after `timeout`, with what it wrote to standard error.
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(30)) async throws -> Termination {
        let state = self.state
        try await wait(for: "its exit", timeout: timeout) { state.termination != nil }
        return state.termination!
    }

    /// Kills it with `signal` at once (a crash, as its peers see it) and waits for it to end.
    @discardableResult
    public func kill(_ signal: Int32 = SIGKILL) async throws -> Termination {
        send(signal)
        return try await waitForExit()
    }

    /// Stops it: SIGTERM now, SIGKILL if it is still running after `grace`. Returns at once (the
    /// rest happens in a task of its own), so it is safe in `defer`; idempotent.
    public func stop(grace: Duration = .seconds(2)) {
        guard state.beginStop(pid: pid) else { return }
        Task { [state, pid] in await state.finishStop(pid: pid, grace: grace) }
    }

    /// Stops it as ``stop(grace:)`` does and waits until it has ended.
    @discardableResult
    public func stopped(grace: Duration = .seconds(2)) async -> Termination {
        if state.beginStop(pid: pid) { await state.finishStop(pid: pid, grace: grace) }
        return await state.ended()
    }

    // MARK: Running

    private static func key(_ name: String) throws -> Environment.Key {
        guard let key = Environment.Key(rawValue: name) else { throw HarnessError("bad environment variable name '\(name)'") }
        return key
    }

    /// Runs the child, reporting its pid as soon as it is spawned and reading what it writes until
    /// both streams end; returns once it has exited.
    private static func run<Input: InputProtocol, Error: ErrorOutputProtocol>(
        _ configuration: Configuration, state: ChildState, input: Input, error: Error,
        report: @escaping @Sendable (Result<pid_t, any Swift.Error>) -> Void
    ) async throws -> Termination {
        let result = try await Subprocess.run(configuration, input: input, output: .sequence, error: error) { execution in
            report(.success(execution.processIdentifier.value))
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await state.read(execution.standardOutput, errors: false) }
                if let errors = Self.errorStream(of: execution) {
                    group.addTask { await state.read(errors, errors: true) }
                }
            }
        }
        switch result.terminationStatus {
        case .exited(let status): return .exited(status)
        case .signaled(let signal): return .signalled(signal)
        }
    }

    private static func errorStream<Input, Error>(
        of execution: Execution<Input, SequenceOutput, Error>
    ) -> SubprocessOutputSequence? {
        (execution as? Execution<Input, SequenceOutput, SequenceOutput>)?.standardError
    }
}

/// What a ``ChildProcess`` has written and how it ended, shared by the task that runs it, the
/// tasks that wait on it and the one that stops it.
private final class ChildState: Sendable {
    struct Inner {
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var termination: ChildProcess.Termination?
        var stopping = false
        /// The test's end of the child's standard input, when held open (closed once it ends).
        var heldInput: FileDescriptor?
    }

    private let inner = Locked(Inner())
    /// Signalled when the child writes; ended when it has ended.
    let changes = Changes()

    var termination: ChildProcess.Termination? { inner.withLock { $0.termination } }

    func text(_ stream: KeyPath<Inner, [UInt8]>) -> String {
        let bytes = inner.withLock { $0[keyPath: stream] }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The end of what it wrote, for failure messages.
    var account: String {
        let (output, errors) = inner.withLock { ($0.output.suffix(4_000), $0.errors.suffix(4_000)) }
        return "output: \(String(decoding: output, as: UTF8.self))\nstderr: \(String(decoding: errors, as: UTF8.self))"
    }

    func read(_ sequence: SubprocessOutputSequence, errors: Bool) async {
        do {
            for try await buffer in sequence {
                inner.withLock { inner in
                    buffer.withUnsafeBytes { bytes in
                        if errors { inner.errors.append(contentsOf: bytes) } else { inner.output.append(contentsOf: bytes) }
                    }
                }
                changes.signal()
            }
        } catch {
            let note = Array("\n[harness: reading the child's output failed: \(error)]\n".utf8)
            inner.withLock { if errors { $0.errors.append(contentsOf: note) } else { $0.output.append(contentsOf: note) } }
        }
    }

    func hold(_ input: FileDescriptor?) { inner.withLock { $0.heldInput = input } }

    func finish(_ termination: ChildProcess.Termination) {
        let input = inner.withLock { inner in
            inner.termination = termination
            defer { inner.heldInput = nil }
            return inner.heldInput
        }
        try? input?.close()
        changes.end()
    }

    /// How it ended, once it has (a wait cancelled before then says it was killed by signal 0).
    func ended() async -> ChildProcess.Termination {
        for await _ in changes.stream() where termination != nil { break }
        return termination ?? .signalled(0)
    }

    /// Sends `signal` unless the child has been reaped (its pid could then be another's).
    func send(_ signal: Int32, to pid: pid_t) {
        inner.withLock { inner in
            if inner.termination == nil { _ = deliver(signal, to: pid) }
        }
    }

    /// Marks the child as being stopped and sends SIGTERM; false when it has ended or is already
    /// being stopped.
    func beginStop(pid: pid_t) -> Bool {
        inner.withLock { inner in
            guard inner.termination == nil, !inner.stopping else { return false }
            inner.stopping = true
            _ = deliver(SIGTERM, to: pid)
            return true
        }
    }

    /// After ``beginStop(pid:)``: SIGKILL once `grace` has passed with the child still running.
    func finishStop(pid: pid_t, grace: Duration) async {
        let ended = try? await withDeadline(grace, { "" }) { await self.ended() }
        if ended == nil { send(SIGKILL, to: pid) }
    }
}

private func deliver(_ signal: Int32, to pid: pid_t) -> Int32 { kill(pid, signal) }
