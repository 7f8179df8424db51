import ArgumentParser
import LocationCore

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The TCP side of `locsim nmea serve`: accepts clients on a thread of its own and writes the
/// same text to all of them. A client that cannot take more (or has gone) is dropped, as a
/// serial line would overrun, rather than slowing everyone down.
final class NMEAServer: Sendable {
    let port: Int
    private let listener: Int32
    private struct State {
        var clients: [Int32] = []
        var served = 0
        var broadcasts = 0
        var waiters: [CheckedContinuation<Void, any Error>] = []
        var closed = false
    }
    private let state = Locked(State())

    /// Listens on `host:port` (an IPv4 address or a name with one, such as `localhost`; port 0
    /// picks a free one).
    ///
    /// - Throws: ``CommandFailure`` (exit status 1) naming the address when the name has no IPv4
    ///   address or the address cannot be bound (a port in use, an address not on this machine).
    init(host: String, port: Int) throws(CommandFailure) {
        let listening: (descriptor: Int32, port: Int)
        do {
            listening = try TCPListener.listen(host: host, port: port)
        } catch {
            switch error.kind {
            case .address:
                throw CommandFailure(
                    "--host \(error.description)", hint: "give an IPv4 address such as 127.0.0.1, or a name that has one")
            case .listen:
                throw CommandFailure(
                    error.description,
                    hint: "choose another --port (0 picks a free one), or a --host address of this machine such as 127.0.0.1")
            }
        }
        self.listener = listening.descriptor
        self.port = listening.port
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "locsim.nmea.accept"
        thread.start()
    }

    /// How many clients connected so far.
    var clientsServed: Int { state.withLock { $0.served } }

    /// How many texts were broadcast so far.
    var broadcasts: Int { state.withLock { $0.broadcasts } }

    /// Returns once a client has connected (at once if one has).
    func waitForFirstClient() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Cancellation is checked under the lock, so a cancel that came before the
                // waiter was added is not missed.
                let outcome = state.withLock { state -> Bool? in
                    if state.served > 0 { return true }
                    if Task.isCancelled { return false }
                    state.waiters.append(continuation)
                    return nil
                }
                switch outcome {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let waiters = state.withLock { state in
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(throwing: CancellationError()) }
        }
    }

    /// Writes `text` to every client, dropping those that cannot take it.
    func broadcast(_ text: String) {
        let bytes = Array(text.utf8)
        state.withLock { state in
            state.broadcasts += 1
            state.clients.removeAll { fd in
                let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Self.sendFlags) }
                guard sent == bytes.count else {
                    Self.closeDescriptor(fd)
                    return true
                }
                return false
            }
        }
    }

    /// Closes the listener and every client.
    func close() {
        let clients = state.withLock { state -> [Int32] in
            state.closed = true
            defer { state.clients = [] }
            return state.clients
        }
        for fd in clients { Self.closeDescriptor(fd) }
        shutdown(listener, Int32(SHUT_RDWR))
        Self.closeDescriptor(listener)
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else {
                if errno == EINTR { continue }
                return
            }
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
            // Darwin's send has neither MSG_NOSIGNAL nor MSG_DONTWAIT: make the socket itself
            // non-blocking and free of SIGPIPE, so a gone or slow client is dropped, not fatal.
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            #endif
            let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>]? in
                guard !state.closed else { return nil }
                state.clients.append(fd)
                state.served += 1
                defer { state.waiters = [] }
                return state.waiters
            }
            guard let waiters else {
                Self.closeDescriptor(fd)
                return
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    #if canImport(Darwin)
    private static let sendFlags: Int32 = 0  // see acceptLoop: the socket is non-blocking, SO_NOSIGPIPE
    #else
    private static let sendFlags = Int32(MSG_NOSIGNAL | MSG_DONTWAIT)
    #endif

    private static func closeDescriptor(_ fd: Int32) { TCPListener.closeDescriptor(fd) }
}
