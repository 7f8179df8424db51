#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocSimTestHelpers
import Testing

/// The harness's socket that a reader thread closes while others may stop it: after the close,
/// nothing it does reaches the number, which the process may have given to another socket.
@Suite(.timeLimit(.minutes(1))) struct ReaderSocketTests {
    @Test("Shut down or written after its close, it leaves the socket now at that number alone")
    func closedIsInert() throws {
        var first: [Int32] = [0, 0]
        var second: [Int32] = [0, 0]
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        try #require(socketpair(AF_UNIX, stream, 0, &first) == 0)
        try #require(socketpair(AF_UNIX, stream, 0, &second) == 0)
        defer { for fd in second { close(fd) } }
        // The number this test frees and takes again lies far above the process's others: the
        // kernel gives every new descriptor the lowest free number, so between the close and the
        // dup2 below no other thread of the suite (a child process's pipes, say) is given it.
        // At a low number, one was, and this test's final close took a pipe from under
        // swift-subprocess, which stops the process ("FileDescriptor … is already closed").
        let high = fcntl(first[0], F_DUPFD_CLOEXEC, Self.unsharedNumber)
        try #require(high >= Self.unsharedNumber)
        close(first[0])
        let socket = ReaderSocket(high)
        #expect(socket.write(Array("before".utf8)))
        socket.close()
        close(first[1])
        // Another connection gets the number, as the next socket the process opens would.
        try #require(dup2(second[0], socket.descriptor) == socket.descriptor)
        defer { close(socket.descriptor) }

        socket.shutDown()
        #expect(!socket.write(Array("stray".utf8)))
        socket.close()

        // The other connection still works both ways and got nothing stray.
        #expect(LoopbackSocket.writeAll(second[1], Array("ping".utf8)))
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(read(socket.descriptor, &buffer, buffer.count) == 4)
        #expect(LoopbackSocket.writeAll(socket.descriptor, Array("pong".utf8)))
        #expect(read(second[1], &buffer, buffer.count) == 4)
        #expect(String(decoding: buffer.prefix(4), as: UTF8.self) == "pong")
    }

    /// A descriptor number within the usual limit of 1,024 that the suite, with a few dozen
    /// descriptors open at a time, never reaches.
    static let unsharedNumber: Int32 = 900
}

/// The harness's port for "nothing listens here": refused while held, and no other socket can
/// take it meanwhile.
@Suite(.timeLimit(.minutes(1))) struct RefusingPortTests {
    @Test("Connections are refused and the port cannot be bound again while it is held; free after")
    func heldAndRefused() async throws {
        let held = try await LoopbackSocket.withRefusingPort { port in
            #expect(LoopbackSocket.connectTo(port: port) == nil)
            // A server asking for this very port (with SO_REUSEADDR, as servers do) is refused it.
            #expect(Self.bindListening(port: port) == EADDRINUSE)
            return port
        }
        #expect(Self.bindListening(port: held) == 0)
    }

    /// Binds a listening socket with `SO_REUSEADDR` to 127.0.0.1:`port`: 0, or `errno`.
    static func bindListening(port: Int) -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        defer { close(fd) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { return errno }
        return listen(fd, 1) == 0 ? 0 : errno
    }
}
