#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LocationCore
import LocSimTestHelpers

// Just enough of a receiver, a gpsd and two clients for the benchmark; the tests have their own,
// richer harness (Tests/LocSimTestHelpers), whose loopback sockets (`LoopbackSocket`) these use.

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `gpsd -N -n -S PORT tcp://127.0.0.1:FEED`, with a clean signal mask so SIGTERM stops it.
final class Daemon {
    let port: Int
    private var pid: pid_t

    init(feedPort: Int) throws {
        port = try LoopbackSocket.freePort()
        let executable = ["/usr/sbin/gpsd", "/usr/local/sbin/gpsd", "/opt/homebrew/sbin/gpsd"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let executable else { throw BenchmarkError("gpsd is not installed (apt-get install gpsd)") }
        let arguments = [executable, "-N", "-n", "-S", String(port), "tcp://127.0.0.1:\(feedPort)"]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Close everything of ours from fd 3 up in the child (glibc 2.34+, looked up by name).
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = arguments.map { strdup($0) } + [nil]
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        argv.forEach { free($0) }
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
        guard status == 0 else { throw BenchmarkError("cannot start gpsd") }
        self.pid = pid
        for _ in 0..<500 {
            if let fd = LoopbackSocket.connectTo(port: port) {
                close(fd)
                return
            }
            usleep(10_000)
        }
        stop()
        throw BenchmarkError("gpsd did not come up")
    }

    func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        pid = 0
    }
}

/// The receiver: gpsd connects here and reads NMEA.
final class Feed {
    let port: Int
    private let listener: Int32
    private var client: Int32 = -1

    init() throws {
        (listener, port) = try LoopbackSocket.makeListener()
    }

    func accept() throws {
        var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 5000) > 0 else { throw BenchmarkError("gpsd never connected to the feed") }
        client = Glibc.accept(listener, nil, nil)
        LoopbackSocket.noDelay(client)
    }

    /// Writes the lines and returns the instant the last byte was handed to the kernel.
    @discardableResult
    func send(_ lines: [String]) throws -> ContinuousClock.Instant {
        guard LoopbackSocket.writeAll(client, Array(lines.map { $0 + "\r\n" }.joined().utf8)) else { throw BenchmarkError("feed closed") }
        return .now
    }

    func close() {
        if client >= 0 { Glibc.close(client) }
        Glibc.close(listener)
    }
}

/// The minimal raw-socket gpsd JSON client the provider is compared with: `?WATCH=` and a
/// newline splitter, recording when the last TPV for each time arrived.
final class RawClient: Sendable {
    private let fd: Int32
    private let arrivals = Locked<[String: ContinuousClock.Instant]>([:])
    private let watching = Locked(false)

    init(port: Int) throws {
        guard let fd = LoopbackSocket.connectTo(port: port) else { throw BenchmarkError("raw client cannot connect") }
        self.fd = fd
        guard LoopbackSocket.writeAll(fd, Array("?WATCH={\"enable\":true,\"json\":true}\n".utf8)) else { throw BenchmarkError("WATCH failed") }
        Thread { [self] in loop() }.start()
    }

    var isWatching: Bool { watching.withLock { $0 } }

    /// When the last TPV with this `"time"` text arrived.
    func arrival(_ time: String) -> ContinuousClock.Instant? { arrivals.withLock { $0[time] } }

    func stop() { shutdown(fd, Int32(SHUT_RDWR)) }

    private func loop() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var pending: [UInt8] = []
        let key = Array(#""time":""#.utf8)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            let now = ContinuousClock.now
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: 10) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                if line.starts(with: Array(#"{"class":"WATCH""#.utf8)) { watching.withLock { $0 = true } }
                guard line.starts(with: Array(#"{"class":"TPV""#.utf8)),
                    let start = line.firstRange(of: key)?.upperBound,
                    let end = line[start...].firstIndex(of: UInt8(ascii: "\""))
                else { continue }
                let time = String(decoding: line[start..<end], as: UTF8.self)
                arrivals.withLock { $0[time] = now }
            }
        }
        close(fd)
    }
}

/// A byte-for-byte TCP relay in front of gpsd that notes when its client hangs up: the close
/// time as seen from the wire.
final class ClosingProxy: Sendable {
    let port: Int
    private let listener: Int32
    private let target: Int
    private let closedAt = Locked<ContinuousClock.Instant?>(nil)

    init(target: Int) throws {
        (listener, port) = try LoopbackSocket.makeListener()
        self.target = target
        Thread { [self] in acceptLoop() }.start()
    }

    /// Clears the last close instant before a new measurement.
    func reset() { closedAt.withLock { $0 = nil } }

    /// Waits (spinning briefly) for the client to hang up; `nil` after 5 s.
    func waitForClose() -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if let instant = closedAt.withLock({ $0 }) { return instant }
            usleep(50)
        }
        return nil
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            guard let upstream = LoopbackSocket.connectTo(port: target) else {
                close(client)
                continue
            }
            LoopbackSocket.noDelay(client)
            Thread { [self] in relay(client: client, upstream: upstream) }.start()
        }
    }

    private func relay(client: Int32, upstream: Int32) {
        var entries = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 65536)
        loop: while poll(&entries, 2, -1) > 0 {
            for (index, entry) in entries.enumerated() where entry.revents != 0 {
                let from = entry.fd
                let to = index == 0 ? upstream : client
                let count = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
                if count <= 0 {
                    if index == 0 { closedAt.withLock { $0 = .now } }
                    break loop
                }
                _ = buffer.withUnsafeBytes { send(to, $0.baseAddress, count, Int32(MSG_NOSIGNAL)) }
            }
        }
        close(client)
        close(upstream)
    }
}
