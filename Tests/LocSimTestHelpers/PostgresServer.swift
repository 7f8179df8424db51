import Foundation
import LocationCore

/// A private PostgreSQL 15 + PostGIS 3 server for one test: a fresh cluster in a temporary
/// directory (a copy of one `initdb` made once a test process, see ``template``), `postgres`
/// started on a free loopback port as a child of the test process, and `stop()` (immediate
/// shutdown, directory removed). As root (the tests' usual user) the server runs as `postgres`
/// through `setpriv`, since PostgreSQL refuses to run as root; `setpriv` changes its user and
/// becomes the server (no process between), so a signal to the child is one to the postmaster.
///
/// A test process that is killed cannot stop its servers, so nothing of theirs outlives it for
/// long: the postmaster is the test process's child, in its session (which `scripts/test.sh`
/// ends with the run; `pg_ctl` would start it in a session of its own), and its directory is a
/// scratch folder named with the test process's id, which the next test process to start a
/// server removes, whereupon a postmaster still running there shuts itself down within a minute
/// (PostgreSQL checks its `postmaster.pid` once a minute).
///
/// The superuser is `postgres` with password ``password`` (SCRAM), database `postgres`.
public final class PostgresServer: Sendable {
    /// Where Debian's packages (postgresql-15, postgresql-15-postgis-3) put the binaries.
    public static let binaries = "/usr/lib/postgresql/15/bin"
    public static let password = "locsim-test-secret"

    /// Why PostgreSQL tests cannot run here, or nil when they can.
    public static var unavailableReason: String? {
        let fileManager = FileManager.default
        guard fileManager.isExecutableFile(atPath: binaries + "/postgres") else {
            return "PostgreSQL 15 is not installed (\(binaries)/postgres missing); run scripts/bootstrap.sh"
        }
        guard fileManager.fileExists(atPath: "/usr/share/postgresql/15/extension/postgis.control") else {
            return "PostGIS 3 for PostgreSQL 15 is not installed; run scripts/bootstrap.sh"
        }
        if getuid() == 0, !fileManager.isExecutableFile(atPath: setpriv) {
            return "running as root without \(setpriv) (util-linux) to start PostgreSQL as postgres"
        }
        return nil
    }

    /// util-linux's program that runs another as a given user, in its own place.
    static let setpriv = "/usr/bin/setpriv"

    public let directory: String
    public let port: Int
    /// The running postmaster (nil while halted or once stopped), and what the ones before it
    /// (before a ``halt()``) wrote.
    private let postmaster = Locked<(running: ChildProcess?, earlierLog: String)>((nil, ""))

    /// `postgres://postgres:<password>@127.0.0.1:<port>/postgres?sslmode=disable`
    public var url: String { "postgres://postgres:\(Self.password)@127.0.0.1:\(port)/postgres?sslmode=disable" }
    /// The same without the password (for tests of PGPASSWORD and .pgpass).
    public var urlWithoutPassword: String { "postgres://postgres@127.0.0.1:\(port)/postgres?sslmode=disable" }

    /// Creates and starts a server.
    public static func start() async throws -> PostgresServer {
        try await PostgresServer(replicaOf: nil)
    }

    /// Creates and starts a streaming replica of `primary`: `pg_basebackup -R` (the copy and
    /// `standby.signal`, `primary_conninfo` with the password) into a directory of its own,
    /// started read-only on another free port. Stop it with ``stop()`` like any server.
    public static func startReplica(of primary: PostgresServer) async throws -> PostgresServer {
        try await PostgresServer(replicaOf: primary.port)
    }

    /// The primary's port when this server is a replica, else nil.
    public let primaryPort: Int?

    private init(replicaOf primaryPort: Int?) async throws {
        let base = try newScratchFolder("locsim-pg", in: Self.folder)
        directory = base
        self.primaryPort = primaryPort
        do {
            let passwordFile = base + "/pw"
            try Self.password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
            if getuid() == 0 { try await Self.run(["/bin/chown", "-R", "postgres:postgres", base], asPostgres: false) }
            if let primaryPort {
                try await Self.run(
                    [
                        Self.binaries + "/pg_basebackup", "-d",
                        "host=127.0.0.1 port=\(primaryPort) user=postgres password=\(Self.password)",
                        "-D", base + "/data", "-R", "-X", "stream", "-c", "fast", "--no-sync",
                    ], asPostgres: true)
            } else {
                try await Self.run(["/bin/cp", "-a", try await Self.template.value, base + "/data"], asPostgres: true)
            }
            var lastError: (any Error)?
            var started: (port: Int, postmaster: ChildProcess)?
            for _ in 0..<5 where started == nil {
                let candidate = try LoopbackSocket.freePort()
                do {
                    started = (candidate, try await Self.startPostmaster(directory: base, port: candidate))
                } catch {
                    lastError = error  // the port was taken meanwhile: try another
                }
            }
            guard let started else { throw lastError ?? HarnessError("postgres did not start") }
            port = started.port
            postmaster.withLock { $0.running = started.postmaster }
        } catch {
            try? FileManager.default.removeItem(atPath: base)
            throw error
        }
    }

    /// Where the clusters go: `/dev/shm` (memory) where it is a folder we may write, else the
    /// system's temporary folder. A cluster is about 1,000 files; on ext4, while the test run
    /// creates and removes files by the thousand, creating them took `cp` 0.4 s of system time a
    /// copy, nearly all of it in the inode allocator (`recently_deleted`, seen with perf), where
    /// the same copy into memory takes 0.08 s.
    static let folder: String = {
        let memory = "/dev/shm/"
        var status = stat()
        if stat(memory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, access(memory, W_OK) == 0 { return memory }
        return NSTemporaryDirectory()
    }()

    /// The template's data directory, made by the first server a test process starts: every
    /// primary then copies it (`cp -a`, about 0.1 s of the system's time) instead of running
    /// `initdb` (about 1.1 s of CPU, its bootstrap backend's), about 15 CPU-seconds of the run.
    /// A copy is a cluster like any `initdb` makes; what a test changes (access rules, `ALTER
    /// SYSTEM`, data) stays in its copy. The template (superuser `postgres`, ``password``, SCRAM,
    /// UTF-8, C locale) lives in the process's scratch folder `locsim-pg-template` in ``folder``,
    /// removed at exit, or by a later test process if this one is killed.
    static let template: Task<String, any Error> = Task {
        let base = processScratchFolder("locsim-pg-template", in: folder)
        let passwordFile = base + "/pw"
        try password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        if getuid() == 0 { try await run(["/bin/chown", "-R", "postgres:postgres", base], asPostgres: false) }
        try await run(
            [
                binaries + "/initdb", "-D", base + "/data", "-U", "postgres", "--auth=scram-sha-256",
                "--pwfile=" + passwordFile, "--no-sync", "--no-instructions", "-E", "UTF8", "--locale=C",
                // WAL in 1 MB segments, not 16: the first segment is written whole, so each copy
                // of the template was 39 MB, 28 MB now (in memory: see `folder`).
                "--wal-segsize=1",
            ], asPostgres: true)
        return base + "/data"
    }

    /// Starts the postmaster of the cluster in `directory` on `port` and waits until it accepts
    /// connections (it says so on standard error, where it logs); throws with what it wrote when
    /// it ends first (a port taken) or takes more than 30 s.
    private static func startPostmaster(directory: String, port: Int) async throws -> ChildProcess {
        let child = try await ChildProcess(
            asPostgres([binaries + "/postgres", "-D", directory + "/data"] + serverOptions(port: port, directory: directory)))
        do {
            // "ready to accept connections", or "read-only connections" for a replica
            try await child.wait(for: "PostgreSQL to accept connections") { child.errors.contains("ready to accept") }
        } catch {
            _ = await child.stopped()
            throw error
        }
        return child
    }

    /// `postgres` options: the port, loopback only, the socket in the server's directory, and
    /// no durability against the machine's crash (`fsync=off`: a test's data need not outlive the
    /// machine). A commit is still written to the WAL before it returns (`synchronous_commit` left
    /// on; without fsync that is a write to the OS, no wait for the disk), so it survives the
    /// server's own crash, which ``halt()`` is: with `synchronous_commit=off`, an import committed
    /// a moment before `halt()` was once gone after ``restart()``. A replica reconnects to its
    /// primary every second rather than every 5 s.
    private static func serverOptions(port: Int, directory: String) -> [String] {
        [
            "-p", "\(port)", "-k", directory, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
            "-c", "full_page_writes=off", "-c", "wal_retrieve_retry_interval=1s",
        ]
    }

    /// The server's log (what its postmasters wrote), for failure messages.
    public var log: String {
        postmaster.withLock { $0.earlierLog + ($0.running?.errors ?? "") }
    }

    /// Sends `signal` to the postmaster now, without waiting (SIGQUIT: an immediate shutdown,
    /// from a callback that cannot await); ``halt()`` then waits for its end.
    public func send(_ signal: Int32) {
        postmaster.withLock { $0.running?.send(signal) }
    }

    /// Stops the server now (immediate shutdown, SIGQUIT, as a crash would leave it) and waits
    /// until it has; the directory stays for ``restart()``.
    public func halt() async throws {
        guard let child = takePostmaster() else { throw HarnessError("halt(): the server on port \(port) is not running") }
        child.send(SIGQUIT)
        defer { postmaster.withLock { $0.earlierLog += child.errors } }
        try await child.waitForExit()
    }

    /// Starts a halted server again on the same port.
    public func restart() async throws {
        let child = try await Self.startPostmaster(directory: directory, port: port)
        postmaster.withLock { state in
            state.earlierLog += state.running?.errors ?? ""
            state.running = child
        }
    }

    /// Stops the server (if running: immediate shutdown, then SIGKILL if it has not ended 10 s
    /// later) and removes its directory.
    public func stop() async {
        if let child = takePostmaster() {
            child.send(SIGQUIT)
            _ = await child.stopped(grace: .seconds(10))
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The running postmaster, which is then no longer this server's.
    private func takePostmaster() -> ChildProcess? {
        postmaster.withLock { state in
            defer { state.running = nil }
            return state.running
        }
    }

    /// Runs SQL through `psql` (stopping at the first error, which it throws with psql's output):
    /// for a test that needs the database in a state the library would not leave it in.
    public func psql(_ sql: String) async throws {
        try await Self.run([Self.binaries + "/psql", url, "-q", "-X", "-v", "ON_ERROR_STOP=1", "-c", sql], asPostgres: false)
    }

    /// Runs SQL through `psql` and returns what it prints, unaligned and without headers (`-At`):
    /// one row a line, columns separated by `|`, without the last line end.
    public func psqlValues(_ sql: String) async throws -> String {
        let outcome = try await ChildProcess.run(
            [Self.binaries + "/psql", url, "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql], timeout: .seconds(60))
        guard outcome.termination == .exited(0) else {
            throw HarnessError("psql -c \(sql) ended with \(outcome.termination): \(outcome.output)\(outcome.errors)")
        }
        var values = outcome.output
        while values.hasSuffix("\n") { values.removeLast() }
        return values
    }

    /// Runs `body` while a psql session of its own (`application_name` `locsim-test-lock`) holds
    /// `LOCK TABLE table IN ACCESS EXCLUSIVE MODE` in an open transaction, as someone's
    /// maintenance would; then ends that session (`pg_terminate_backend`, waited for), so the
    /// lock is gone when this returns, also when `body` throws.
    public func withLock<T>(on table: String, _ body: () async throws -> T) async throws -> T {
        let holder = try await ChildProcess(
            [
                Self.binaries + "/psql", url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", "BEGIN",
                "-c", "LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE", "-c", "SELECT 'locked'", "-c", "SELECT pg_sleep(600)",
            ], environment: ["PGAPPNAME": "locsim-test-lock"])
        defer { holder.stop() }
        try await holder.wait(for: "the lock on \(table)") { holder.output.contains("locked") }
        let result: T
        do {
            result = try await body()
        } catch {
            try await endLockHolder()
            throw error
        }
        try await endLockHolder()
        return result
    }

    private func endLockHolder() async throws {
        _ = try await psqlValues(
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE application_name = 'locsim-test-lock'")
    }

    /// Runs `body` while every process of the server is stopped (SIGSTOP: the postmaster first,
    /// so it forks no new one, then its children), as a hung host or a debugger would leave it:
    /// the kernel still accepts TCP connections and takes what is sent, nothing answers. Every
    /// process is continued (SIGCONT) when `body` returns or throws, so the server can be
    /// stopped as usual.
    public func withFrozen<T>(_ body: () async throws -> T) async throws -> T {
        let postmaster = try Self.postmasterID(directory + "/data/postmaster.pid")
        var stopped: [Int32] = []
        defer { for pid in stopped { kill(pid, SIGCONT) } }
        guard kill(postmaster, SIGSTOP) == 0 else { throw HarnessError("kill -STOP \(postmaster): errno \(errno)") }
        stopped.append(postmaster)
        for child in try Self.children(of: postmaster) where kill(child, SIGSTOP) == 0 {
            stopped.append(child)
        }
        // A test cancelled while it waits on the frozen server (its time limit) is thawed at
        // once: what it awaits can then end, and the defer above runs; otherwise the test, and the
        // server it leaves stopped, would outlive the run.
        let frozen = stopped
        return try await withTaskCancellationHandler {
            try await body()
        } onCancel: {
            for pid in frozen { kill(pid, SIGCONT) }
        }
    }

    /// The first line of `postmaster.pid`.
    private static func postmasterID(_ path: String) throws -> Int32 {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let line = text.split(separator: "\n").first, let pid = Int32(line) else {
            throw HarnessError("\(path) does not start with a process id")
        }
        return pid
    }

    /// The processes whose parent is `parent` (`/proc/<pid>/stat`: the fourth field, after the
    /// parenthesised command name).
    private static func children(of parent: Int32) throws -> [Int32] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap { entry -> Int32? in
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),  // it may have ended
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent ? pid : nil
        }
    }

    /// Turns TLS on (`ssl = on`, reloaded, no restart) with the PEM certificate and key at these
    /// paths, copied into the server's directory for its user; connections without TLS still work.
    public func enableTLS(certificate: String, key: String) async throws {
        let certificateCopy = directory + "/server.crt", keyCopy = directory + "/server.key"
        for (source, copy) in [(certificate, certificateCopy), (key, keyCopy)] {
            try FileManager.default.copyItem(atPath: source, toPath: copy)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: copy)
            if getuid() == 0 { try await Self.run(["/bin/chown", "postgres:postgres", copy], asPostgres: false) }
        }
        try await psql("ALTER SYSTEM SET ssl_cert_file = '\(certificateCopy)'")
        try await psql("ALTER SYSTEM SET ssl_key_file = '\(keyCopy)'")
        try await psql("ALTER SYSTEM SET ssl = on")
        guard try await psqlValues("SELECT pg_reload_conf()") == "t" else { throw HarnessError("pg_reload_conf() failed") }
    }

    /// Puts `rules` (lines of `pg_hba.conf`, e.g. `hostssl all alice 127.0.0.1/32 scram-sha-256`)
    /// before the server's own, which the first match wins, and reloads the configuration.
    public func addAccessRules(_ rules: [String]) async throws {
        let file = try await psqlValues("SHOW hba_file")
        let current = try String(contentsOfFile: file, encoding: .utf8)
        try (rules.joined(separator: "\n") + "\n" + current).write(toFile: file, atomically: false, encoding: .utf8)
        guard try await psqlValues("SELECT pg_reload_conf()") == "t" else { throw HarnessError("pg_reload_conf() failed") }
    }

    /// Runs `body` with a started server and stops it afterwards, even when `body` throws.
    public static func with<T>(_ body: (PostgresServer) async throws -> T) async throws -> T {
        let server = try await start()
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// `arguments` run as the user `postgres` when the tests run as root (`setpriv`, with the
    /// user's own environment: HOME, USER, PATH), else as they are.
    private static func asPostgres(_ arguments: [String]) -> [String] {
        guard getuid() == 0 else { return arguments }
        return [setpriv, "--reuid=postgres", "--regid=postgres", "--init-groups", "--reset-env", "--"] + arguments
    }

    /// Runs `arguments` (as `postgres` when root) and throws with its output when it fails.
    static func run(_ arguments: [String], asPostgres: Bool) async throws {
        let command = asPostgres ? Self.asPostgres(arguments) : arguments
        let outcome = try await ChildProcess.run(command, timeout: .seconds(60))
        guard outcome.termination == .exited(0) else {
            throw HarnessError("\(arguments.joined(separator: " ")) ended with \(outcome.termination): \(outcome.output)\(outcome.errors)")
        }
    }
}
