#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import Hummingbird
import LocationCore
import NIOCore

/// The request context of ``NearbyServer``: Hummingbird's core storage plus the caller's address,
/// which the audit uses to tell clients apart when they send neither `X-Player-ID` nor a token,
/// and what ``ExchangeMiddleware`` hands the routes and takes back from them.
package struct NearbyRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The remote IP address (no port), or nil when there is none (in-process tests).
    package let remoteAddress: String?
    /// The connection, for its ``ConnectionGuard``'s departure signal.
    let channel: any Channel
    /// The audit's and the log's name for the caller (``ExchangeMiddleware`` sets it).
    var client = ""
    /// When the request arrived, on the server's clock (``ExchangeMiddleware`` sets it).
    var arrival = Date(timeIntervalSinceReferenceDate: 0)
    /// What a route tells the access log and the metrics about its answer.
    let notes = ExchangeNotes()

    package init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
        channel = source.channel
    }
}

/// What a route says about one answer beyond its status, for the access log line and the
/// metrics: the places sent, the audit's verdict and its reason, the fault injected, and the
/// error behind a 5xx (logged, never sent).
final class ExchangeNotes: Sendable {
    struct Values {
        var places: Int?
        var verdict: String?
        var reason: String?
        var fault: String?
        var error: String?
    }

    private let values = Locked(Values())

    var current: Values { values.withLock { $0 } }

    func update(_ change: (inout Values) -> Void) { values.withLock { change(&$0) } }
}
