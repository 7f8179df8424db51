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
    /// The team's own device header (`--audit-client-header`), which names a client after
    /// `X-Player-ID`.
    let auditClientHeader: HTTPField.Name?
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
        self.tokenRule = TokenRule(token: configuration.token, acceptAnyToken: configuration.acceptAnyToken)
        self.auditClientHeader = configuration.auditClientHeader.flatMap { HTTPField.Name($0) }
    }

    /// The routes and the name each has in metrics.
    enum Route: String, CaseIterable {
        case nearby = "/locations/nearby"
        case healthz = "/healthz"
        case metrics = "/metrics"
        case audit = "/audit"
        case auditReset = "/audit/reset"
        /// The contract itself (OpenAPI 3), open to anyone as `/healthz` is.
        case openAPI = "/openapi.json"

        /// The methods the route answers: GET (and HEAD), or POST for the one that changes state.
        var methods: [HTTPRequest.Method] { self == .auditReset ? [.post] : [.get, .head] }

        /// Whether the route answers without the token: probes and the contract.
        var isPublic: Bool { self == .healthz || self == .openAPI }

        /// The route's row in ``ServerMetrics``' table.
        var metricsRow: Int {
            switch self {
            case .audit, .auditReset: 0
            case .healthz: 1
            case .nearby: 2
            case .metrics: 3
            case .openAPI: NearbyResponder.otherMetricsRow
            }
        }
    }

    /// The OpenAPI 3 document of every route (Contract/openapi.json, compiled into the binary):
    /// what `GET /openapi.json` answers and schemathesis checks the server against.
    static let openAPIDocument = String(decoding: PackageResources.openapi_json, as: UTF8.self)

    /// ``ServerMetrics``' row for unknown paths.
    static let otherMetricsRow = ServerMetrics.routes.count - 1

    static let playerHeader = HTTPField.Name("X-Player-ID")!
    static let sessionHeader = HTTPField.Name("X-Audit-Session")!
    /// What an event stream's client sends to resume (the Server-Sent Events reconnection).
    static let lastEventIDHeader = HTTPField.Name("Last-Event-ID")!

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

        /// The answer to a HEAD request: the same status and headers (`Content-Length` too,
        /// set when the body was made), no body.
        mutating func dropBody() {
            body = .bytes(ByteBuffer())
        }

        /// gzips a whole body of at least ``ResponseCompression/minimumBytes`` when the client
        /// accepts it (`acceptEncoding`), and says `Vary: Accept-Encoding` on every answer that
        /// could have been, so a cache keeps the two apart.
        ///
        /// - Throws: `CompressNIOError` when zlib fails; the answer is then unchanged.
        mutating func compress(acceptEncoding: String?) throws {
            guard case .bytes(let bytes) = body, bytes.readableBytes >= ResponseCompression.minimumBytes,
                headers[.contentEncoding] == nil
            else { return }
            headers[.vary] = headers[.vary].map { $0 + ", Accept-Encoding" } ?? "Accept-Encoding"
            guard ResponseCompression.acceptsGzip(acceptEncoding) else { return }
            let compressed = try ResponseCompression.gzip(bytes)
            body = .bytes(compressed)
            headers[.contentEncoding] = "gzip"
            headers[.contentLength] = String(compressed.readableBytes)
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
        let client = clientName(request.headers, remoteAddress: context.remoteAddress)
        let route = Route(rawValue: request.uri.path)
        // HEAD is GET without the body (RFC 9110 §9.3.2): the same work, headers and length.
        let isHead = request.method == .head
        var outcome: Outcome
        if let route {
            if !route.methods.contains(request.method) {
                let allowed = route.methods.map(\.rawValue)
                outcome = Self.failure(ServerError(
                    .methodNotAllowed, status: 405,
                    "\(request.method) is not allowed on \(route.rawValue); use \(allowed.joined(separator: " or "))",
                    allowedMethods: allowed))
            } else if !route.isPublic, !tokenRule.admits(authorization: request.headers[.authorization]) {
                outcome = unauthorized(authorization: request.headers[.authorization])
            } else {
                switch route {
                case .nearby: outcome = await nearby(request: request, channel: context.channel, client: client, arrival: arrival)
                case .healthz:
                    // /healthz is open to probes; which backend (host, port) failed and why is
                    // for callers the token admits (all of them without --token), and the log.
                    let detailed = tokenRule.admits(authorization: request.headers[.authorization])
                    if let problem = await serving?.healthProblem() {
                        let shown = detailed ? problem : "no backend answers (send the bearer token for which and why)"
                        outcome = Self.failure(ServerError(.unavailable, status: 503, shown, retryAfter: 1), error: problem)
                    } else {
                        let warnings = await serving?.healthWarnings() ?? []
                        let lines =
                            detailed || warnings.isEmpty
                            ? warnings.map { "degraded: \($0)\n" }.joined()
                            : "degraded: \(warnings.count) of the backends down (send the bearer token for which and why)\n"
                        outcome = Self.text("ok\n" + lines, contentType: "text/plain; charset=utf-8")
                    }
                case .metrics:
                    outcome = Self.text(state.metricsText(), contentType: "text/plain; version=0.0.4; charset=utf-8")
                case .openAPI: outcome = Self.text(Self.openAPIDocument, contentType: "application/json")
                case .audit: outcome = audit(request.uri)
                case .auditReset: outcome = auditReset(request.uri)
                }
            }
        } else if let addedRoutes, addedRoutes.serves(path: request.uri.path) {
            if !addedRoutes.isPublic(path: request.uri.path), !tokenRule.admits(authorization: request.headers[.authorization]) {
                outcome = unauthorized(authorization: request.headers[.authorization])
            } else {
                outcome = await added(addedRoutes, request: request, isHead: isHead)
            }
        } else {
            outcome = Self.failure(ServerError(.notFound, status: 404, "no route \(request.uri.path)"))
        }
        do {
            try outcome.compress(acceptEncoding: request.headers[.acceptEncoding])
        } catch {
            // zlib failing is the machine's trouble (memory), not the client's: it gets the plain body.
            logger.error("gzip failed, answering uncompressed: \(error)", metadata: ["client": .string(client)])
        }
        if isHead { outcome.dropBody() }
        record(
            outcome, route: route, method: request.method.rawValue, uri: request.uri, client: client, arrival: arrival,
            started: started)
        return outcome.response
    }

    /// The access-log line and the metrics for a connection its ``ConnectionGuard`` answered and
    /// closed itself (counted under `other`).
    func record(_ rejection: ConnectionRejection) {
        state.metrics.recordRejection(rejection.reason)
        state.metrics.record(
            route: Self.otherMetricsRow, status: rejection.error.status, seconds: rejection.waited.fractionalSeconds, places: 0)
        accessLog?.log(AccessLog.Record(
            time: time.now(), method: rejection.method ?? "-", target: rejection.target ?? "-", status: rejection.error.status,
            duration: rejection.waited, client: "address:" + (rejection.remoteAddress ?? "unknown"),
            error: "\(rejection.reason.rawValue): \(rejection.error.message)"))
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

    private func nearby(request: Request, channel: any Channel, client: String, arrival: Date) async -> Outcome {
        let query: NearbyQuery
        do {
            query = try nearbyQuery(request.uri)
        } catch {
            return Self.failure(error)
        }
        let session = request.headers[Self.sessionHeader] ?? QueryParameters.first("session", in: request.uri).map(String.init)
        let (fault, ticket, entry) = arrive(client: client, query: query, session: session, arrival: arrival)
        let held = fault == .timeout
        let waitStarted = time.elapsed()
        let end = await waitOut(held ? configuration.timeoutHold : fault.delay, channel: channel, untilShutdown: held)
        var outcome: Outcome
        var failed = false
        switch (fault, end) {
        case (_, .clientLeft):
            // Nobody to answer: close the connection (nothing is sent; the answer below only
            // feeds the log line, which says what the client waited for and how long).
            channel.close(promise: nil)
            state.metrics.recordAbandoned()
            failed = true
            outcome = Self.failure(ServerError(.unavailable, status: Self.clientClosedStatus, "the client closed the connection"))
            let waited = AccessLog.milliseconds(time.elapsed() - waitStarted)
            outcome.fault = (held ? "timeout" : fault.name) + ", client left after \(waited) ms"
        case (.timeout, _):
            outcome = Self.failure(ServerError(
                .unavailable, status: 503, end == .shutdown ? "the server is shutting down" : "request held (timeout fault)"))
            outcome.fault = "timeout"
        case (.failure(let status, let delay), _):
            failed = status >= 500
            outcome = Self.failure(ServerError(
                .injectedFailure, status: status, "injected failure (--fail-rate or --script)",
                retryAfter: status == 503 || status == 429 ? 1 : nil))
            outcome.fault = "fail \(status)" + Self.delayNote(delay)
        case (.body(let status, let body, let delay), _):
            failed = status >= 500
            outcome = Self.json(ByteBuffer(bytes: body), status: status)
            outcome.fault = "scripted body \(status)" + Self.delayNote(delay)
        case (.answer(let delay), _):
            let answer: Result<(body: ByteBuffer, places: Int), any Error>
            do {
                answer = .success(try await nearbyBody(query))
            } catch {
                answer = .failure(error)
            }
            (outcome, failed) = placesOutcome(answer, client: client)
            if delay > .zero { outcome.fault = "delay" + Self.delayNote(delay) }
        }
        return conclude(
            outcome, failed: failed, answered: !held, auditStatus: end == .clientLeft ? 0 : outcome.status.code, ticket: ticket,
            entry: entry)
    }

    /// What the access log and the metrics record for a request whose client left before its
    /// answer (nginx's "client closed request"); it is never sent.
    static let clientClosedStatus = 499

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
            parameters: uri.queryParameters.lazy.map { (name: QueryParameters.name($0.key), value: $0.value) },
            maximumRadius: configuration.maximumRadius)
    }

    /// The fault plan's draw and the audit's arrival, under one lock.
    private func arrive(
        client: String, query: NearbyQuery, session: String?, arrival: Date
    ) -> (FaultOutcome, FetchAudit.Ticket, FetchAudit.Entry) {
        let (fault, ticket, entry) = state.inner.withLock { inner in
            let fault = configuration.faults.isNone ? FaultOutcome.answer(delay: .zero) : inner.faults.next()
            let (ticket, entry) = inner.audit.arrive(
                client: client, center: query.center, radius: query.radius, at: arrival,
                session: session.map { String($0.prefix(128)) }, answered: fault != .timeout)
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

    /// The audit's finish (for a request the server meant to answer: `auditStatus`, 0 when the
    /// client left first) and its verdict on the outcome.
    private func conclude(
        _ outcome: Outcome, failed: Bool, answered: Bool, auditStatus: Int, ticket: FetchAudit.Ticket, entry: FetchAudit.Entry
    ) -> Outcome {
        var outcome = outcome
        if answered {
            let finished = time.now()
            state.inner.withLock { $0.audit.finish(ticket, status: auditStatus, failed: failed, at: finished) }
        }
        outcome.verdict = entry.verdict.rawValue
        // The reason's text is only for the log line.
        if accessLog != nil { outcome.reason = entry.reason }
        return outcome
    }

    // MARK: Added routes

    private func added(_ routes: any AddedRoutes, request: Request, isHead: Bool) async -> Outcome {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: NearbyServer.Configuration.maximumBodyBytes)
        } catch is NIOTooManyBytesError {
            return Self.failure(ServerError(
                .payloadTooLarge, status: 413, "the body is over \(NearbyServer.Configuration.maximumBodyBytes >> 20) MiB",
                parameter: "body"))
        } catch {
            return Self.failure(ServerError(.badRequest, status: 400, "the body could not be read: \(error)", parameter: "body"))
        }
        // The routes answer HEAD as GET; the body is dropped here.
        let answer = await routes.respond(to: AddedRouteRequest(
            method: request.method.rawValue, path: request.uri.path,
            query: QueryParameters.of(request.uri).map { (name: String($0.name), value: String($0.value)) },
            contentType: request.headers[.contentType], body: Array(buffer: body), lastEventID: request.headers[Self.lastEventIDHeader]))
        var headers = HTTPFields()
        headers[.contentType] = answer.contentType
        if !answer.allow.isEmpty {
            let allow = answer.allow.contains("GET") && !answer.allow.contains("HEAD") ? answer.allow + ["HEAD"] : answer.allow
            headers[.allow] = allow.joined(separator: ", ")
        }
        if answer.status == 401 { headers[.wwwAuthenticate] = "Bearer" }
        if isHead, let stream = answer.stream {
            // No one will read this stream: end it now, as a client that leaves does.
            await Self.cancelReading(stream)
            headers[.cacheControl] = "no-cache"
            return Outcome(status: HTTPResponse.Status(code: answer.status), headers: headers, body: .bytes(ByteBuffer()))
        }
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

    /// Starts reading `stream` and cancels the reader, which ends the stream for its producer.
    private static func cancelReading(_ stream: any AsyncSequence<[UInt8], Never> & Sendable) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in stream {}
            }
            group.cancelAll()
        }
    }

    /// How a fault's wait ended.
    enum WaitEnd: Equatable {
        /// The whole duration passed (or there was none).
        case elapsed
        /// Graceful shutdown began (only a held request waits for it).
        case shutdown
        /// The client closed its end of the connection.
        case clientLeft
        /// The request's task was cancelled: answer now rather than never.
        case cancelled
    }

    /// Waits `duration` on the injected clock (a delay, or a timeout fault's hold), ending early
    /// when the client leaves (its connection's ``ConnectionGuard/departure``) or, with
    /// `untilShutdown`, when graceful shutdown begins.
    private func waitOut(_ duration: Duration, channel: any Channel, untilShutdown: Bool) async -> WaitEnd {
        guard duration > .zero else { return .elapsed }
        let departure = await Self.departure(of: channel, logger: logger)
        let time = self.time
        let shutdown = state.shutdown
        do {
            return try await withThrowingTaskGroup(of: WaitEnd.self) { group in
                group.addTask {
                    try await time.sleep(duration)
                    return .elapsed
                }
                if untilShutdown {
                    group.addTask {
                        await shutdown.wait(after: 0)
                        return .shutdown
                    }
                }
                if let departure {
                    group.addTask {
                        await departure.wait(after: 0)
                        return .clientLeft
                    }
                }
                defer { group.cancelAll() }
                return try await group.next() ?? .elapsed
            }
        } catch {
            logger.debug("fault wait cut short: \(error)")
            return .cancelled
        }
    }

    /// The departure signal of the connection's guard; nil when the pipeline has none (the
    /// requests of Hummingbird's in-process router tests have no connection to leave).
    private static func departure(of channel: any Channel, logger: Logger) async -> ChangeSignal? {
        do {
            return try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.handler(type: ConnectionGuard.self).departure
            }.get()
        } catch ChannelPipelineError.notFound {
            // No guard to ask (Hummingbird's in-process router tests; or a connection already
            // closed, whose handlers are removed and whose socket is already released).
            return nil
        } catch {
            // The look-up failed (a test channel's loop, a loop shutting down): nothing to watch.
            logger.debug("no connection to watch: \(error)")
            return nil
        }
    }

    // MARK: Who is calling

    /// The audit's and the log's name for the caller: `player:ID` (`X-Player-ID`), else
    /// `device:VALUE` (the `--audit-client-header`), else `token#…` (a keyed hash of the bearer
    /// token), else `address:IP/USER-AGENT` (the User-Agent's first 64 characters, each space or
    /// character that is not visible ASCII as `_`; without one, `address:IP`).
    private func clientName(_ headers: HTTPFields, remoteAddress: String?) -> String {
        if let player = headers[Self.playerHeader], !player.isEmpty {
            return "player:" + String(player.prefix(64))
        }
        if let auditClientHeader, let device = headers[auditClientHeader], !device.isEmpty {
            return "device:" + Self.visible(device)
        }
        if let token = TokenRule.bearer(headers[.authorization]), !token.isEmpty {
            return tokenRule.clientName(forToken: token)
        }
        let address = "address:" + (remoteAddress ?? "unknown")
        guard let agent = headers[.userAgent], !agent.isEmpty else { return address }
        return address + "/" + Self.visible(agent)
    }

    /// The first 64 characters of a header value, each space or character that is not visible
    /// ASCII replaced by `_`: one word in a log line.
    private static func visible(_ value: String) -> String {
        String(String.UnicodeScalarView(value.unicodeScalars.prefix(64).map { (0x21...0x7E).contains($0.value) ? $0 : "_" }))
    }

    /// `GET /audit[?cursor=SEQ][&limit=N]`: every count, and one page of the timelines (the
    /// entries after `cursor`, at most `limit`, 1...10,000, default 1,000) with the next cursor.
    private func audit(_ uri: URI) -> Outcome {
        let parameters = QueryParameters.of(uri)
        let maximum = FetchAudit.pageSizes.maximum
        func value(_ name: String, default fallback: Int, range: ClosedRange<Int>, meaning: String) -> Result<Int, ServerError> {
            guard let text = parameters.first(where: { $0.name == name })?.value else { return .success(fallback) }
            guard let number = Int(text), range.contains(number) else {
                return .failure(
                    .badRequest("\(name) must be \(meaning), got '\(TextExcerpt.render(String(text), limit: 64))'", parameter: name))
            }
            return .success(number)
        }
        let cursor = value("cursor", default: 0, range: 0...Int.max, meaning: "a whole number >= 0 (the 'next' of the page before)")
        let limit = value("limit", default: FetchAudit.pageSizes.default, range: 1...maximum, meaning: "a whole number within 1...\(maximum)")
        switch (cursor, limit) {
        case (.failure(let error), _), (_, .failure(let error)): return Self.failure(error)
        case (.success(let cursor), .success(let limit)):
            return Self.json(ByteBuffer(bytes: state.auditJSON(after: cursor, limit: limit)), status: 200)
        }
    }

    /// `POST /audit/reset[?client=NAME]`: the rule starts afresh for every client, or for the one
    /// named (as `/audit` names it); verdicts so far are kept and still count.
    private func auditReset(_ uri: URI) -> Outcome {
        let client = QueryParameters.first("client", in: uri).map(String.init)
        if let client, client.isEmpty {
            return Self.failure(.badRequest("client must name a client as /audit does, e.g. player:alice", parameter: "client"))
        }
        let restarted = state.inner.withLock { $0.audit.restart(client: client) }
        if let client, restarted == 0 {
            return Self.failure(ServerError(.notFound, status: 404, "the audit has no client \(client)", parameter: "client"))
        }
        var json = JSONWriter(capacity: 64)
        json.object { json in json.member("restarted", restarted) }
        return Self.json(ByteBuffer(bytes: json.bytes), status: 200)
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
