#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A server's address as a person writes it: `HOST[:PORT]`, an IPv6 address in brackets
/// (`[::1]:2947`). The package's one reader of it (`replay --gpsd`, a relayed receiver
/// `gpsd://HOST[:PORT]`), and its one way to show it.
package struct HostPort: Sendable, Hashable, CustomStringConvertible {
    /// A name or an address (an IPv6 address without its brackets).
    package var host: String
    /// 1...65535.
    package var port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `HOST[:PORT]` or `[IPV6][:PORT]`; an empty host is `defaultHost`, a missing port
    /// `defaultPort` (so `""` is both defaults, `:2948` the default host).
    ///
    /// - Throws: ``ConfigurationError`` naming `parameter`: a `[` without its `]`, anything but
    ///   `:PORT` after the `]`, an IPv6 address without brackets, a port that is not a number
    ///   within 1...65535.
    package init(
        parsing text: some StringProtocol, parameter: String, defaultHost: String, defaultPort: Int
    ) throws(ConfigurationError) {
        func failure(_ problem: String) -> ConfigurationError { ConfigurationError(parameter: parameter, problem) }
        let text = Substring(text)
        var host = text
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw failure("'\(text)' has no closing ']'") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw failure("expected ':PORT' after '[\(host)]', got '\(after)'") }
                portText = after.dropFirst()
            }
        } else if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard portText?.contains(":") == false else {
                throw failure("'\(text)' has more than one ':' (an IPv6 address goes in brackets: [::1]:2947)")
            }
        }
        self.host = host.isEmpty ? defaultHost : String(host)
        port = defaultPort
        if let portText {
            guard let value = Int(portText), (1...65_535).contains(value) else {
                throw failure("the port must be a number within 1...65535, got '\(portText)'")
            }
            port = value
        }
    }

    /// `host:port`, an IPv6 address in brackets (`[::1]:2947`).
    package var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// Why a server could not listen: every listener's one error (`serve`'s HTTP port, the gpsd feed,
/// `nmea serve`), so a port in use reads the same everywhere and always names host and port.
package struct ListenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which listener: what its clients speak.
    package enum Clients: String, Sendable, Hashable {
        case http = "HTTP clients", gpsd = "gpsd clients", nmea = "NMEA clients"
    }

    package let clients: Clients
    /// The address asked for (port 0: any free one).
    package let address: HostPort
    /// The system's reason: "Address already in use", "no such host (…)".
    package let reason: String
    /// The `errno` of a failed `bind` or `listen` (`EACCES` for a port below 1024 without the
    /// right to it), nil for a reason of another kind.
    package let errno: Int32?

    package init(clients: Clients, host: String, port: Int, reason: String) {
        self.clients = clients
        self.address = HostPort(host: host, port: port)
        self.reason = reason
        self.errno = nil
    }

    /// A failed `bind` or `listen`, with the system's words for `errno`.
    package init(clients: Clients, host: String, port: Int, errno: Int32) {
        self.clients = clients
        self.address = HostPort(host: host, port: port)
        self.reason = String(cString: strerror(errno))
        self.errno = errno
    }

    package var description: String { "cannot listen for \(clients.rawValue) on \(address): \(reason)" }
}
