#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
public import Hummingbird
import LocationCore
import Logging
import NIOCore
import Synchronization

/// Routes a request: the nearby contract, the operations routes, and JSON errors for the rest.
///
/// Written as one responder rather than a `Router` so that unknown paths (404) and wrong
/// methods on known paths (405, with `Allow`) get the same JSON error shape as everything else,
/// and the token rule, the audit, the metrics and the access log apply in one place.
public struct NearbyResponder: HTTPResponder {
    public typealias Context = NearbyRequestContext

    let configuration: NearbyServer.Configuration
    let search: any NearbySearching
    let time: ServerTime
    let state: NearbyServerState
    let accessLog: AccessLog?
    let logger: Logger
    let tokenRule: TokenRule
    let addedRoutes: (any AddedRoutes)?

    init(
        configuration: NearbyServer.Configuration, search: any NearbySearching, time: ServerTime, state: NearbyServerState,
        accessLog: AccessLog?, logger: Logger, addedRoutes: (any AddedRoutes)? = nil
    ) {
        self.addedRoutes = addedRoutes
        self.configuration = configuration
        self.search = search
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

    /// What one request led to, for the metrics and the access log.
    struct Outcome {
        var response: Response
        var places: Int?
        var verdict: String?
        var reason: String?
        var fault: String?
        var error: String?
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        let started = time.elapsed()
        let arrival = time.now()
        let client = clientName(request: request, context: context)
        let route = Route(rawValue: request.uri.path)
        let outcome: Outcome
        if let route {
            if request.method != .get {
                outcome = Outcome(response: Self.response(for: ServerError(
                    .methodNotAllowed, status: 405, "\(request.method) is not allowed on \(route.rawValue); use GET",
                    allowedMethods: ["GET"])))
            } else if route != .healthz, !tokenRule.admits(authorization: request.headers[.authorization]) {
                let message = request.headers[.authorization] == nil
                    ? "this server needs 'Authorization: Bearer <token>'" : "the bearer token is not this server's"
                outcome = Outcome(response: Self.response(for: ServerError(.unauthorized, status: 401, message)))
            } else {
                switch route {
                case .nearby: outcome = await nearby(request: request, client: client, arrival: arrival)
                case .healthz:
                    if let problem = await search.healthProblem() {
                        outcome = Outcome(
                            response: Self.response(for: ServerError(.unavailable, status: 503, problem, retryAfter: 1)),
                            error: problem)
                    } else {
                        let warnings = await search.healthWarnings().map { "degraded: \($0)\n" }.joined()
                        outcome = Outcome(response: Self.text("ok\n" + warnings, contentType: "text/plain; charset=utf-8"))
                    }
                case .metrics:
                    outcome = Outcome(response: Self.text(
                        state.metricsText(), contentType: "text/plain; version=0.0.4; charset=utf-8"))
                case .audit: outcome = Outcome(response: Self.json(state.auditJSON(), status: 200))
                }
            }
        } else if let addedRoutes, addedRoutes.serves(path: request.uri.path) {
            if !addedRoutes.isPublic(path: request.uri.path), !tokenRule.admits(authorization: request.headers[.authorization]) {
                let message = request.headers[.authorization] == nil
                    ? "this server needs 'Authorization: Bearer <token>'" : "the bearer token is not this server's"
                outcome = Outcome(response: Self.response(for: ServerError(.unauthorized, status: 401, message)))
            } else {
                outcome = await added(addedRoutes, request: request)
            }
        } else {
            outcome = Outcome(response: Self.response(for: ServerError(.notFound, status: 404, "no route \(request.uri.path)")))
        }
        let duration = time.elapsed() - started
        let status = outcome.response.status.code
        state.metrics.record(
            route: route?.metricsRow ?? Self.otherMetricsRow, status: status, seconds: duration.fractionalSeconds,
            places: outcome.places ?? 0)
        accessLog?.log(AccessLog.Record(
            time: arrival, method: request.method.rawValue, target: request.uri.description, status: status,
            duration: duration, client: client, places: outcome.places, verdict: outcome.verdict, reason: outcome.reason,
            fault: outcome.fault, error: outcome.error))
        return outcome.response
    }

    // MARK: The nearby contract

    private func nearby(request: Request, client: String, arrival: Date) async -> Outcome {
        let query: NearbyQuery
        do {
            query = try NearbyQuery(
                parameters: request.uri.queryParameters.lazy.map { (name: $0.key, value: $0.value) },
                maximumRadius: configuration.maximumRadius)
        } catch {
            return Outcome(response: Self.response(for: error))
        }
        let (fault, ticket, entry) = state.inner.withLock { inner in
            let fault = configuration.faults.isNone ? FaultOutcome.answer(delay: .zero) : inner.faults.next()
            let (ticket, entry) = inner.audit.arrive(
                client: client, center: query.center, radius: query.radius, at: arrival, answered: fault != .timeout)
            return (fault, ticket, entry)
        }
        if entry.verdict.isViolation { state.metrics.recordViolation(entry.verdict.rawValue) }
        var outcome: Outcome
        var failed = false
        switch fault {
        case .timeout:
            await hold()
            outcome = Outcome(response: Self.response(for: ServerError(
                .unavailable, status: 503, state.isShuttingDown ? "the server is shutting down" : "request held (timeout fault)")))
            outcome.fault = "timeout"
        case .failure(let status, let delay):
            await pause(delay)
            failed = status >= 500
            outcome = Outcome(response: Self.response(for: ServerError(
                .injectedFailure, status: status, "injected failure (--fail-rate or --script)",
                retryAfter: status == 503 ? 1 : nil)))
            outcome.fault = "fail \(status)" + Self.delayNote(delay)
        case .body(let status, let body, let delay):
            await pause(delay)
            failed = status >= 500
            outcome = Outcome(response: Self.json(body, status: status))
            outcome.fault = "scripted body \(status)" + Self.delayNote(delay)
        case .answer(let delay):
            await pause(delay)
            do {
                let (body, places) = try await search.nearbyBody(near: query.center, within: query.radius, limit: query.limit)
                outcome = Outcome(response: Self.json(buffer: body, status: 200), places: places)
            } catch {
                failed = true
                logger.error("nearby query failed: \(error)", metadata: ["client": .string(client)])
                outcome = Outcome(
                    response: Self.response(for: ServerError(
                        .unavailable, status: 503, "the place database could not answer; see the server's log",
                        retryAfter: 1)),
                    error: "\(error)")
            }
            if delay > .zero { outcome.fault = "delay" + Self.delayNote(delay) }
        }
        let status = outcome.response.status.code
        if fault != .timeout {
            let finished = time.now()
            state.inner.withLock { $0.audit.finish(ticket, status: status, failed: failed, at: finished) }
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
            return Outcome(response: Self.response(for: ServerError(
                .badRequest, status: 413,
                "the body is over \(NearbyServer.Configuration.maximumBodyBytes >> 20) MiB or could not be read: \(error)",
                parameter: "body")))
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
            return Outcome(response: Response(
                status: HTTPResponse.Status(code: answer.status), headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))))
        }
        headers[.cacheControl] = "no-cache"
        return Outcome(response: Response(
            status: HTTPResponse.Status(code: answer.status), headers: headers,
            body: ResponseBody { writer in
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

    private func clientName(request: Request, context: Context) -> String {
        if let player = request.headers[Self.playerHeader], !player.isEmpty {
            return "player:" + String(player.prefix(64))
        }
        if let token = TokenRule.bearer(request.headers[.authorization]), !token.isEmpty {
            return TokenRule.clientName(forToken: token)
        }
        if let address = context.remoteAddress { return "address:" + address }
        return "address:unknown"
    }

    // MARK: Responses

    static func response(for error: ServerError) -> Response {
        var response = json(error.body, status: error.status)
        if let retryAfter = error.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        if !error.allowedMethods.isEmpty { response.headers[.allow] = error.allowedMethods.joined(separator: ", ") }
        if error.code == .unauthorized { response.headers[.wwwAuthenticate] = "Bearer" }
        return response
    }

    static func json(_ bytes: [UInt8], status: Int) -> Response {
        json(buffer: ByteBuffer(bytes: bytes), status: status)
    }

    static func json(buffer: ByteBuffer, status: Int) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: buffer))
    }

    static func text(_ text: String, contentType: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func delayNote(_ delay: Duration) -> String {
        delay > .zero ? " after \(delay.wholeMicroseconds / 1000) ms" : ""
    }
}
