#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
package import Hummingbird
import HummingbirdCore
import LocationCore
import Logging
import NIOCore

/// Routes a request: the nearby contract, the operations routes, and JSON errors for the rest.
///
/// Written as one responder rather than a `Router` so that unknown paths (404) and wrong
/// methods on known paths (405, with `Allow`) get the same JSON error shape as everything else,
/// and the token rule, the audit, the metrics and the access log apply in one place.
package struct NearbyResponder: HTTPResponder {
    package typealias Context = NearbyRequestContext

    let configuration: NearbyServer.Configuration
    /// Where places come from.
    let repository: any LocationRepository
    /// The same backend when it writes its own bodies and reports its health.
    let serving: (any NearbyServing)?
    let time: ServerTime
    let state: NearbyServerState
    let accessLog: AccessLog?
    let logger: Logger
    let tokenRule: TokenRule
    let addedRoutes: (any AddedRoutes)?

    init(
        configuration: NearbyServer.Configuration, repository: any LocationRepository, time: ServerTime, state: NearbyServerState,
        accessLog: AccessLog?, logger: Logger, addedRoutes: (any AddedRoutes)? = nil
    ) {
        self.addedRoutes = addedRoutes
        self.configuration = configuration
        self.repository = repository
        self.serving = repository as? any NearbyServing
        self.time = time
        self.state = state
        self.accessLog = accessLog
        self.logger = logger
        self.tokenRule = TokenRule(token: configuration.token)
    }

    /// The routes and the name each has in metrics.
    enum Route: String, CaseIterable {
        case nearby = "/locations/nearby"
        case healthz = "/healthz"
        case metrics = "/metrics"
        case audit = "/audit"

        /// The route's row in ``ServerMetrics``' table.
        var metricsRow: Int {
            switch self {
            case .audit: 0
            case .healthz: 1
            case .nearby: 2
            case .metrics: 3
            }
        }
    }

    /// ``ServerMetrics``' row for unknown paths.
    static let otherMetricsRow = ServerMetrics.routes.count - 1

    static let playerHeader = HTTPField.Name("X-Player-ID")!

    /// What one request led to: the answer, and for the metrics and the access log what happened.
    struct Outcome {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: Body
        var places: Int?
        var verdict: String?
        var reason: String?
        var fault: String?
        var error: String?

        /// A body written at once, or one that streams (added routes' event streams).
        enum Body {
            case bytes(ByteBuffer)
            case stream(ResponseBody)
        }

        init(status: HTTPResponse.Status, headers: HTTPFields, body: Body, places: Int? = nil, error: String? = nil) {
            self.status = status
            self.headers = headers
            self.body = body
            self.places = places
            self.error = error
            if case .bytes(let bytes) = body { self.headers[.contentLength] = String(bytes.readableBytes) }
        }

        /// The answer as Hummingbird writes it.
        var response: Response {
            switch body {
            case .bytes(let bytes):
                Response(status: status, headers: headers, body: ResponseBody(byteBuffer: bytes))
            case .stream(let stream):
                Response(status: status, headers: headers, body: stream)
            }
        }
    }

    package func respond(to request: Request, context: Context) async throws -> Response {
        let started = time.elapsed()
        let arrival = time.now()
        let client = clientName(
            player: request.headers[Self.playerHeader], authorization: request.headers[.authorization],
            remoteAddress: context.remoteAddress)
        let route = Route(rawValue: request.uri.path)
        let outcome: Outcome
        if let route {
            if request.method != .get {
                outcome = Self.failure(ServerError(
                    .methodNotAllowed, status: 405, "\(request.method) is not allowed on \(route.rawValue); use GET",
                    allowedMethods: ["GET"]))
            } else if route != .healthz, !tokenRule.admits(authorization: request.headers[.authorization]) {
                outcome = unauthorized(authorization: request.headers[.authorization])
            } else {
                switch route {
                case .nearby: outcome = await nearby(request: request, client: client, arrival: arrival)
                case .healthz:
                    if let problem = await serving?.healthProblem() {
                        outcome = Self.failure(ServerError(.unavailable, status: 503, problem, retryAfter: 1), error: problem)
                    } else {
                        let warnings = (await serving?.healthWarnings() ?? []).map { "degraded: \($0)\n" }.joined()
                        outcome = Self.text("ok\n" + warnings, contentType: "text/plain; charset=utf-8")
                    }
                case .metrics:
                    outcome = Self.text(state.metricsText(), contentType: "text/plain; version=0.0.4; charset=utf-8")
                case .audit: outcome = Self.json(ByteBuffer(bytes: state.auditJSON()), status: 200)
                }
            }
        } else if let addedRoutes, addedRoutes.serves(path: request.uri.path) {
            if !addedRoutes.isPublic(path: request.uri.path), !tokenRule.admits(authorization: request.headers[.authorization]) {
                outcome = unauthorized(authorization: request.headers[.authorization])
            } else {
                outcome = await added(addedRoutes, request: request)
            }
        } else {
            outcome = Self.failure(ServerError(.notFound, status: 404, "no route \(request.uri.path)"))
        }
        record(
            outcome, route: route, method: request.method.rawValue, uri: request.uri, client: client, arrival: arrival,
            started: started)
        return outcome.response
    }

    /// The metrics and the access log line for one answered request.
    private func record(
        _ outcome: Outcome, route: Route?, method: String, uri: URI, client: String, arrival: Date, started: Duration
    ) {
        let duration = time.elapsed() - started
        let status = outcome.status.code
        state.metrics.record(
            route: route?.metricsRow ?? Self.otherMetricsRow, status: status, seconds: duration.fractionalSeconds,
            places: outcome.places ?? 0)
        accessLog?.log(AccessLog.Record(
            time: arrival, method: method, target: uri.description, status: status,
            duration: duration, client: client, places: outcome.places, verdict: outcome.verdict, reason: outcome.reason,
            fault: outcome.fault, error: outcome.error))
    }

    private func unauthorized(authorization: String?) -> Outcome {
        let message = authorization == nil
            ? "this server needs 'Authorization: Bearer <token>'" : "the bearer token is not this server's"
        return Self.failure(ServerError(.unauthorized, status: 401, message))
    }

    // MARK: The nearby contract

    private func nearby(request: Request, client: String, arrival: Date) async -> Outcome {
        let query: NearbyQuery
        do {
            query = try nearbyQuery(request.uri)
        } catch {
            return Self.failure(error)
        }
        let (fault, ticket, entry) = arrive(client: client, query: query, arrival: arrival)
        var outcome: Outcome
        var failed = false
        switch fault {
        case .timeout:
            await hold()
            outcome = Self.failure(ServerError(
                .unavailable, status: 503, state.isShuttingDown ? "the server is shutting down" : "request held (timeout fault)"))
            outcome.fault = "timeout"
        case .failure(let status, let delay):
            await pause(delay)
            failed = status >= 500
            outcome = Self.failure(ServerError(
                .injectedFailure, status: status, "injected failure (--fail-rate or --script)",
                retryAfter: status == 503 ? 1 : nil))
            outcome.fault = "fail \(status)" + Self.delayNote(delay)
        case .body(let status, let body, let delay):
            await pause(delay)
            failed = status >= 500
            outcome = Self.json(ByteBuffer(bytes: body), status: status)
            outcome.fault = "scripted body \(status)" + Self.delayNote(delay)
        case .answer(let delay):
            await pause(delay)
            let answer: Result<(body: ByteBuffer, places: Int), any Error>
            do {
                answer = .success(try await nearbyBody(query))
            } catch {
                answer = .failure(error)
            }
            (outcome, failed) = placesOutcome(answer, client: client)
            if delay > .zero { outcome.fault = "delay" + Self.delayNote(delay) }
        }
        return conclude(outcome, failed: failed, answered: fault != .timeout, ticket: ticket, entry: entry)
    }

    /// The answer's body: written by the backend where it can (``NearbyServing``), else from its places.
    private func nearbyBody(_ query: NearbyQuery) async throws -> (body: ByteBuffer, places: Int) {
        if let serving { return try await serving.nearbyBody(near: query.center, within: query.radius, limit: query.limit) }
        let places = try await repository.fetchNearby(center: query.center, radius: query.radius, limit: query.limit)
        var writer = NearbyJSONWriter(capacity: 32 + places.count * 120)
        writer.appendLocations(places)
        return (writer.buffer, places.count)
    }

    private func nearbyQuery(_ uri: URI) throws(ServerError) -> NearbyQuery {
        try NearbyQuery(
            parameters: uri.queryParameters.lazy.map { (name: $0.key, value: $0.value) },
            maximumRadius: configuration.maximumRadius)
    }

    /// The fault plan's draw and the audit's arrival, under one lock.
    private func arrive(
        client: String, query: NearbyQuery, arrival: Date
    ) -> (FaultOutcome, FetchAudit.Ticket, FetchAudit.Entry) {
        let (fault, ticket, entry) = state.inner.withLock { inner in
            let fault = configuration.faults.isNone ? FaultOutcome.answer(delay: .zero) : inner.faults.next()
            let (ticket, entry) = inner.audit.arrive(
                client: client, center: query.center, radius: query.radius, at: arrival, answered: fault != .timeout)
            return (fault, ticket, entry)
        }
        if entry.verdict.isViolation { state.metrics.recordViolation(entry.verdict.rawValue) }
        return (fault, ticket, entry)
    }

    /// The places answer, or the 503 (with the reason logged) when the backend failed.
    private func placesOutcome(
        _ answer: Result<(body: ByteBuffer, places: Int), any Error>, client: String
    ) -> (Outcome, failed: Bool) {
        switch answer {
        case .success(let (body, places)):
            var outcome = Self.json(body, status: 200)
            outcome.places = places
            return (outcome, false)
        case .failure(let error):
            logger.error("nearby query failed: \(error)", metadata: ["client": .string(client)])
            return (Self.failure(
                ServerError(.unavailable, status: 503, "the place database could not answer; see the server's log", retryAfter: 1),
                error: "\(error)"), true)
        }
    }

    /// The audit's finish (for an answered request) and its verdict on the outcome.
    private func conclude(
        _ outcome: Outcome, failed: Bool, answered: Bool, ticket: FetchAudit.Ticket, entry: FetchAudit.Entry
    ) -> Outcome {
        var outcome = outcome
        if answered {
            let finished = time.now()
            state.inner.withLock { $0.audit.finish(ticket, status: outcome.status.code, failed: failed, at: finished) }
        }
        outcome.verdict = entry.verdict.rawValue
        // The reason's text is only for the log line.
        if accessLog != nil { outcome.reason = entry.reason }
        return outcome
    }

    // MARK: Added routes

    private func added(_ routes: any AddedRoutes, request: Request) async -> Outcome {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: NearbyServer.Configuration.maximumBodyBytes)
        } catch {
            return Self.failure(ServerError(
                .badRequest, status: 413,
                "the body is over \(NearbyServer.Configuration.maximumBodyBytes >> 20) MiB or could not be read: \(error)",
                parameter: "body"))
        }
        let answer = await routes.respond(to: AddedRouteRequest(
            method: request.method.rawValue, path: request.uri.path,
            query: request.uri.queryParameters.map { (name: String($0.key), value: String($0.value)) },
            contentType: request.headers[.contentType], body: Array(buffer: body)))
        var headers = HTTPFields()
        headers[.contentType] = answer.contentType
        if !answer.allow.isEmpty { headers[.allow] = answer.allow.joined(separator: ", ") }
        if answer.status == 401 { headers[.wwwAuthenticate] = "Bearer" }
        guard let stream = answer.stream else {
            return Outcome(
                status: HTTPResponse.Status(code: answer.status), headers: headers, body: .bytes(ByteBuffer(bytes: answer.body)))
        }
        headers[.cacheControl] = "no-cache"
        return Outcome(
            status: HTTPResponse.Status(code: answer.status), headers: headers,
            body: .stream(ResponseBody { writer in
                for await chunk in stream {
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
                try await writer.finish(nil)
            }))
    }

    /// Waits out an injected delay; cancellation ends the wait early (the answer still goes out).
    private func pause(_ delay: Duration) async {
        guard delay > .zero else { return }
        do {
            try await time.sleep(delay)
        } catch {
            // Cancelled: answer now rather than never.
            logger.debug("delay cut short: \(error)")
        }
    }

    /// Holds a timeout fault until the hold ends, shutdown begins, or the task is cancelled.
    private func hold() async {
        var held = Duration.zero
        let step = Duration.milliseconds(50)
        while held < configuration.timeoutHold, !state.isShuttingDown, !Task.isCancelled {
            do {
                try await time.sleep(step)
            } catch {
                return
            }
            held += step
        }
    }

    // MARK: Who is calling

    private func clientName(player: String?, authorization: String?, remoteAddress: String?) -> String {
        if let player, !player.isEmpty {
            return "player:" + String(player.prefix(64))
        }
        if let token = TokenRule.bearer(authorization), !token.isEmpty {
            return TokenRule.clientName(forToken: token)
        }
        if let remoteAddress { return "address:" + remoteAddress }
        return "address:unknown"
    }

    // MARK: Responses

    static func failure(_ error: ServerError, error log: String? = nil) -> Outcome {
        var outcome = json(ByteBuffer(bytes: error.body), status: error.status)
        outcome.error = log
        if let retryAfter = error.retryAfter { outcome.headers[.retryAfter] = String(retryAfter) }
        if !error.allowedMethods.isEmpty { outcome.headers[.allow] = error.allowedMethods.joined(separator: ", ") }
        if error.code == .unauthorized { outcome.headers[.wwwAuthenticate] = "Bearer" }
        return outcome
    }

    static func json(_ body: ByteBuffer, status: Int) -> Outcome {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Outcome(status: HTTPResponse.Status(code: status), headers: headers, body: .bytes(body))
    }

    static func text(_ text: String, contentType: String) -> Outcome {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        return Outcome(status: .ok, headers: headers, body: .bytes(ByteBuffer(string: text)))
    }

    static func delayNote(_ delay: Duration) -> String {
        delay > .zero ? " after \(delay.wholeMicroseconds / 1000) ms" : ""
    }
}
