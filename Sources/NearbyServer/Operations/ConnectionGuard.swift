import Atomics
import ConnectFailure
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import HummingbirdCore
package import LocationCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// How many connections the server holds open, against its cap (`--max-connections`), shared by
/// every connection's ``ConnectionGuard`` and the listener.
///
/// The first ``maximum`` connections are served. Up to ``refusalAllowance`` more are accepted
/// only to be answered 503 (`Retry-After: 1`) and closed, so a client is told rather than left
/// hanging; past that the listener stops accepting until a connection closes, so the process
/// never runs out of file descriptors (the kernel's backlog holds the rest).
package final class ConnectionLimit: Sendable {
    /// Connections served at once.
    package let maximum: Int
    /// Connections beyond ``maximum`` accepted only to be refused with a 503.
    package let refusalAllowance: Int
    private let open = ManagedAtomic<Int>(0)

    /// - Parameters:
    ///   - maximum: Connections served at once (at least 1).
    ///   - refusalAllowance: Connections beyond it answered 503 before the listener pauses; 64
    ///     by default.
    package init(maximum: Int, refusalAllowance: Int = 64) {
        self.maximum = max(1, maximum)
        self.refusalAllowance = max(0, refusalAllowance)
    }

    /// Connections open now (served and being refused).
    package var current: Int { open.load(ordering: .relaxed) }

    /// Counts a new connection; true when it is within ``maximum`` and is to be served.
    func admit() -> Bool { open.wrappingIncrementThenLoad(ordering: .relaxed) <= maximum }

    /// Counts a connection closed.
    func release() { open.wrappingDecrement(ordering: .relaxed) }

    /// Whether the listener should accept another connection.
    var acceptsMore: Bool { current < maximum + refusalAllowance }

    /// Hummingbird's hook on the listener: it stops accepting while ``acceptsMore`` is false
    /// and asks again whenever a connection closes.
    var listenerDelegate: some AvailableConnectionsDelegate { ListenerPause(limit: self) }

    private struct ListenerPause: AvailableConnectionsDelegate {
        let limit: ConnectionLimit
        // The connections are counted by their guards, which know which ones are served.
        mutating func connectionOpened() {}
        mutating func connectionClosed() {}
        func isAcceptingNewConnections() -> Bool { limit.acceptsMore }
    }
}

/// A connection the server answered and closed itself, before any route saw a request: for the
/// access log and the metrics (``NearbyServer`` records it as a request to `other`).
package struct ConnectionRejection: Sendable, Hashable {
    /// Why.
    package enum Reason: String, Sendable, Hashable, CaseIterable {
        /// Bytes that are not an HTTP/1.1 request (an unknown method, a bad character, a header
        /// over the decoder's limit): 400, or 431 for headers too large.
        case protocolError = "protocol_error"
        /// A request head not complete within the header timeout: 408.
        case headerTimeout = "header_timeout"
        /// More connections than `--max-connections`: 503 with `Retry-After: 1`.
        case overCapacity = "over_capacity"
    }

    package var reason: Reason
    /// The answer sent (its status and JSON body).
    package var error: ServerError
    /// The request's method and target when its head was read (over capacity), else nil.
    package var method: String?
    package var target: String?
    /// The peer's address (no port), when known.
    package var remoteAddress: String?
    /// How long the server waited (the header timeout), or zero.
    package var waited: Duration
}

/// What each connection's ``ConnectionGuard`` is told.
struct ConnectionGuardSettings: Sendable {
    /// The longest a request head may take, from its first byte (or from the connection's
    /// opening, for a connection over the cap) until it is complete.
    var headerTimeout: Duration
    /// The count of open connections and the cap.
    var limit: ConnectionLimit
    /// Called on the connection's event loop for each connection answered and closed here.
    var onRejection: @Sendable (ConnectionRejection) -> Void
    /// How long a connection may stay open once the server stops (`--drain-period`): its next
    /// answer within it says `Connection: close`, and a connection still idle at its end is closed.
    var drainPeriod: Duration
    /// The wall clock, for the `Date` of the answers written here (the server's ``ServerTime/now``).
    var now: @Sendable () -> Date

    init(
        headerTimeout: Duration, limit: ConnectionLimit, drainPeriod: Duration = .seconds(1), now: @escaping @Sendable () -> Date,
        onRejection: @escaping @Sendable (ConnectionRejection) -> Void
    ) {
        self.headerTimeout = headerTimeout
        self.limit = limit
        self.drainPeriod = drainPeriod
        self.now = now
        self.onRejection = onRejection
    }
}

/// Guards one HTTP/1.1 connection, between NIO's HTTP codec and Hummingbird (it goes in through
/// `HTTP1Channel.Configuration.additionalChannelHandlers`):
///
/// - **the cap**: a connection beyond ``ConnectionLimit/maximum`` is answered 503 (JSON,
///   `Retry-After: 1`, `Connection: close`) at its first request head and closed;
/// - **the header timeout**: once the first byte of a request has arrived (or at once, for a
///   connection over the cap), its head must be complete within
///   ``ConnectionGuardSettings/headerTimeout``, else 408 and close. An idle keep-alive
///   connection (no byte of a next request) is Hummingbird's idle timeout's to close;
/// - **departure**: ``departure`` tells a waiting request that its client has gone (its end of
///   the connection closed), so a held request ends at once instead of keeping the socket in
///   CLOSE-WAIT;
/// - **protocol errors**: what NIO's decoder or the HTTP Types conversion rejects (an unknown
///   method, bytes not allowed in a target, a header over 80 KB) is answered with the same JSON
///   error shape as every route's (400, or 431 for headers too large) and closed, instead of
///   Hummingbird's empty 400. When a request is still being answered, the error answer waits
///   for that answer's end;
/// - **HTTP/1.0**: it puts ``HTTP10Persistence`` before the HTTP Types codec, so an HTTP/1.0
///   request gets an HTTP/1.0 answer (never chunked; `Connection: keep-alive` when it asked for
///   it and the answer's length is known) and its connection is closed after the answer
///   otherwise;
/// - **`Expect: 100-continue`**: answered `100 Continue` as the head arrives, so a client that
///   waits for it before sending its body does not wait out its own timeout (an HTTP/1.0
///   request's `Expect` is dropped by ``HTTP10Persistence``, as RFC 9110 says to ignore it);
/// - **the drain**: at graceful shutdown Hummingbird's listener stops accepting and NIO's
///   `ServerQuiescingHelper` sends every connection a `ChannelShouldQuiesceEvent`. The guard takes
///   it in Hummingbird's place (whose connection handler would close an idle keep-alive
///   connection at once, under a client that may be sending its next request, and close a busy
///   one after an answer that did not say so): for ``ConnectionGuardSettings/drainPeriod`` the
///   connection is served as before, but its next answer says `Connection: close` and the
///   connection closes once that answer is out. A connection still idle when the period ends is
///   closed then; one with a request in progress (or a head arriving) is closed after that
///   request's answer (or the header timeout's 408). So a client sending request after request
///   loses none: it is told to reconnect, and is refused by the closed listener.
///
/// Each connection answered here is reported to ``ConnectionGuardSettings/onRejection``, which
/// logs and counts it. Time is the event loop's (`scheduleTask`), so an `EmbeddedChannel` test
/// moves it by hand.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let settings: ConnectionGuardSettings
    /// Nil until the connection is counted; then whether it is within the cap.
    private var admitted: Bool?
    /// Request heads read whose answer has not ended.
    private var answering = 0
    /// A rejection waiting for the answer in progress to end.
    private var pending: ConnectionRejection?
    /// Set once this handler has answered: everything read after is dropped.
    private var closing = false
    private var headerTimer: Scheduled<Void>?
    /// Set when the client closed its side: no request head can still come.
    private var inputClosed = false
    /// Set at the server's graceful shutdown (``ConnectionGuardSettings/drainPeriod``).
    private var draining = false
    /// The end of the drain period, while it runs.
    private var drainTimer: Scheduled<Void>?
    /// Set once the drain period has ended: the connection closes as soon as it is idle.
    private var drainOver = false
    /// Set once an answer saying `Connection: close` has been started: the connection closes
    /// when it ends, and a request that arrives meanwhile is not read.
    private var lastAnswer = false
    /// Set when a request arrived after the last answer had begun: it and all after it are dropped.
    private var discarding = false
    /// Bumped when the client leaves: it closed its side of the connection (the server's
    /// channels allow half-closure, so that is an event, not a close) or the connection ended.
    /// A request held or delayed by a fault waits on it (``NearbyRoutes``).
    let departure = ChangeSignal()

    init(settings: ConnectionGuardSettings) {
        self.settings = settings
    }

    // MARK: Life cycle

    func handlerAdded(context: ChannelHandlerContext) {
        do {
            try HTTP10Persistence.install(before: context)
        } catch {
            context.fireErrorCaught(error)
        }
        if context.channel.isActive { opened(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        opened(context: context)
        // Accepted as the listener closed at a stop: closed here, or Hummingbird's async channel
        // for it, dropped unread, traps as it becomes active (ConnectFailure's LateConnection).
        if LateConnection.closeIfListenerClosed(context) { return }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed()
        departure.bump()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            // Not passed on: Hummingbird's connection handler would close at once.
            beginDrain(context: context)
            return
        }
        if let event = event as? ChannelEvent, event == .inputClosed {
            // Nothing more will arrive: no head is due (NIO reports the end of input as a read
            // that completes, which would otherwise start the header timer on an idle connection
            // its client just closed), and a waiting request learns its client has gone.
            inputClosed = true
            stopHeaderTimer()
            departure.bump()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closed()
    }

    private func opened(context: ChannelHandlerContext) {
        guard admitted == nil else { return }
        let within = settings.limit.admit()
        admitted = within
        // A connection that will only be refused gets no idle time: its head is due at once.
        if !within { startHeaderTimer(context: context) }
    }

    private func closed() {
        headerTimer?.cancel()
        headerTimer = nil
        drainTimer?.cancel()
        drainTimer = nil
        if admitted != nil {
            settings.limit.release()
            admitted = nil
        }
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing, pending == nil, !discarding else { return }
        let part = unwrapInboundIn(data)
        if case .head = part, lastAnswer {
            // Sent before the client read the `Connection: close`: never started, so it is the
            // client's to send again on a new connection (RFC 9112, 9.3.1).
            discarding = true
            return
        }
        if case .head(let head) = part {
            stopHeaderTimer()
            if admitted == false {
                reject(
                    ConnectionRejection(
                        reason: .overCapacity,
                        error: ServerError(
                            .unavailable, status: 503,
                            "the server is at its limit of \(settings.limit.maximum) connections (--max-connections); try again",
                            retryAfter: 1),
                        method: head.method.rawValue, target: head.path, remoteAddress: Self.address(context), waited: .zero),
                    context: context)
                return
            }
            answering += 1
            if head.headerFields[.expect]?.lowercased() == "100-continue" {
                // The client waits for this before it sends the body (curl, a second, for an
                // upload over 1 MiB); the route's own answer follows as usual (a 413 included).
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            }
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Bytes arrived and no request is being answered: they are the start of a request
        // head that is not complete yet (a complete one would have been read).
        if answering == 0, !closing, !inputClosed, !lastAnswer, pending == nil, headerTimer == nil {
            startHeaderTimer(context: context)
        }
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !closing else { return }
        guard let rejection = Self.rejection(for: error, remoteAddress: Self.address(context)) else {
            context.fireErrorCaught(error)
            return
        }
        stopHeaderTimer()
        if answering > 0 {
            // Answer after the response being written ends; nothing more is read meanwhile.
            if pending == nil { pending = rejection }
        } else {
            reject(rejection, context: context)
        }
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response) where draining && !closing && answering <= 1 && response.status.kind != .informational:
            // The answer to the last request read, while draining: it says so, and is the last.
            response.headerFields[.connection] = "close"
            lastAnswer = true
            context.write(wrapOutboundOut(.head(response)), promise: promise)
        case .head(let response) where response.headerFields[.connection] == "close" && response.status.kind != .informational:
            // An answer that says it is the last (a held request's 503 at a stop): it is.
            lastAnswer = true
            context.write(data, promise: promise)
        case .head, .body:
            context.write(data, promise: promise)
        case .end:
            answering = max(0, answering - 1)
            if answering == 0, pending == nil, lastAnswer || drainOver {
                // The last answer (or the drain period ended while it was being written): close
                // once it is out.
                let written = context.eventLoop.makePromise(of: Void.self)
                if let promise { written.futureResult.cascade(to: promise) }
                context.writeAndFlush(data, promise: written)
                written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
                return
            }
            context.write(data, promise: promise)
            if answering == 0, let pending {
                self.pending = nil
                reject(pending, context: context)
            }
        }
    }

    // MARK: Draining

    private func beginDrain(context: ChannelHandlerContext) {
        guard !draining else { return }
        draining = true
        guard !closing else { return }
        if isIdle, inputClosed {
            // Its client has closed its side and nothing is being answered: nothing can come.
            context.close(promise: nil)
            return
        }
        drainTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .microseconds(settings.drainPeriod.wholeMicroseconds)) {
            [self] in
            drainTimer = nil
            drainOver = true
            if isIdle { context.close(promise: nil) }
        }
    }

    /// No request is being answered or awaits an answer, none is arriving, and this handler is
    /// not answering one itself. (A connection over the cap counts as idle until its head: it
    /// would only be refused.)
    private var isIdle: Bool {
        answering == 0 && pending == nil && !closing && (headerTimer == nil || admitted == false)
    }

    // MARK: Answering here

    private func startHeaderTimer(context: ChannelHandlerContext) {
        guard headerTimer == nil else { return }
        let timeout = settings.headerTimeout
        headerTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .microseconds(timeout.wholeMicroseconds)) { [self] in
            headerTimer = nil
            guard answering == 0, !closing, pending == nil else { return }
            reject(
                ConnectionRejection(
                    reason: .headerTimeout,
                    error: ServerError(
                        .requestTimeout, status: 408,
                        "the request head was not complete within \(Self.text(timeout)) (--header-timeout)"),
                    remoteAddress: Self.address(context), waited: timeout),
                context: context)
        }
    }

    private func stopHeaderTimer() {
        headerTimer?.cancel()
        headerTimer = nil
    }

    /// Writes the error answer with `Connection: close`, reports it, and closes once it is out.
    private func reject(_ rejection: ConnectionRejection, context: ChannelHandlerContext) {
        closing = true
        stopHeaderTimer()
        let body = rejection.error.body
        var headers = HTTPFields()
        // As every answer Hummingbird writes: RFC 9110 wants a Date on a 4xx from a server with a clock.
        headers[.date] = ServerTime.httpDate(settings.now())
        headers[.server] = NearbyServer.serverName
        headers[.contentType] = "application/json"
        headers[.contentLength] = String(body.count)
        headers[.connection] = "close"
        if let retryAfter = rejection.error.retryAfter { headers[.retryAfter] = String(retryAfter) }
        let head = HTTPResponse(status: HTTPResponse.Status(code: rejection.error.statusCode), headerFields: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: body))), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        settings.onRejection(rejection)
    }

    /// The answer to an error from the decoder or the conversion to HTTP Types; nil for errors
    /// that are not about the request's bytes (they go on to Hummingbird).
    static func rejection(for error: any Error, remoteAddress: String?) -> ConnectionRejection? {
        let serverError: ServerError
        if let parse = error as? HTTPParserError {
            switch parse {
            case .headerOverflow:
                serverError = ServerError(
                    .headersTooLarge, status: 431, "the request's headers are over the server's limit of 80 KB",
                    parameter: "headers")
            case .invalidMethod:
                serverError = .badRequest("not an HTTP method this server knows", parameter: "method")
            case .invalidURL, .invalidPath, .invalidQueryString, .invalidFragment, .invalidHost, .invalidPort:
                serverError = .badRequest("the request target is not a valid URL (\(parse))", parameter: "target")
            case .invalidHeaderToken:
                serverError = .badRequest("a header is not valid HTTP (\(parse))", parameter: "headers")
            case .invalidContentLength, .unexpectedContentLength:
                // The parser says "invalid character" for a Content-Length beside Transfer-Encoding
                // too: name every way the length can be unclear, not the parser's guess.
                serverError = .badRequest(
                    "the request's length is unclear: a Content-Length that is not one whole number, given twice "
                        + "with different values, or beside Transfer-Encoding (RFC 9112 §6.3)",
                    parameter: "headers")
            case .invalidVersion:
                serverError = .badRequest("not HTTP/1.x", parameter: "version")
            default:
                serverError = ServerError(.badRequest, status: 400, "not a valid HTTP/1.1 request (\(parse))")
            }
        } else if error is HTTP1TypeConversionError {
            // The head parsed but is not a valid HTTP request (no path, a method HTTP Types refuses).
            serverError = ServerError(.badRequest, status: 400, "not a valid HTTP request head (\(error))")
        } else {
            return nil
        }
        return ConnectionRejection(reason: .protocolError, error: serverError, remoteAddress: remoteAddress, waited: .zero)
    }

    private static func address(_ context: ChannelHandlerContext) -> String? {
        context.channel.remoteAddress?.ipAddress
    }

    private static func text(_ duration: Duration) -> String {
        let ms = duration.wholeMicroseconds / 1000
        return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms"
    }
}
