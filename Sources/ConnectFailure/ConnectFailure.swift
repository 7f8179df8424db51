import LocationCore
import NIOCore
import NIOPosix

/// Why a SwiftNIO client could not connect, in the system's words (`Connection refused`, `no such
/// host`, `no connection within 5000 ms`) rather than NIO's nested error values: the one wording
/// of every client of the package that connects with a `ClientBootstrap` (`locsim swarm`'s HTTP,
/// the Android emulator console bridge).
package enum ConnectFailure {
    /// The reason `error`, thrown by `ClientBootstrap.connect`, gives; its own description for an
    /// error of another kind.
    package static func reason(_ error: any Error) -> String {
        if let error = error as? NIOConnectionError {
            if let system = error.connectionErrors.lazy.compactMap({ $0.error as? IOError }).first {
                return "\(SystemIOError(code: system.errnoCode))"
            }
            if error.connectionErrors.isEmpty { return "no such host" }
        }
        // A connection made and then reset (what answered closed it with our bytes unread): in
        // the system's words too, not NIO's `read(descriptor:pointer:size:)`.
        if let system = error as? IOError { return "\(SystemIOError(code: system.errnoCode))" }
        if case ChannelError.connectTimeout(let amount) = error {
            return "no connection within \(amount.nanoseconds / 1_000_000) ms"
        }
        return "\(error)"
    }
}
