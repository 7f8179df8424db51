/// Routes a ``NearbyServer`` serves beside the nearby contract, under the same token rule,
/// metrics and access log: `locsim serve` adds the players' control API and live map this way,
/// so this module needs to know nothing of players.
public protocol AddedRoutes: Sendable {
    /// Whether `path` is one of these routes.
    func serves(path: String) -> Bool
    /// Whether `path` is open without the token (a page that holds no data of its own).
    func isPublic(path: String) -> Bool
    /// The answer to a request on one of these routes.
    func respond(to request: AddedRouteRequest) async -> AddedRouteResponse
    /// Graceful shutdown has begun: end every open stream so the server can finish.
    func beginShutdown()
}

/// A request to an ``AddedRoutes`` route; the body is read whole (at most
/// ``NearbyServer/Configuration/maximumBodyBytes``).
public struct AddedRouteRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [(name: String, value: String)]
    public var contentType: String?
    public var body: [UInt8]
}

/// The answer of an ``AddedRoutes`` route: a whole body, or a stream of chunks (Server-Sent
/// Events) sent as they come until the sequence ends or the client leaves.
public struct AddedRouteResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    /// For 405: the methods the path takes (the `Allow` header).
    public var allow: [String]
    /// When set, sent in place of `body`, chunk by chunk.
    public var stream: (any AsyncSequence<[UInt8], Never> & Sendable)?

    public init(
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
