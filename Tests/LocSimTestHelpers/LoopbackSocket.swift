#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LocationCore

/// Thin blocking wrappers over loopback TCP sockets for the test harness.
public enum LoopbackSocket {
    /// A port on 127.0.0.1 that nothing listens on right now (bound to port 0, then released).
    public static func freePort() throws -> Int {
        let listener = try makeListener()
        defer { close(listener.descriptor) }
        return listener.port
    }

    /// A TCP socket no child process inherits (close-on-exec from its creation). A test's
    /// socket a child kept open would never close for its peer: a gpsd reading a test's feed
    /// once saw no end of it for 30 s after the test closed it (a program spawned meanwhile by
    /// Foundation's `Process`, which closes only the descriptors it listed before the spawn,
    /// would keep it).
    static func streamSocket() -> Int32 {
        #if canImport(Glibc)
        socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        #else
        closingOnExec(socket(AF_INET, SOCK_STREAM, 0))
        #endif
    }

    /// `accept(listener)`, the connection made close-on-exec at once (Swift's Glibc module has no
    /// `accept4`); -1 on failure (`errno` says why).
    public static func accept(_ listener: Int32) -> Int32 {
        #if canImport(Glibc)
        closingOnExec(Glibc.accept(listener, nil, nil))
        #else
        closingOnExec(Darwin.accept(listener, nil, nil))
        #endif
    }

    private static func closingOnExec(_ fd: Int32) -> Int32 {
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return fd
    }

    /// A listening socket on 127.0.0.1 with a kernel-chosen port (`SO_REUSEADDR`, so a port
    /// just released can be bound again).
    public static func makeListener() throws -> (descriptor: Int32, port: Int) {
        try bindLoopback(listening: true)
    }

    /// Runs `body` with a port on 127.0.0.1 where every connection is refused until it returns:
    /// a socket bound there that does not listen. Unlike ``freePort()``'s port, which was free
    /// only when asked, no other socket can take this one meanwhile (bound without
    /// `SO_REUSEADDR`), so a test in parallel cannot be listening there when this one connects.
    public static func withRefusingPort<T>(_ body: (Int) async throws -> T) async throws -> T {
        let (fd, port) = try bindLoopback(listening: false)
        defer { close(fd) }
        return try await body(port)
    }

    /// A socket bound to a kernel-chosen port on 127.0.0.1: listening (`SO_REUSEADDR`, so a port
    /// just released can be bound again), or only holding the port (refusing connections).
    private static func bindLoopback(listening: Bool) throws -> (descriptor: Int32, port: Int) {
        let fd = streamSocket()
        guard fd >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        if listening {
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, !listening || listen(fd, 8) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw HarnessError("cannot \(listening ? "listen" : "bind") on 127.0.0.1: \(reason)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Connects to 127.0.0.1:`port`; `nil` when refused.
    ///
    /// - Parameter receiveBuffer: The socket's receive buffer (`SO_RCVBUF`, set before connecting
    ///   so the window the peer sees is small from the start), or nil for the system's default.
    public static func connectTo(port: Int, receiveBuffer: Int32? = nil) -> Int32? {
        let fd = streamSocket()
        guard fd >= 0 else { return nil }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = loopback(port: port)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            close(fd)
            return nil
        }
        noDelay(fd)
        return fd
    }

    /// Sends small writes at once (`TCP_NODELAY`): a connected or accepted socket.
    public static func noDelay(_ fd: Int32) {
        var yes: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Waits up to `timeout` for `fd` to become readable (or closed by the peer). A signal that
    /// interrupts the wait restarts it, so `false` means the time ran out (or poll failed).
    public static func waitReadable(_ fd: Int32, timeout: Duration) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: timeout.wholeMicroseconds / 1_000)
        while true {
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            return ready > 0
        }
    }

    /// Writes all of `bytes`; `false` when the peer has gone.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, noSignal) }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    #if os(Linux)
    private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
    private static let noSignal: Int32 = 0
    #endif

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// A connected socket that one thread reads to its end and then closes, while other threads may
/// shut it down (to stop the reader) or write to it.
///
/// Those calls take the lock the close takes and do nothing once it is closed: a descriptor is a
/// number the process hands to the next socket it opens, so a `shutdown` after the reader's
/// `close` would end some other connection. (It did: a test's stream stopped after the reader had
/// closed it shut down a parallel test's HTTP request, which then read "closed without an
/// answer".)
public final class ReaderSocket: Sendable {
    /// For the reading thread's reads: it alone closes the socket, after its last read.
    public let descriptor: Int32
    private let isOpen = Locked(true)

    public init(_ descriptor: Int32) { self.descriptor = descriptor }

    /// Sends FIN both ways, so a blocked read returns; nothing once closed.
    public func shutDown() {
        isOpen.withLock { isOpen in
            if isOpen { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Writes every byte (``LoopbackSocket/writeAll(_:_:)``); false once closed.
    public func write(_ bytes: [UInt8]) -> Bool {
        isOpen.withLock { isOpen in isOpen && LoopbackSocket.writeAll(descriptor, bytes) }
    }

    /// Closes the socket: for the reading thread, when its reads have ended. Idempotent.
    public func close() {
        isOpen.withLock { isOpen in
            if isOpen {
                #if canImport(Glibc)
                _ = Glibc.close(descriptor)
                #else
                _ = Darwin.close(descriptor)
                #endif
                isOpen = false
            }
        }
    }
}
