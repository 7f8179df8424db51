package import Hummingbird
package import LocationCore
package import Logging
import MapFeature
import ServiceLifecycle
import NIOCore

/// `locsim serve` as a library: the game's `GET /locations/nearby` over any
/// ``/LocationCore/LocationRepository`` (``NearbyServing`` for what a backend adds), with the token rule, injected faults, the fetch-rule audit,
/// metrics and an access log, as one swift-service-lifecycle `Service` on Hummingbird 2.
///
/// Routes: `GET /locations/nearby`, `GET /healthz`, `GET /metrics`, `GET /audit`, and any
/// ``AddedRoutes`` given (the players' control API in `locsim serve`). Every
/// answer that is not places or operations text is a ``ServerError`` JSON body.
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
/// Graceful shutdown (SIGTERM, SIGINT through the service group) stops accepting connections,
/// lets every request in flight finish (held timeout faults are answered 503 at once) and then
/// returns from ``run()``.
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
        /// client has normally given up long before). Default 5 minutes.
        package var timeoutHold: Duration

        /// Creates a configuration, applying the binding rule: a host other than a loopback
        /// address needs a token unless `allowAnonymous` is set.
        ///
        /// - Throws: ``ServerConfigurationError`` naming the option.
        package init(
            host: String = "127.0.0.1", port: Int = 8080, token: String? = nil, allowAnonymous: Bool = false,
            maximumRadius: Double = 50_000, faults: FaultPlan.Configuration = .none,
            audit: FetchAudit.Configuration = FetchAudit.Configuration(), timeoutHold: Duration = .seconds(300)
        ) throws(ServerConfigurationError) {
            guard (0...65_535).contains(port) else {
                throw ServerConfigurationError("port must be within 0...65535, got \(port)", option: "port")
            }
            guard maximumRadius.isFinite, maximumRadius >= 1, maximumRadius <= Sphere.halfCircumference else {
                throw ServerConfigurationError(
                    "max radius must be within 1...\(Int(Sphere.halfCircumference)) m, got \(maximumRadius)", option: "max-radius")
            }
            if let token {
                guard !token.isEmpty, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                    throw ServerConfigurationError("the token must be printable ASCII without spaces", option: "token")
                }
            }
            if token == nil, !allowAnonymous, !Self.isLoopback(host) {
                throw ServerConfigurationError(
                    "listening on \(host) lets other machines call the server: give --token T (the app sends "
                        + "'Authorization: Bearer T'), or --allow-anonymous to serve anyone on the network", option: "host")
            }
            guard timeoutHold > .zero else {
                throw ServerConfigurationError("timeout hold must be > 0, got \(timeoutHold)", option: "timeout-hold")
            }
            self.host = host
            self.port = port
            self.token = token
            self.maximumRadius = maximumRadius
            self.faults = faults
            self.audit = audit
            self.timeoutHold = timeoutHold
        }

        /// The largest request body an ``AddedRoutes`` route is given (16 MiB); more is a 413.
        package static let maximumBodyBytes = 16 << 20

        /// `127.0.0.0/8`, `::1` and `localhost`.
        package static func isLoopback(_ host: String) -> Bool {
            host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
        }
    }

    /// The configuration.
    package let configuration: Configuration
    /// The live state: audit, metrics, fault plan.
    package let state: NearbyServerState
    private let responder: NearbyResponder
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
        logger: Logger = Logger(label: "locsim.serve"), addedRoutes: (any AddedRoutes)? = nil,
        onListening: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) {
        self.configuration = configuration
        self.state = NearbyServerState(faults: configuration.faults, audit: configuration.audit)
        self.responder = NearbyResponder(
            configuration: configuration, repository: repository, time: time, state: state, accessLog: accessLog, logger: logger,
            addedRoutes: addedRoutes)
        self.logger = logger
        self.onListening = onListening
    }

    /// The Hummingbird application, for `app.test(.router)` and `.live` in tests; ``run()`` runs it.
    package func application() -> some ApplicationProtocol {
        application(onServerRunning: {})
    }

    private func application(onServerRunning listened: @escaping @Sendable () -> Void) -> some ApplicationProtocol {
        let onListening = self.onListening
        let host = configuration.host
        return Application(
            responder: responder,
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: configuration.port), serverName: "locsim"),
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
        let accessLog = responder.accessLog
        let time = responder.time
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
            } onGracefulShutdown: { [addedRoutes = responder.addedRoutes] in
                state.beginShutdown()
                addedRoutes?.beginShutdown()
            }
            group.cancelAll()
        }
    }
}

/// A configuration the server refuses, naming the option.
package struct ServerConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong and what to do.
    package var message: String
    /// The option to blame, without dashes (`host`, `max-radius`).
    package var option: String

    /// Creates an error.
    package init(_ message: String, option: String) {
        self.message = message
        self.option = option
    }

    package var description: String { message }
}
