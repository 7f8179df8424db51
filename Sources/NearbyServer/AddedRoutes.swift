/// Routes a ``NearbyServer`` serves beside the nearby contract, under the same token rule,
/// metrics and access log: `locsim serve` adds the players' control API and live map this way,
/// so this module needs to know nothing of players.
package protocol AddedRoutes: Sendable {
    /// Whether `path` is one of these routes.
    func serves(path: String) -> Bool
    /// Whether `path` is open without the token (a page that holds no data of its own).
    func isPublic(path: String) -> Bool
    /// The answer to a request on one of these routes. A HEAD is answered as a GET (the server
    /// sends only the headers); a route that takes no GET names HEAD in its 405.
    func respond(to request: AddedRouteRequest) async -> AddedRouteResponse
    /// Graceful shutdown has begun: end every open stream so the server can finish.
    func beginShutdown()
}

/// A request to an ``AddedRoutes`` route; the body is read whole (at most
/// ``NearbyServer/Configuration/maximumBodyBytes``).
package struct AddedRouteRequest: Sendable {
    package var method: String
    package var path: String
    package var query: [(name: String, value: String)]
    package var contentType: String?
    package var body: [UInt8]
    /// The `Last-Event-ID` header: a client of an event stream resuming after that event.
    package var lastEventID: String?
}

/// The answer of an ``AddedRoutes`` route: a whole body, or a stream of chunks (Server-Sent
/// Events) sent as they come until the sequence ends or the client leaves.
package struct AddedRouteResponse: Sendable {
    package var status: Int
    package var contentType: String
    package var body: [UInt8]
    /// For 405: the methods the path takes (the `Allow` header).
    package var allow: [String]
    /// When set, sent in place of `body`, chunk by chunk.
    package var stream: (any AsyncSequence<[UInt8], Never> & Sendable)?

    package init(
        status: Int, contentType: String, body: [UInt8], allow: [String] = [],
        stream: (any AsyncSequence<[UInt8], Never> & Sendable)? = nil
    ) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.allow = allow
        self.stream = stream
    }
}
