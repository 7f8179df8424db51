#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LocationCore

/// The receiver side of a test: a TCP server on 127.0.0.1 that gpsd reads NMEA from
/// (`tcp://127.0.0.1:PORT`), writing sentences when the test says so.
public final class NMEAFeed: Sendable {
    public let port: Int
    private struct State {
        var listener: Int32?
        var client: Int32?
    }
    private let state: Locked<State>

    public init() throws {
        let (listener, port) = try LoopbackSocket.makeListener()
        self.port = port
        self.state = Locked(State(listener: listener))
    }

    deinit { close() }

    /// Waits for gpsd to connect, replacing any earlier connection.
    public func acceptClient(timeout: Duration = .seconds(5)) async throws {
        guard let listener = state.withLock({ $0.listener }) else { throw HarnessError("feed closed") }
        let client = try await onThread("locsim.test.feed.accept") { () throws -> Int32 in
            guard LoopbackSocket.waitReadable(listener, timeout: timeout) else {
                throw HarnessError("gpsd did not connect to the feed within \(timeout)")
            }
            let fd = LoopbackSocket.accept(listener)
            guard fd >= 0 else { throw HarnessError("accept: \(String(cString: strerror(errno)))") }
            // Each sentence leaves when written, as from a serial port: without this, Nagle's
            // algorithm holds small writes back and gpsd receives (and reports) in bursts.
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            return fd
        }
        let previous = state.withLock { state -> Int32? in
            defer { state.client = client }
            return state.client
        }
        if let previous { Glibc.close(previous) }
    }

    /// Writes `lines` (each terminated with CR LF), pausing `pace` after each (as a receiver
    /// sends an epoch at a time). Returns the instant each line was written.
    @discardableResult
    public func send(_ lines: [String], pace: Duration = .zero) async throws -> [ContinuousClock.Instant] {
        if pace == .zero {
            return try await onThread("locsim.test.feed.send") {
                try lines.map { line in
                    try self.write(line)
                    return ContinuousClock.now
                }
            }
        }
        var instants: [ContinuousClock.Instant] = []
        instants.reserveCapacity(lines.count)
        for line in lines {
            // A short write to a loopback socket gpsd reads: on its own thread all the same.
            try await onThread("locsim.test.feed.send") { try self.write(line) }
            instants.append(ContinuousClock.now)
            if pace > .zero { try await Task.sleep(for: pace) }
        }
        return instants
    }

    /// Writes one line (terminated with CR LF) at once, blocking: for code already running on a
    /// dedicated thread, such as ``LockStepFeed``.
    public func write(_ line: String) throws {
        let bytes = Array((line + "\r\n").utf8)
        // Written under the lock that the connection's replacement and close take, so a write
        // never reaches a descriptor number closed meanwhile (and perhaps another socket's now).
        try state.withLock { state throws(HarnessError) in
            guard let client = state.client else { throw HarnessError("no gpsd connected to the feed") }
            guard LoopbackSocket.writeAll(client, bytes) else { throw HarnessError("gpsd closed the feed connection") }
        }
    }

    /// Closes the connection to gpsd, as an unplugged receiver would.
    public func disconnectClient() {
        let client = state.withLock { state -> Int32? in
            defer { state.client = nil }
            return state.client
        }
        if let client { Self.hangUp(client) }
    }

    /// Closes everything: gpsd can no longer reconnect.
    public func close() {
        let (listener, client) = state.withLock { state -> (Int32?, Int32?) in
            defer { state = State() }
            return (state.listener, state.client)
        }
        if let client { Self.hangUp(client) }
        if let listener { Glibc.close(listener) }
    }

    /// Ends the connection as a pulled cable does, with a reset (`SO_LINGER` 0, then `close`).
    ///
    /// gpsd 3.22 reports a TCP feed's device removed only on a read error: on the plain end of
    /// the stream (a `close` that sends FIN) it logs nothing and keeps the device (shown with
    /// `shutdown` before `close`: all three removal tests waited 30 s, every time). A bare `close`
    /// used to reset the connection only because gpsd's probe bytes were still unread in this
    /// socket; under load they had sometimes not arrived yet, and no removal came (the
    /// occasional failure of these tests beside CPU hogs, gpsd's log showing no end of the feed).
    /// The reset reaches gpsd only if gpsd reads before it writes: a gpsd that may still send a
    /// driver probe must run read-only (``GPSDDaemon/start(feedPort:port:controlSocket:readOnly:)``).
    private static func hangUp(_ fd: Int32) {
        var reset = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
        Glibc.close(fd)
    }
}
