package import LocationCore
import Atomics
import NIOCore
import NIOHTTP1
import MapFeature
import NIOPosix
import ConnectFailure
package import Swarm

/// The swarm's HTTP client: `GET /locations/nearby?lat=&lng=&radius=` with `X-Player-ID` (and
/// `Authorization: Bearer` with a token), over SwiftNIO with keep-alive HTTP/1.1 connections.
///
/// Each event-loop thread keeps a pool of at most ``Configuration/connectionsPerThread``
/// connections, one request at a time on each (no pipelining, as a phone's URLSession does);
/// requests beyond that wait in the pool's queue, and their latency includes the wait, as does
/// ``Configuration/timeout``: a request that waited past it fails as a timeout, in the queue or
/// on its connection. The body is not kept: the places are counted as it streams in. Requests are
/// spread over the threads in turn.
///
/// Built on NIOHTTP1 directly (already compiled for `locsim serve`'s Hummingbird) rather than
/// AsyncHTTPClient: no further packages to build, and no task or future chain per request.
package final class SwarmHTTPClient: SwarmTransport {
    /// Where and how to connect.
    package struct Configuration: Sendable {
        /// The server, from `http://host[:port][/prefix]`.
        package var endpoint: Endpoint
        /// Sent as `Authorization: Bearer <token>` when given.
        package var token: String?
        /// Event-loop threads (≥ 1).
        package var threads: Int
        /// Connections per thread at most (≥ 1).
        package var connectionsPerThread: Int
        /// A request without a complete answer this long after it was sent (waiting for a free
        /// connection included) fails with ``Swarm/SwarmFailure/timeout``
        /// (its connection is closed).
        package var timeout: Duration

        /// - Throws: ``LocationCore/ConfigurationError`` naming the parameter out of range.
        package init(endpoint: Endpoint, token: String? = nil, threads: Int = 1, connectionsPerThread: Int = 64, timeout: Duration = .seconds(10))
            throws(ConfigurationError)
        {
            guard (1...256).contains(threads) else {
                throw ConfigurationError(parameter: "threads", "must be between 1 and 256, got \(threads)")
            }
            guard (1...100_000).contains(connectionsPerThread) else {
                throw ConfigurationError(parameter: "connections", "must be between 1 and 100000, got \(connectionsPerThread)")
            }
            guard timeout > .zero else {
                throw ConfigurationError(parameter: "timeout", "must be > 0, got \(timeout)")
            }
            self.endpoint = endpoint
            self.token = token
            self.threads = threads
            self.connectionsPerThread = connectionsPerThread
            self.timeout = timeout
        }
    }

    /// A server address parsed from a URL: `http://127.0.0.1:8080`, `http://staging.example/game`.
    package struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        package let host: String
        package let port: Int
        /// The path before `/locations/nearby`, without a trailing slash (may be empty).
        package let pathPrefix: String

        /// - Throws: ``LocationCore/ConfigurationError`` (parameter `server`) saying what is wrong.
        package init(url: String) throws(ConfigurationError) {
            // A scheme is any case (RFC 3986 §3.1): HTTP://HOST is http://HOST.
            let scheme = url.prefix { $0 != ":" }.lowercased()
            guard scheme == "http", url.dropFirst(scheme.count).hasPrefix("://") else {
                let https = scheme == "https" ? "https is not supported (no TLS in the swarm client); " : ""
                throw ConfigurationError(parameter: "server", "\(https)expected http://HOST[:PORT][/PATH], got '\(url)'")
            }
            let rest = url.dropFirst("http://".count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            var path = String(rest.dropFirst(authority.count))
            guard !path.contains("?"), !path.contains("#") else {
                throw ConfigurationError(parameter: "server", "the URL must not have a query or fragment, got '\(url)'")
            }
            while path.hasSuffix("/") { path.removeLast() }
            // RFC 3986 path characters only (a space, `<`, `"` or `東京` go percent-encoded):
            // anything else could never be sent, and every request would fail.
            if let bad = path.unicodeScalars.first(where: { !Self.pathCharacters.contains($0) }) {
                throw ConfigurationError(
                    parameter: "server",
                    "the path may hold only URL characters (percent-encode the others), got '\(bad.escaped(asASCII: true))' in '\(TextExcerpt.render(url, limit: 64))'")
            }
            var host = Substring(authority)
            var port = 80
            if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
                guard let number = Int(authority[authority.index(after: colon)...]), (1...65_535).contains(number) else {
                    throw ConfigurationError(parameter: "server", "the port must be 1…65535, got '\(url)'")
                }
                port = number
                host = authority[..<colon]
            }
            if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
            guard !host.isEmpty, !host.contains("@") else {
                throw ConfigurationError(parameter: "server", "expected http://HOST[:PORT][/PATH], got '\(url)'")
            }
            self.host = String(host)
            self.port = port
            pathPrefix = path
        }

        package var description: String {
            "http://\(host.contains(":") ? "[\(host)]" : host):\(port)\(pathPrefix)"
        }

        /// What a URL path may hold as it is (RFC 3986 `pchar` and `/`; `%` for percent-encoding).
        static let pathCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/%".unicodeScalars)
    }

    let configuration: Configuration
    private let group: MultiThreadedEventLoopGroup
    private let pools: [ConnectionPool]
    private let counter = ManagedAtomic<Int>(0)
    /// Set once ``shutdown()`` began: later requests fail at once as ``Swarm/SwarmFailure/closed``.
    private let isClosing = ManagedAtomic<Bool>(false)
    let now: @Sendable () -> UInt64

    /// Starts the event-loop threads (no connection is made before the first request).
    ///
    /// - Parameter now: A monotonic clock in nanoseconds, for latencies (the command passes the
    ///   system's; time is injected).
    package init(configuration: Configuration, now: @escaping @Sendable () -> UInt64) {
        self.configuration = configuration
        self.now = now
        let group = MultiThreadedEventLoopGroup(numberOfThreads: configuration.threads)
        self.group = group
        var headers = HTTPHeaders()
        let endpoint = configuration.endpoint
        headers.add(name: "Host", value: endpoint.port == 80 ? endpoint.host : "\(endpoint.host):\(endpoint.port)")
        headers.add(name: "User-Agent", value: "locsim-swarm")
        headers.add(name: "Accept", value: "application/json")
        if let token = configuration.token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        let shared = ConnectionPool.Shared(
            endpoint: endpoint, headers: headers, limit: configuration.connectionsPerThread,
            timeout: .microseconds(configuration.timeout.wholeMicroseconds),
            now: now)
        pools = (0..<configuration.threads).map { _ in ConnectionPool(loop: group.next(), shared: shared) }
    }

    package func send(_ send: LiveSwarm.Send, playerID: String, completion: @escaping @Sendable (SwarmAnswer) -> Void) {
        let started = now()
        let job = Job(
            send: send, playerID: playerID, started: started,
            deadline: started &+ UInt64(configuration.timeout.wholeMicroseconds) &* 1_000, completion: completion)
        guard !isClosing.load(ordering: .acquiring) else {
            completion(SwarmAnswer(send: send, status: nil, outcome: .failure(.closed), latencyNanos: 0))
            return
        }
        let pool = pools.count == 1 ? pools[0] : pools[Int(counter.wrappingIncrementThenLoad(ordering: .relaxed).magnitude % UInt(pools.count))]
        pool.loop.execute { pool.enqueue(job) }
    }

    /// Closes every connection and stops the threads. Requests still waiting or in flight fail
    /// with ``Swarm/SwarmFailure/closed``; none is started meanwhile (no connection is opened on a
    /// loop that is stopping).
    package func shutdown() async throws {
        isClosing.store(true, ordering: .releasing)
        for pool in pools {
            try await pool.loop.submit { pool.close() }.get()
        }
        try await group.shutdownGracefully()
    }
}

/// One request on its way.
struct Job: Sendable {
    let send: LiveSwarm.Send
    let playerID: String
    /// When it was sent, and when it times out (`now`'s nanoseconds).
    let started: UInt64
    let deadline: UInt64
    let completion: @Sendable (SwarmAnswer) -> Void
}

/// The connections of one event loop. Its mutable state is touched on that loop only.
final class ConnectionPool: @unchecked Sendable {
    struct Shared: Sendable {
        let endpoint: SwarmHTTPClient.Endpoint
        let headers: HTTPHeaders
        let limit: Int
        let timeout: TimeAmount
        let now: @Sendable () -> UInt64
    }

    let loop: any EventLoop
    let shared: Shared
    private var idle: [ResponseHandler] = []
    private var open = 0
    /// Requests waiting for a connection, by number, each with the timer that fails it at its
    /// deadline, and the numbers in the order they came; a number whose request timed out
    /// meanwhile is skipped.
    private var waiting: [UInt64: (job: Job, expiry: Scheduled<Void>)] = [:]
    private var order = CircularBuffer<UInt64>()
    private var nextNumber: UInt64 = 0
    /// Set by ``close()``: nothing starts any more.
    private var closing = false

    init(loop: any EventLoop, shared: Shared) {
        self.loop = loop
        self.shared = shared
    }

    func enqueue(_ job: Job) {
        loop.preconditionInEventLoop()
        if closing {
            finish(job, status: nil, outcome: .failure(.closed))
        } else if let handler = idle.popLast() {
            handler.start(job)
        } else if open < shared.limit {
            connect(for: job)
        } else {
            let number = nextNumber
            nextNumber += 1
            // Still waiting at its deadline: it fails there, not whenever a connection frees.
            let now = shared.now()
            let left = job.deadline > now ? Int64(clamping: job.deadline - now) : 0
            let pool = self
            let expiry = loop.scheduleTask(in: .nanoseconds(left)) {
                if let expired = pool.waiting.removeValue(forKey: number) {
                    pool.finish(expired.job, status: nil, outcome: .failure(.timeout))
                }
            }
            waiting[number] = (job, expiry)
            order.append(number)
        }
    }

    /// The first waiting request whose time is not up; those whose time is up (their timers not
    /// yet run) fail as timeouts on the way.
    private func nextWaiting() -> Job? {
        while let number = order.popFirst() {
            guard let (job, expiry) = waiting.removeValue(forKey: number) else { continue }
            expiry.cancel()
            guard closing || shared.now() < job.deadline else {
                finish(job, status: nil, outcome: .failure(.timeout))
                continue
            }
            return job
        }
        return nil
    }

    /// The client is shutting down: the waiting requests fail as closed, and none starts later.
    func close() {
        loop.preconditionInEventLoop()
        closing = true
        while let job = nextWaiting() { finish(job, status: nil, outcome: .failure(.closed)) }
    }

    private func connect(for job: Job) {
        open += 1
        let pool = self
        let address = HostPort(host: shared.endpoint.host, port: shared.endpoint.port)
        ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(shared.timeout)
            .channelInitializer { channel in
                do {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ResponseHandler(pool: pool))
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
            .connect(host: shared.endpoint.host, port: shared.endpoint.port)
            .whenComplete { result in
                switch result {
                case .success(let channel):
                    do {
                        try channel.pipeline.syncOperations.handler(type: ResponseHandler.self).start(job)
                    } catch {
                        channel.close(promise: nil)
                        pool.finish(job, status: nil, outcome: .failure(.network("\(error)")))
                    }
                case .failure(let error):
                    pool.open -= 1
                    pool.finish(job, status: nil, outcome: .failure(.connect(SwarmHTTPClient.connectFailure(error, to: address))))
                    // The next waiting request tries its own connection.
                    if let next = pool.nextWaiting() { pool.enqueue(next) }
                }
            }
    }

    /// A connection is free for the next request.
    func release(_ handler: ResponseHandler) {
        if let job = nextWaiting() {
            handler.start(job)
        } else {
            idle.append(handler)
        }
    }

    /// A connection closed.
    func closed(_ handler: ResponseHandler) {
        open -= 1
        idle.removeAll { $0 === handler }
        if !closing, let job = nextWaiting() { enqueue(job) }
    }

    func finish(_ job: Job, status: Int?, outcome: Result<Int, SwarmFailure>) {
        let elapsed = shared.now() &- job.started
        job.completion(SwarmAnswer(send: job.send, status: status, outcome: outcome, latencyNanos: elapsed))
    }
}

/// One keep-alive connection: writes a request, counts the places of its answer as the body
/// streams in, and hands the connection back.
final class ResponseHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let pool: ConnectionPool
    private var context: ChannelHandlerContext?
    private var job: Job?
    private var status: Int?
    private var keepAlive = true
    private var counter = PlaceCounter()
    private var timeout: Scheduled<Void>?

    init(pool: ConnectionPool) {
        self.pool = pool
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func start(_ job: Job) {
        guard let context else {
            pool.finish(job, status: nil, outcome: .failure(.closed))
            return
        }
        let shared = pool.shared
        let now = shared.now()
        guard now < job.deadline else {
            // It waited its whole time for a connection; this one stays free for the next.
            pool.finish(job, status: nil, outcome: .failure(.timeout))
            pool.release(self)
            return
        }
        self.job = job
        status = nil
        counter = PlaceCounter()
        let center = job.send.request.center
        var headers = shared.headers
        headers.add(name: "X-Player-ID", value: job.playerID)
        let uri =
            "\(shared.endpoint.pathPrefix)/locations/nearby?lat=\(center.latitude)&lng=\(center.longitude)&radius=\(job.send.request.radius)"
        context.write(wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timeout = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(clamping: job.deadline - now))) { bound.value.timedOut() }
    }

    private func timedOut() {
        guard let job else { return }
        complete(job, outcome: .failure(.timeout))
        keepAlive = false
        context?.close(promise: nil)
    }

    private func complete(_ job: Job, outcome: Result<Int, SwarmFailure>) {
        self.job = nil
        timeout?.cancel()
        timeout = nil
        pool.finish(job, status: status, outcome: outcome)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let job else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
            keepAlive = head.isKeepAlive
        case .body(let buffer):
            if status == 200 { buffer.withUnsafeReadableBytes { counter.scan($0) } }
        case .end:
            let outcome: Result<Int, SwarmFailure>
            if status == 200 {
                outcome = counter.places.map { .success($0) } ?? .failure(.malformed)
            } else {
                outcome = .failure(.status(status ?? 0))
            }
            complete(job, outcome: outcome)
            if keepAlive {
                pool.release(self)
            } else {
                context.close(promise: nil)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let job { complete(job, outcome: .failure(.closed)) }
        self.context = nil
        pool.closed(self)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let job { complete(job, outcome: .failure(.network("\(error)"))) }
        keepAlive = false
        context.close(promise: nil)
    }
}

/// Counts the places of `{"locations":[{…},{…}]}` as bytes stream in, without keeping them, and
/// tells a body the app could not decode: one JSON object whose member `locations` is an array of
/// objects (other members are allowed, as the app's decoder ignores them). Strings (with escapes)
/// are skipped, so braces inside names do not count. Scalars are not checked beyond that: the
/// server's places are trusted to be places.
package struct PlaceCounter {
    private var depth = 0
    private var strings = JSONStringState()
    private var count = 0
    private var sawRoot = false
    private var broken = false
    /// The root object's members: a name is read next (after `{` and `,`), and how much of
    /// `"locations"` (quotes included) it matched so far (-1: not it).
    private var expectingName = false
    private var nameMatched = 0
    /// After the `:` of a member, until its value begins; whether that member is `locations`.
    private var awaitingValue = false
    private var valueIsLocations = false
    /// Inside the `locations` array, and whether one was seen at all.
    private var inLocations = false
    private var sawLocations = false

    private static let locationsName: StaticString = #""locations""#

    package init() {}

    package mutating func scan(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            let wasInString = strings.inString
            if strings.consume(byte) {
                if depth == 1, expectingName {
                    nameMatched =
                        nameMatched >= 0 && nameMatched < Self.locationsName.utf8CodeUnitCount
                            && Self.locationsName.utf8Start[nameMatched] == byte ? nameMatched + 1 : -1
                } else if !wasInString {
                    // A string value: where the `locations` array or a place is due, it is not one.
                    if depth == 1, awaitingValue {
                        awaitingValue = false
                        if valueIsLocations { broken = true }
                    } else if depth == 2, inLocations {
                        broken = true
                    }
                }
                continue
            }
            if byte.isASCIIWhitespace { continue }
            if depth == 1, awaitingValue {
                awaitingValue = false
                if valueIsLocations {
                    if byte == UInt8(ascii: "[") {
                        inLocations = true
                        sawLocations = true
                    } else {
                        broken = true
                    }
                }
            }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if depth == 0 {
                    if sawRoot || byte != UInt8(ascii: "{") { broken = true }
                    sawRoot = true
                    expectingName = true
                    nameMatched = 0
                } else if depth == 2, inLocations, byte != UInt8(ascii: "{") {
                    broken = true
                }
                depth += 1
                if depth == 3, inLocations { count += 1 }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth < 0 { broken = true }
                if depth == 1, inLocations { inLocations = false }
            case UInt8(ascii: ":") where depth == 1 && expectingName:
                expectingName = false
                awaitingValue = true
                valueIsLocations = nameMatched == Self.locationsName.utf8CodeUnitCount
            case UInt8(ascii: ",") where depth == 1:
                expectingName = true
                nameMatched = 0
            case UInt8(ascii: ","):
                break
            default:
                // A number, true, false or null where a place is due.
                if depth == 2, inLocations { broken = true }
            }
        }
    }

    /// The places, or `nil` when the body was not `{"locations":[…]}` with objects in the array.
    package var places: Int? { sawRoot && depth == 0 && !strings.inString && !broken && sawLocations ? count : nil }
}

extension SwarmHTTPClient {
    /// Why a connection to `address` failed, in the system's words (`127.0.0.1:1: Connection
    /// refused`, `no-such-host:80: no such host`: ``ConnectFailure``).
    static func connectFailure(_ error: any Error, to address: HostPort) -> String {
        "\(address): \(ConnectFailure.reason(error))"
    }
}
