#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's one blocking IPv4 TCP listener: `nmea serve` accepts its clients on it, and the
/// tests' stand-in servers (`LoopbackSocket`) listen with it. Servers that run on SwiftNIO
/// (`serve`, the gpsd feed) bind through NIO instead.
package enum TCPListener {
    /// Why a listener could not be made, with the address asked for.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package enum Kind: Sendable, Hashable {
            /// The host name has no IPv4 address.
            case address
            /// socket, bind or listen failed (a port in use, an address not on this machine).
            case listen
        }

        package let kind: Kind
        package let host: String
        package let port: Int
        package let reason: String

        package var description: String {
            switch kind {
            case .address: "\(host) has no IPv4 address: \(reason)"
            case .listen: "cannot listen on \(host):\(port): \(reason)"
            }
        }
    }

    /// Listens on `host:port`: `host` an IPv4 address or a name with one (`localhost`), `port` 0
    /// for a free one. `SO_REUSEADDR` is set, so a port just released can be bound again.
    ///
    /// - Returns: The listening descriptor (the caller closes it) and the port it is bound to.
    package static func listen(host: String, port: Int, backlog: Int32 = 8) throws(Failure) -> (descriptor: Int32, port: Int) {
        guard (0...65_535).contains(port) else {
            throw Failure(kind: .listen, host: host, port: port, reason: "a port is 0...65535")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = try ipv4Address(of: host, port: port)
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw Failure(kind: .listen, host: host, port: port, reason: errorText()) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #if canImport(Glibc)
        let listening = bound == 0 && Glibc.listen(fd, backlog) == 0
        #elseif canImport(Musl)
        let listening = bound == 0 && Musl.listen(fd, backlog) == 0
        #else
        let listening = bound == 0 && Darwin.listen(fd, backlog) == 0
        #endif
        guard listening else {
            let reason = errorText()
            closeDescriptor(fd)
            throw Failure(kind: .listen, host: host, port: port, reason: reason)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: actual.sin_port)))
    }

    /// Closes a descriptor, ignoring the result (nothing useful can be done about a failed close).
    package static func closeDescriptor(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #elseif canImport(Musl)
        _ = Musl.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    /// The IPv4 address `host` names: a dotted quad as it is, or a name resolved.
    private static func ipv4Address(of host: String, port: Int) throws(Failure) -> in_addr {
        var address = in_addr()
        if inet_pton(AF_INET, host, &address) == 1 { return address }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0, let found = list?.pointee.ai_addr else {
            let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw Failure(kind: .address, host: host, port: port, reason: reason)
        }
        return found.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
