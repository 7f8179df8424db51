package import Hummingbird
import NIOCore

/// The request context of ``NearbyServer``: Hummingbird's core storage plus the caller's address,
/// which the audit uses to tell clients apart when they send neither `X-Player-ID` nor a token.
package struct NearbyRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The remote IP address (no port), or nil when there is none (in-process tests).
    package let remoteAddress: String?
    /// The connection, for its ``ConnectionGuard``'s departure signal.
    let channel: any Channel

    package init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
        channel = source.channel
    }
}
