#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import Hummingbird
import HummingbirdCore
import LocationCore
import Logging
import NIOCore

/// The nearby contract and the operations routes (health, metrics, the audit, the contract
/// itself) on Hummingbird's router, with the routes ``AddedRoutes`` brings.
///
/// ``ExchangeMiddleware`` wraps every route (and the router's not-found answer): it names the
/// caller, turns a thrown ``/LocationCore/ServerError`` into its JSON answer (an unknown path a
/// 404, a known path with a method it does not take a 405 with `Allow`), gzips, and writes the
/// metrics and the access log line. ``TokenMiddleware`` guards every route but `/healthz`, the
/// contract and what an added route registers as open.
struct NearbyRoutes: Sendable {
    typealias Context = NearbyRequestContext

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

    init(
        configuration: NearbyServer.Configuration, repository: any LocationRepository, time: ServerTime, state: NearbyServerState,
        accessLog: AccessLog?, logger: Logger
    ) {
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

    /// The paths of the contract's routes.
    enum Path {
        static let nearby = "/locations/nearby"
        static let healthz = "/healthz"
        static let metrics = "/metrics"
        static let audit = "/audit"
        static let auditReset = "/audit/reset"
        /// The contract itself (OpenAPI 3), open to anyone as `/healthz` is.
        static let openAPI = "/openapi.json"
    }

    /// The responder answering every request: the router with these routes and `added`'s,
    /// each remembered in `table`.
    func responder(added: AddedRoutes?, table: RouteMethodTable) -> RouterResponder<Context> {
        let router = Router(context: Context.self, options: [.autoGenerateHeadEndpoints])
        router.add(middleware: ExchangeMiddleware(routes: self, methods: table))
        router.add(middleware: SameOriginMiddleware(host: configuration.host))
        let open = ServerRoutes(base: router, table: table)
        let guarded = ServerRoutes(base: router.group().add(middleware: TokenMiddleware(rule: tokenRule)), table: table)
        open.get(RouterPath(Path.healthz)) { request, context in await healthz(request).answer(in: context) }
        // The OpenAPI 3 document of every route (Contract/openapi.json, compiled in by the
        // EmbedTextPlugin): what schemathesis checks the server against.
        open.get(RouterPath(Path.openAPI)) { _, _ in Self.text(openAPIDocument, contentType: "application/json") }
        guarded.get(RouterPath(Path.nearby)) { request, context in await nearby(request: request, context: context) }
        guarded.get(RouterPath(Path.metrics)) { _, _ in
            Self.text(state.metricsText(backends: serving?.backendGauges() ?? []), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
        guarded.get(RouterPath(Path.audit)) { request, _ in try audit(request.uri) }
        guarded.post(RouterPath(Path.auditReset)) { request, _ in try auditReset(request.uri) }
        added?.register(open, guarded)
        table.seal()
        return router.buildResponder()
    }

    static let playerHeader = HTTPField.Name("X-Player-ID")!
    static let sessionHeader = HTTPField.Name("X-Audit-Session")!

    /// What a route led to: the answer, and what the metrics and the access log say of it.
    struct Outcome {
        var response: Response
        var notes = ExchangeNotes.Values()

        init(_ response: Response, error: String? = nil) {
            self.response = response
            notes.error = error
        }

        /// The answer, its notes handed to the access log through `context`.
        func answer(in context: Context) -> Response {
            context.notes.update { $0 = notes }
            return response
        }
    }

    /// `/healthz`: open to probes; which backend (host, port) failed and why is for callers the
    /// token admits (all of them without --token), and the log.
    private func healthz(_ request: Request) async -> Outcome {
        let detailed = tokenRule.admits(authorization: request.headers[.authorization])
        if let problem = await serving?.healthProblem() {
            let shown = detailed ? problem : "no backend answers (send the bearer token for which and why)"
            return Self.failure(ServerError(.unavailable, status: 503, shown, retryAfter: 1), error: problem)
        }
        let warnings = await serving?.healthWarnings() ?? []
        let lines =
            detailed || warnings.isEmpty
            ? warnings.map { "degraded: \($0)\n" }.joined()
            : "degraded: \(warnings.count) of the backends down (send the bearer token for which and why)\n"
        return Outcome(Self.text("ok\n" + lines, contentType: "text/plain; charset=utf-8"))
    }

    // MARK: The nearby contract

    private func nearby(request: Request, context: Context) async -> Response {
        await nearbyOutcome(request: request, channel: context.channel, client: context.client, arrival: context.arrival)
            .answer(in: context)
    }

    private func nearbyOutcome(request: Request, channel: any Channel, client: String, arrival: Date) async -> Outcome {
        // The query string is read once, for the contract's parameters and the audit's session.
        let parameters = QueryParameters.of(request.uri)
        let query: NearbyQuery
        do {
            query = try NearbyQuery(parameters: parameters, maximumRadius: configuration.maximumRadius)
        } catch {
            return Self.failure(error)
        }
        let session = request.headers[Self.sessionHeader] ?? parameters.first { $0.name == "session" }.map { String($0.value) }
        // A HEAD is sent no places: it is answered (faults included) but is not a fetch to audit.
        let (fault, audited) = arrive(
            client: client, query: query, session: session, arrival: arrival, audited: request.method != .head)
        let held = fault == .timeout
        let waitStarted = time.elapsed()
        let end = await waitOut(held ? configuration.timeoutHold : fault.delay, channel: channel, untilShutdown: held)
        var outcome: Outcome
        var failed = false
        switch (fault, end) {
        case (_, .clientLeft), (_, .cancelled):
            // Nobody to answer: the client gave up (499), or the server stopped at once, a
            // second signal cancelling the wait (444). The connection closes with nothing sent;
            // the answer below only feeds the log line, which says what the request waited for
            // and how long, and the audit has it as never answered.
            let left = end == .clientLeft
            channel.close(promise: nil)
            if left { state.metrics.recordAbandoned() }
            failed = true
            outcome = Self.failure(
                left
                    ? ServerError(.unavailable, status: Self.clientClosedStatus, "the client closed the connection")
                    : ServerError(.unavailable, status: Self.cutOffStatus, "the server stopped before answering"))
            let waited = AccessLog.milliseconds(time.elapsed() - waitStarted)
            outcome.notes.fault = (held ? "timeout" : fault.name) + (left ? ", client left after " : ", cut off by the server's stop after ") + "\(waited) ms"
        case (.timeout, .shutdown):
            // Released by the stop: come back later, elsewhere (as every answer of the drain
            // says, this one says it is the connection's last).
            outcome = Self.failure(ServerError(.unavailable, status: 503, "the server is shutting down", retryAfter: 1))
            outcome.response.headers[.connection] = "close"
            outcome.notes.fault = "timeout"
        case (.timeout, _):
            outcome = Self.failure(ServerError(.unavailable, status: 503, "request held (timeout fault)"))
            outcome.notes.fault = "timeout"
        case (.failure(let status, let delay), _):
            failed = status >= 500
            outcome = Self.failure(ServerError(
                .injectedFailure, status: status, "injected failure (--fail-rate or --script)",
                retryAfter: status == 503 || status == 429 ? 1 : nil))
            outcome.notes.fault = "fail \(status)" + Self.delayNote(delay)
        case (.body(let status, let body, let delay), _):
            failed = status >= 500
            outcome = Self.json(ByteBuffer(bytes: body), status: status)
            outcome.notes.fault = "scripted body \(status)" + Self.delayNote(delay)
        case (.answer(let delay), _):
            let answer: Result<(body: ByteBuffer, places: Int), any Error>
            do {
                answer = .success(try await nearbyBody(query))
            } catch {
                answer = .failure(error)
            }
            (outcome, failed) = placesOutcome(answer, client: client)
            if delay > .zero { outcome.notes.fault = "delay" + Self.delayNote(delay) }
        }
        return conclude(
            outcome, failed: failed, answered: !held, auditStatus: end == .clientLeft || end == .cancelled ? 0 : outcome.response.status.code,
            audited: audited)
    }

    /// What the access log and the metrics record for a request whose client left before its
    /// answer (nginx's "client closed request"); it is never sent.
    static let clientClosedStatus = 499

    /// What the access log and the metrics record for a request held or delayed by a fault when
    /// the server stopped at once (nginx's 444, "connection closed without a response"); it is
    /// never sent.
    static let cutOffStatus = 444

    /// The answer's body: written by the backend where it can (``NearbyServing``), else from its places.
    private func nearbyBody(_ query: NearbyQuery) async throws -> (body: ByteBuffer, places: Int) {
        if let serving { return try await serving.nearbyBody(near: query.center, within: query.radius, limit: query.limit) }
        let places = try await repository.fetchNearby(center: query.center, radius: query.radius, limit: query.limit)
        var writer = NearbyJSONWriter(capacity: 32 + places.count * 120)
        writer.appendLocations(places)
        return (writer.buffer, places.count)
    }

    /// A fetch the audit noted at its arrival: its ticket for the finish, and its verdict.
    private typealias AuditedFetch = (ticket: FetchAudit.Ticket, entry: FetchAudit.Entry)

    /// The fault plan's draw and, for an `audited` request, the audit's arrival, under one lock.
    private func arrive(
        client: String, query: NearbyQuery, session: String?, arrival: Date, audited: Bool
    ) -> (FaultOutcome, AuditedFetch?) {
        let (fault, audit) = state.inner.withLock { inner -> (FaultOutcome, AuditedFetch?) in
            let fault = configuration.faults.isNone ? FaultOutcome.answer(delay: .zero) : inner.faults.next()
            guard audited else { return (fault, nil) }
            let audit = inner.audit.arrive(
                client: client, center: query.center, radius: query.radius, at: arrival,
                session: session.map { String($0.prefix(128)) }, answered: fault != .timeout)
            return (fault, audit)
        }
        if let entry = audit?.entry, entry.verdict.isViolation { state.metrics.recordViolation(entry.verdict.rawValue) }
        return (fault, audit)
    }

    /// The places answer, or the 503 (with the reason logged) when the backend failed; a backend
    /// that throws a ``/LocationCore/ServerError`` chose what the client reads, and gets it.
    private func placesOutcome(
        _ answer: Result<(body: ByteBuffer, places: Int), any Error>, client: String
    ) -> (Outcome, failed: Bool) {
        switch answer {
        case .success(let (body, places)):
            var outcome = Self.json(body, status: 200)
            outcome.notes.places = places
            return (outcome, false)
        case .failure(let error as ServerError):
            return (Self.failure(error, error: error.message), true)
        case .failure(let error):
            logger.error("nearby query failed: \(error)", metadata: ["client": .string(client)])
            return (Self.failure(
                ServerError(.unavailable, status: 503, "the place database could not answer; see the server's log", retryAfter: 1),
                error: "\(error)"), true)
        }
    }

    /// The audit's finish (for a request the server meant to answer: `auditStatus`, 0 when the
    /// client left first) and its verdict on the outcome; nothing for a request not audited (HEAD).
    private func conclude(
        _ outcome: Outcome, failed: Bool, answered: Bool, auditStatus: Int,
        audited: AuditedFetch?
    ) -> Outcome {
        guard let (ticket, entry) = audited else { return outcome }
        var outcome = outcome
        if answered {
            let finished = time.now()
            state.inner.withLock { $0.audit.finish(ticket, status: auditStatus, failed: failed, at: finished) }
        }
        outcome.notes.verdict = entry.verdict.rawValue
        // The reason's text is only for the log line.
        if accessLog != nil { outcome.notes.reason = entry.reason }
        return outcome
    }

    /// How a fault's wait ended.
    enum WaitEnd: Equatable {
        /// The whole duration passed (or there was none).
        case elapsed
        /// Graceful shutdown began (only a held request waits for it).
        case shutdown
        /// The client closed its end of the connection.
        case clientLeft
        /// The request's task was cancelled (the server stopping at once): nothing is answered.
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
    /// token), else `address:IP/USER-AGENT` (without a User-Agent, `address:IP`). A header's
    /// value is cut to its first 64 characters, each byte of a space or of a character that is
    /// not visible ASCII, and each `%`, as `%XX` (``word(_:)``): one word in a log line, which a
    /// client cannot forge more of, and two players' ids never one name (`たろう` and `はなこ`
    /// were both `___`, one client to the audit).
    func clientName(_ headers: HTTPFields, remoteAddress: String?) -> String {
        if let player = headers[Self.playerHeader], !player.isEmpty {
            return "player:" + Self.word(player.unicodeScalars.prefix(64))
        }
        if let auditClientHeader, let device = headers[auditClientHeader], !device.isEmpty {
            return "device:" + Self.word(device.unicodeScalars.prefix(64))
        }
        if let token = TokenRule.bearer(headers[.authorization]), !token.isEmpty {
            return tokenRule.clientName(forToken: token)
        }
        let address = "address:" + (remoteAddress ?? "unknown")
        guard let agent = headers[.userAgent], !agent.isEmpty else { return address }
        return address + "/" + Self.word(agent.unicodeScalars.prefix(64))
    }

    /// `scalars` as one word of visible ASCII that says them all: visible ASCII but `%` as it
    /// is, every other byte of their UTF-8 as `%XX` (`iPhone%2015`, `%E3%81%9F` for `た`).
    /// Distinct texts give distinct words, and a name decoded from a URL's query gives its word again.
    static func word(_ scalars: some Sequence<Unicode.Scalar>) -> String {
        var bytes: [UInt8] = []
        for scalar in scalars {
            if (0x21...0x7E).contains(scalar.value), scalar != "%" {
                bytes.append(UInt8(scalar.value))
                continue
            }
            for byte in String(scalar).utf8 {
                bytes += [UInt8(ascii: "%"), .hexDigit(of: byte >> 4), .hexDigit(of: byte & 0xF)]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `GET /audit[?cursor=SEQ][&limit=N]`: every count, and one page of the timelines (the
    /// entries after `cursor`, at most `limit`, 1...10,000, default 1,000) with the next cursor.
    private func audit(_ uri: URI) throws(ServerError) -> Response {
        try QueryParameters.refuseMisnamed(in: uri, names: ["cursor", "limit"])
        let maximum = FetchAudit.pageSizes.maximum
        func value(_ name: String, default fallback: Int, range: ClosedRange<Int>, meaning: String) -> Result<Int, ServerError> {
            let given: Substring?
            do throws(ServerError) {
                given = try QueryParameters.only(name, in: uri)
            } catch {
                return .failure(error)
            }
            guard let text = given else { return .success(fallback) }
            guard let number = Int(text), range.contains(number) else {
                return .failure(
                    .badRequest("\(name) must be \(meaning), got '\(TextExcerpt.render(String(text), limit: 64))'", parameter: name))
            }
            return .success(number)
        }
        let cursor = value("cursor", default: 0, range: 0...Int.max, meaning: "a whole number within 0...\(Int.max) (the 'next' of the page before)")
        let limit = value("limit", default: FetchAudit.pageSizes.default, range: 1...maximum, meaning: "a whole number within 1...\(maximum)")
        switch (cursor, limit) {
        case (.failure(let error), _), (_, .failure(let error)): throw error
        case (.success(let cursor), .success(let limit)):
            return Self.json(ByteBuffer(bytes: state.auditJSON(after: cursor, limit: limit)), status: 200).response
        }
    }

    /// `POST /audit/reset[?client=NAME]`: the rule starts afresh for every client, or for the one
    /// named (as `/audit` names it); verdicts so far are kept and still count.
    private func auditReset(_ uri: URI) throws(ServerError) -> Response {
        try QueryParameters.refuseOthers(in: uri, names: ["client"], route: "POST \(Path.auditReset)")
        let client = try QueryParameters.only("client", in: uri).map(String.init)
        if let client, client.isEmpty {
            throw .badRequest("client must name a client as /audit does, e.g. player:alice", parameter: "client")
        }
        let restarted = state.inner.withLock { state in
            // As the header gave it (`player:たろう`, or /audit's name pasted into the URL, which
            // arrives decoded), else as /audit gives it (that name percent-encoded in the URL).
            guard let client else { return state.audit.restart(client: nil) }
            let word = Self.word(client.unicodeScalars)
            let restarted = state.audit.restart(client: word)
            return restarted > 0 || word == client ? restarted : state.audit.restart(client: client)
        }
        if let client, restarted == 0 {
            throw .notFound("the audit has no client \(client)", parameter: "client")
        }
        var json = JSONWriter(capacity: 64)
        json.object { json in json.member("restarted", restarted) }
        return Self.json(ByteBuffer(bytes: json.bytes), status: 200).response
    }

    // MARK: Responses

    static func failure(_ error: ServerError, error log: String? = nil) -> Outcome {
        Outcome(error.response, error: log)
    }

    static func json(_ body: ByteBuffer, status: Int) -> Outcome {
        Outcome(Response(status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: body)))
    }

    static func text(_ text: String, contentType: String) -> Response {
        Response(status: .ok, headers: [.contentType: contentType], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func delayNote(_ delay: Duration) -> String {
        delay > .zero ? " after \(delay.wholeMicroseconds / 1000) ms" : ""
    }
}
