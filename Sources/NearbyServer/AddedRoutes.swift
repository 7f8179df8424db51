/// Routes a ``NearbyServer`` serves beside the nearby contract, on the same router, under the
/// same token rule, metrics and access log: `locsim serve` adds the players' control API and
/// live map this way, so this module needs to know nothing of players.
package struct AddedRoutes: Sendable {
    /// Adds the routes with Hummingbird's router methods: on `open` those anyone may call (a
    /// page that holds no data of its own), on `guarded` those that need the token. A route
    /// throws ``/LocationCore/ServerError`` for an error answer; HEAD is answered wherever GET is.
    package var register: @Sendable (_ open: ServerRoutes, _ guarded: ServerRoutes) -> Void
    /// Graceful shutdown has begun: end every open stream so the server can finish.
    package var beginShutdown: @Sendable () -> Void

    package init(
        register: @escaping @Sendable (_ open: ServerRoutes, _ guarded: ServerRoutes) -> Void,
        beginShutdown: @escaping @Sendable () -> Void
    ) {
        self.register = register
        self.beginShutdown = beginShutdown
    }
}
