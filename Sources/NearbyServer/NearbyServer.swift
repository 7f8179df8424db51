#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes
package import Hummingbird
import HummingbirdCore
package import LocationCore
package import Logging
import MapFeature
import ServiceLifecycle
import NIOCore

/// `locsim serve` as a library: the game's `GET /locations/nearby` over any
/// ``/LocationCore/LocationRepository`` (``NearbyServing`` for what a backend adds), with the token rule, injected faults, the fetch-rule audit,
/// metrics and an access log, as one swift-service-lifecycle `Service` on Hummingbird 2.
///
/// Routes, all on one Hummingbird router (``NearbyRoutes``): `GET /locations/nearby`,
/// `GET /healthz`, `GET /metrics`, `GET /audit`, `POST /audit/reset`, `GET /openapi.json`, and
/// any ``AddedRoutes`` given (the players' control API in `locsim serve`); `HEAD` wherever `GET`
/// works. The token rule is a middleware on the guarded routes; the access log, metrics, gzip and
/// the JSON error shape one middleware around all (``ExchangeMiddleware``). Every answer that is
/// not places or operations text is a ``/LocationCore/ServerError`` JSON body.
///
/// Under abuse: each connection's ``ConnectionGuard`` caps the connections served
/// (``Configuration/maximumConnections``, 503 beyond), closes a connection whose request head
/// takes longer than ``Configuration/headerTimeout`` (408) and answers bytes that are not HTTP with
/// a JSON 400; Hummingbird closes connections idle for ``Configuration/idleTimeout``; a request
/// held or delayed by a fault ends as soon as its client closes the connection.
///
/// ```swift
/// let server = try NearbyServer(
///     configuration: NearbyServer.Configuration(port: 8080),
///     repository: OfflineLocationRepository(index: try NearbyIndex(path: "places.sqlite", configuration: .init(access: .readOnly))),
///     time: ServerTime(clock: ContinuousClock(), now: { Date() }))
/// let group = ServiceGroup(configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
/// try await group.run()
/// ```
///
/// Graceful shutdown (SIGTERM, SIGINT or SIGHUP through the service group) drains, as Envoy and
/// Kubernetes do: the listener stops accepting; for ``Configuration/drainPeriod`` each open
/// connection's next answer says `Connection: close` and the connection closes after it; a
/// connection still idle at the end of the period is closed then. Every request in flight is
/// answered in full (held timeout faults are answered 503 at once), and ``run()`` returns once the
/// last connection has closed.
package struct NearbyServer: Service {
    /// Where to listen and how to behave.
    package struct Configuration: Sendable {
        /// The address to bind; 127.0.0.1 by default.
        package var host: String
        /// The port; 0 picks a free one (reported to `onListening`).
        package var port: Int
        /// The bearer token required on every route but `/healthz`, or nil.
        package var token: String?
        /// The largest `radius` accepted, metres (`--max-radius`); 50 km by default.
        package var maximumRadius: Double
        /// Injected faults.
        package var faults: FaultPlan.Configuration
        /// The fetch-rule audit's settings.
        package var audit: FetchAudit.Configuration
        /// How long a timeout fault holds a request before the server gives up on it (the
        /// client has normally given up long before, and a client that closes its connection
        /// ends the hold at once). Default 5 minutes.
        package var timeoutHold: Duration
        /// The longest a request head may take from its first byte to its end (`--header-timeout`);
        /// then 408 and the connection is closed. Default 10 s.
        package var headerTimeout: Duration
        /// How long a connection may sit with no request before it is closed (`--idle-timeout`);
        /// Hummingbird's idle timeout. Default 60 s.
        package var idleTimeout: Duration
        /// Connections served at once (`--max-connections`); more are answered 503 and closed.
        /// Default ``defaultMaximumConnections``.
        package var maximumConnections: Int
        /// `--accept-any-token`: with no ``token``, every route but `/healthz` needs a
        /// well-formed bearer token, any one (the app's real token passes unchanged).
        package var acceptAnyToken: Bool
        /// `--audit-client-header`: a header of the team's own that names the audit's client
        /// when `X-Player-ID` is absent (a device id), or nil. Never one of
        /// ``credentialHeaders``, nor one whose name says it holds a secret (``namesACredential(_:)``).
        package var auditClientHeader: String?
        /// Headers that carry credentials, refused as ``auditClientHeader``.
        package static let credentialHeaders: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie, .setCookie]

        /// Whether a header's name says it carries a secret (`X-Api-Key`, `X-Auth-Token`,
        /// `X-Session-ID`): refused as ``auditClientHeader`` like ``credentialHeaders``.
        package static func namesACredential(_ name: HTTPField.Name) -> Bool {
            let words = ["auth", "token", "key", "secret", "password", "session", "cookie", "credential", "signature"]
            return words.contains { name.canonicalName.contains($0) }
        }
        /// How long connections are drained at graceful shutdown (`--drain-period`): each one's
        /// next answer says `Connection: close`, and one still idle at the end is closed. Default 1 s.
        package var drainPeriod: Duration

        /// Creates a configuration, applying the binding rule: a host other than a loopback
        /// address needs a token unless `allowAnonymous` is set.
        ///
        /// - Throws: ``ServerConfigurationError`` naming the option.
        package init(
            host: String = "127.0.0.1", port: Int = 8080, token: String? = nil, allowAnonymous: Bool = false,
            maximumRadius: Double = 50_000, faults: FaultPlan.Configuration = .none,
            audit: FetchAudit.Configuration = FetchAudit.Configuration(), timeoutHold: Duration = .seconds(300),
            headerTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60),
            maximumConnections: Int = Configuration.defaultMaximumConnections, acceptAnyToken: Bool = false,
            auditClientHeader: String? = nil, drainPeriod: Duration = .seconds(1)
        ) throws(ServerConfigurationError) {
            guard (0...65_535).contains(port) else {
                throw ServerConfigurationError("must be within 0...65535, got \(port)", option: "port")
            }
            guard maximumRadius.isFinite, maximumRadius >= 1, maximumRadius <= Sphere.halfCircumference else {
                throw ServerConfigurationError(
                    "must be within 1...\(Int(Sphere.halfCircumference)) m, got \(maximumRadius)", option: "max-radius")
            }
            if let token, let problem = BearerToken.problem(with: token) {
                throw ServerConfigurationError(problem, option: "token")
            }
            if token != nil, acceptAnyToken {
                throw ServerConfigurationError(
                    "give one token (--token or --token-file) or --accept-any-token (any token), not both", option: "accept-any-token")
            }
            if let auditClientHeader {
                guard let name = HTTPField.Name(auditClientHeader) else {
                    throw ServerConfigurationError(
                        "'\(TextExcerpt.render(auditClientHeader, limit: 64))' is not an HTTP header name", option: "audit-client-header")
                }
                // The client's name is logged, listed by /audit and written in the report: a header
                // that carries a credential would put it in all three.
                if Self.credentialHeaders.contains(name) || Self.namesACredential(name) {
                    throw ServerConfigurationError(
                        "\(name) carries credentials, and the client's name is logged and shown in /audit: "
                            + "name a device header of the app's own (a bearer token already names its client by a keyed hash)",
                        option: "audit-client-header")
                }
            }
            if acceptAnyToken, !allowAnonymous, !Self.isLoopback(host) {
                throw ServerConfigurationError(
                    "taking any token admits every caller that sends one, and listening on \(host) lets other machines call: "
                        + "add --allow-anonymous to say that is meant (callers still send a token, any one), "
                        + "or give the one token the app sends",
                    option: "accept-any-token")
            }
            if token == nil, !allowAnonymous, !Self.isLoopback(host) {
                throw ServerConfigurationError(
                    "listening on \(host) lets other machines call the server: give a token (--token-file F or $LOCSIM_TOKEN; "
                        + "the app sends 'Authorization: Bearer T'), or --allow-anonymous to serve anyone on the network", option: "host")
            }
            if let problem = audit.intervalProblem {
                throw ServerConfigurationError(problem.message, option: problem.option)
            }
            guard timeoutHold > .zero else {
                throw ServerConfigurationError("must be > 0, got \(timeoutHold)", option: "timeout-hold")
            }
            for (value, option) in [(headerTimeout, "header-timeout"), (idleTimeout, "idle-timeout")] {
                guard value >= .milliseconds(1), value <= .seconds(86_400) else {
                    throw ServerConfigurationError("must be within 1ms...1d, got \(value)", option: option)
                }
            }
            guard drainPeriod >= .zero, drainPeriod <= .seconds(3_600) else {
                throw ServerConfigurationError("must be within 0s...1h, got \(drainPeriod)", option: "drain-period")
            }
            guard (1...Self.maximumConnectionsLimit).contains(maximumConnections) else {
                throw ServerConfigurationError(
                    "must be within 1...\(Self.maximumConnectionsLimit), got \(maximumConnections)",
                    option: "max-connections")
            }
            self.host = host
            self.port = port
            self.token = token
            self.maximumRadius = maximumRadius
            self.faults = faults
            self.audit = audit
            self.timeoutHold = timeoutHold
            self.headerTimeout = headerTimeout
            self.idleTimeout = idleTimeout
            self.maximumConnections = maximumConnections
            self.acceptAnyToken = acceptAnyToken
            self.auditClientHeader = auditClientHeader
            self.drainPeriod = drainPeriod
        }

        /// The largest `--max-connections` accepted.
        package static let maximumConnectionsLimit = 1_000_000

        /// The default cap on connections: the process's open-file limit (`ulimit -n`) less
        /// 128, at least 16. Of those 128 descriptors, 64 are for connections over the cap,
        /// accepted only to be answered 503 (``ConnectionLimit/refusalAllowance``), and 64 for
        /// everything else (the listener, the index, the logs, the event loops); so with
        /// `ulimit -n 1024` it is 896, and the server refuses rather than runs out.
        package static var defaultMaximumConnections: Int {
            max(16, min(openFileLimit(), maximumConnectionsLimit) - 128)
        }

        /// The soft limit on open files (`RLIMIT_NOFILE`); `Int.max` when unlimited or unknown.
        package static func openFileLimit() -> Int {
            var limit = rlimit()
            #if canImport(Glibc)
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
            #else
            let resource = RLIMIT_NOFILE
            #endif
            // RLIM_INFINITY is the largest value: unlimited reads as Int.max too.
            guard getrlimit(resource, &limit) == 0, limit.rlim_cur < UInt64(Int.max) else {
                return Int.max
            }
            return Int(limit.rlim_cur)
        }

        /// `127.0.0.0/8`, `::1` and `localhost`.
        package static func isLoopback(_ host: String) -> Bool {
            host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
        }
    }

    /// The configuration.
    package let configuration: Configuration
    /// The live state: audit, metrics, fault plan.
    package let state: NearbyServerState
    /// The routes' handlers and what they share.
    let routes: NearbyRoutes
    /// Hummingbird's router with every route.
    let responder: RouterResponder<NearbyRequestContext>
    /// Every route's path and methods.
    let routeTable = RouteMethodTable()
    /// The routes added beside the contract's, for their shutdown.
    private let addedRoutes: AddedRoutes?
    /// Who may call, and the names token clients get in the log and the audit.
    var tokenRule: TokenRule { routes.tokenRule }
    private let logger: Logger
    private let onListening: @Sendable (_ host: String, _ port: Int) async -> Void

    /// Creates a server.
    ///
    /// - Parameters:
    ///   - configuration: Where to listen and how to behave.
    ///   - repository: Where places come from.
    ///   - time: Delays and timestamps.
    ///   - accessLog: One line per request, or nil for none.
    ///   - logger: Server events (start, errors); never sees tokens.
    ///   - addedRoutes: More routes under the same token rule (the players' control API), or nil.
    ///   - onListening: Called once with the bound host and port (the real one when port is 0).
    package init(
        configuration: Configuration, repository: any LocationRepository, time: ServerTime, accessLog: AccessLog? = nil,
        logger: Logger = Logger(label: "locsim.serve"), addedRoutes: AddedRoutes? = nil,
        onListening: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) {
        self.configuration = configuration
        self.state = NearbyServerState(
            faults: configuration.faults, audit: configuration.audit, maximumConnections: configuration.maximumConnections)
        self.routes = NearbyRoutes(
            configuration: configuration, repository: repository, time: time, state: state, accessLog: accessLog, logger: logger)
        self.responder = routes.responder(added: addedRoutes, table: routeTable)
        self.addedRoutes = addedRoutes
        self.logger = logger
        self.onListening = onListening
    }

    /// The `Server` header of every answer.
    static let serverName = "locsim"

    /// The Hummingbird application, for the tests' harness; ``run()`` runs it.
    package func application() -> some ApplicationProtocol {
        application(onServerRunning: {})
    }

    private func application(onServerRunning listened: @escaping @Sendable () -> Void) -> some ApplicationProtocol {
        let onListening = self.onListening
        let host = configuration.host
        let guardSettings = ConnectionGuardSettings(
            headerTimeout: configuration.headerTimeout, limit: state.connections, drainPeriod: configuration.drainPeriod,
            now: routes.time.now, onRejection: { [routes] rejection in ExchangeMiddleware.record(rejection, routes: routes) })
        return Application(
            responder: responder,
            server: .http1(configuration: HTTP1Channel.Configuration(
                additionalChannelHandlers: [ConnectionGuard(settings: guardSettings)],
                idleTimeout: .microseconds(configuration.idleTimeout.wholeMicroseconds))),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: configuration.port), serverName: Self.serverName,
                availableConnectionsDelegate: state.connections.listenerDelegate),
            onServerRunning: { channel in
                listened()
                await onListening(host, channel.localAddress?.port ?? 0)
            },
            logger: Logger(label: logger.label, factory: { [handler = logger.handler] _ in RequestLogHandler(wrapping: handler) }))
    }

    /// Serves until graceful shutdown or cancellation.
    ///
    /// A buffered access log (``AccessLogBuffer``) is flushed every its interval while the server
    /// runs and once more when the last request has been answered.
    ///
    /// - Throws: ``/LocationCore/ListenError`` naming host and port when the port cannot be bound
    ///   (in use, not permitted) or the host has no address.
    package func run() async throws {
        let listening = Locked(false)
        let application = application(onServerRunning: { listening.withLock { $0 = true } })
        do {
            try await serve(application)
        } catch let error as IOError where !listening.withLock({ $0 }) {
            throw ListenError(clients: .http, host: configuration.host, port: configuration.port, errno: error.errnoCode)
        } catch let error as SocketAddressError.UnknownHost where !listening.withLock({ $0 }) {
            throw ListenError(
                clients: .http, host: configuration.host, port: configuration.port,
                reason: "no such host (\(error.errorDescription))")
        }
    }

    private func serve(_ application: some ApplicationProtocol) async throws {
        let state = self.state
        let accessLog = routes.accessLog
        let time = routes.time
        defer { accessLog?.flush() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            if let accessLog, let interval = accessLog.flushInterval {
                group.addTask {
                    while !Task.isCancelled {
                        do {
                            try await time.sleep(interval)
                        } catch {
                            return  // cancelled: the final flush follows
                        }
                        accessLog.flush()
                    }
                }
            }
            try await withGracefulShutdownHandler {
                try await application.run()
            } onGracefulShutdown: { [addedRoutes] in
                state.beginShutdown()
                addedRoutes?.beginShutdown()
            }
            group.cancelAll()
        }
    }
}

/// A configuration the server refuses, naming the option: `max-radius: must be within …`.
package struct ServerConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong and what to do, after the option's name.
    package var message: String
    /// The option to blame, without dashes (`host`, `max-radius`).
    package var option: String

    /// Creates an error.
    package init(_ message: String, option: String) {
        self.message = message
        self.option = option
    }

    package var description: String { "\(option): \(message)" }
}

extension NearbyServer: CustomStringConvertible {
    /// How the service group's log names the server (`serve --log-level debug`): where it
    /// listens, never its configuration, which holds the token.
    package var description: String { "NearbyServer(\(HostPort(host: configuration.host, port: configuration.port)))" }
}
