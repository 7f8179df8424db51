internal import CGPS
import LocationCore

/// Why talking to gpsd failed, and where: every error names the daemon's `host:port`.
///
/// ```swift
/// do {
///     for try await fix in try GPSDProvider(port: 2947, clock: ContinuousClock(), now: { Date() }) { print(fix) }
/// } catch GPSDError.Code.connectionRefused {
///     print("is gpsd running?")
/// }
/// ```
package struct GPSDError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure. Extensible: new codes may be added.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// No gpsd answered at `host:port` (`gps_open` failed: refused, unknown host, no socket).
        package static let connectionRefused = Code("connection refused")
        /// The daemon closed the connection or reading from it failed (`recv` saw the end or failed):
        /// gpsd was stopped, killed or restarted.
        package static let daemonClosed = Code("daemon closed the connection")
        /// gpsd reported that the watched receiver went away (a `DEVICE` report with
        /// `"activated":0`: unplugged, or its feed closed).
        package static let deviceRemoved = Code("device removed")
        /// gpsd answered the `?WATCH` with an `ERROR` report instead of acknowledging it, so no
        /// reports would ever flow: most often the named ``GPSDProvider/device`` is one gpsd does
        /// not have (`No such device as /dev/ttyUSB9`). The detail holds gpsd's message.
        package static let watchRejected = Code("watch rejected")
        /// A report that libgps could not decode (`gps_unpack` failed).
        package static let malformedReport = Code("malformed report")
        /// Sending the `?WATCH` command failed (`gps_send` returned -1).
        package static let sendFailed = Code("send failed")
        /// A parameter was out of range (an empty host, a port outside 1...65535).
        package static let invalidArgument = Code("invalid argument")

        package var description: String { name }
    }

    /// What went wrong.
    package let code: Code
    /// The daemon's host, as given to the provider.
    package let host: String
    /// The daemon's TCP port.
    package let port: Int
    /// Details: libgps's own words (`gps_errstr`), the device path, or the offending text.
    package let detail: String
    /// The C status behind the error when there is one (a negative `NL_*` code from `gps_open`,
    /// or an `errno` value), otherwise `nil`.
    package let underlyingCode: Int32?

    init(_ code: Code, host: String, port: Int, detail: String, underlyingCode: Int32? = nil) {
        self.code = code
        self.host = host
        self.port = port
        self.detail = detail
        self.underlyingCode = underlyingCode
    }

    /// `host:port`, with IPv6 literals bracketed (`[::1]:2947`).
    package var endpoint: String { HostPort(host: host, port: port).description }

    /// For example `gpsd at 127.0.0.1:2947: connection refused (can't connect to host/port pair)`;
    /// a host name that resolves to nothing (`gps_open`'s `NL_NOHOST`) reads `no such host`, not
    /// "connection refused": nothing was asked to connect.
    package var description: String {
        let what = code == .connectionRefused && underlyingCode == Self.noHost ? "no such host" : code.description
        return detail.isEmpty ? "gpsd at \(endpoint): \(what)" : "gpsd at \(endpoint): \(what) (\(detail))"
    }

    /// libgps's `NL_NOHOST`: `gps_open` could not resolve the host name.
    package static let noHost = Int32(NL_NOHOST)
}

extension GPSDError.Code {
    /// Lets `catch GPSDError.Code.daemonClosed` match a thrown ``GPSDError``.
    package static func ~= (code: Self, error: any Error) -> Bool {
        (error as? GPSDError)?.code == code
    }
}
