import Foundation
import LocationCore
import MapFeature
import NIOCore
import NIOEmbedded
import NIOHTTP1
@testable import Swarm
import Testing

@testable import SwarmHTTP
import LocSimTestHelpers

/// The swarm client's per-connection handler on an `EmbeddedChannel`: the request it writes, the
/// places it counts as the body streams in, and each way an answer can fail, with the event loop's
/// time (the timeout) advanced by the test.
@Suite(.timeLimit(.minutes(1)), .ownThread)
struct ResponseHandlerChannelTests {
    /// A channel with a handler, its pool, and the answers the pool was told of.
    struct Harness {
        let channel: EmbeddedChannel
        let pool: ConnectionPool
        let handler: ResponseHandler
        let answers: Locked<[SwarmAnswer]>
        let timeout: TimeAmount
        /// The pool's clock (nanoseconds), moved with the event loop's by ``advance(by:)``.
        let clock = Locked<UInt64>(0)

        /// - Parameter limit: Connections the pool may open (0: every request it is given waits).
        init(timeout: TimeAmount = .seconds(10), limit: Int = 4) throws {
            channel = EmbeddedChannel()
            self.timeout = timeout
            let clock = clock
            let shared = ConnectionPool.Shared(
                endpoint: try SwarmHTTPClient.Endpoint(url: "http://127.0.0.1:8080/game"), headers: ["Host": "127.0.0.1:8080"],
                limit: limit, timeout: timeout, now: { clock.withLock { $0 } })
            pool = ConnectionPool(loop: channel.embeddedEventLoop, shared: shared)
            handler = ResponseHandler(pool: pool)
            try channel.pipeline.syncOperations.addHandler(handler)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
            answers = Locked([])
        }

        /// A request sent now, timing out `timeout` later.
        func job(player: Int = 7) throws -> Job {
            let request = FetchRequest(
                id: 1, center: try Coordinate(latitude: 35.6812, longitude: 139.7671), radius: 5000, time: Date(timeIntervalSince1970: 0),
                reason: .first)
            let send = LiveSwarm.Send(player: player, request: request, reason: .first, micros: 0, sincePrevious: nil)
            let answers = answers
            let now = clock.withLock { $0 }
            return Job(send: send, playerID: "swarm-\(player)", started: now, deadline: now + UInt64(timeout.nanoseconds)) { answer in
                answers.withLock { $0.append(answer) }
            }
        }

        func start(player: Int = 7) throws {
            handler.start(try job(player: player))
        }

        func advance(by time: TimeAmount) {
            clock.withLock { $0 += UInt64(time.nanoseconds) }
            channel.embeddedEventLoop.advanceTime(by: time)
        }

        func answer(status: HTTPResponseStatus, body: [String], keepAlive: Bool = true) throws {
            var head = HTTPResponseHead(version: .http1_1, status: status)
            if !keepAlive { head.headers.add(name: "Connection", value: "close") }
            try channel.writeInbound(HTTPClientResponsePart.head(head))
            for part in body { try channel.writeInbound(HTTPClientResponsePart.body(ByteBuffer(string: part))) }
            try channel.writeInbound(HTTPClientResponsePart.end(nil))
        }

        var outcomes: [Result<Int, SwarmFailure>] { answers.withLock { $0.map(\.outcome) } }
    }

    @Test("The request: GET the contract's path under the server's prefix, with the player's id and the shared headers")
    func request() throws {
        let harness = try Harness()
        try harness.start(player: 42)
        guard case .head(let head) = try harness.channel.readOutbound(as: HTTPClientRequestPart.self) else {
            Issue.record("no request head")
            return
        }
        #expect(head.method == .GET)
        #expect(head.uri == "/game/locations/nearby?lat=35.6812&lng=139.7671&radius=5000.0")
        #expect(head.headers["X-Player-ID"] == ["swarm-42"])
        #expect(head.headers["Host"] == ["127.0.0.1:8080"])
        guard case .end = try harness.channel.readOutbound(as: HTTPClientRequestPart.self) else {
            Issue.record("no request end")
            return
        }
        _ = try harness.channel.finish()
    }

    @Test("Places are counted as the body arrives, however it is split")
    func countsPlacesAcrossChunks() throws {
        let harness = try Harness()
        try harness.start()
        try harness.answer(
            status: .ok,
            body: [#"{"locations":[{"id":"a","na"#, #"me":"A","lat":1,"lng":2},{"id":"b","name":"B","#, #""lat":1,"lng":2}]}"#])
        #expect(harness.outcomes == [.success(2)])
        #expect(harness.answers.withLock { $0.first?.status } == 200)
        #expect(harness.channel.isActive, "a keep-alive connection stays open for the next request")
        _ = try harness.channel.finish()
    }

    @Test("A non-200 answer is a failure with its status; a 200 that is not the contract's JSON is malformed")
    func failures() throws {
        let harness = try Harness()
        try harness.start()
        try harness.answer(status: .serviceUnavailable, body: [#"{"error":{"code":"unavailable"}}"#])
        try harness.start()
        try harness.answer(status: .ok, body: ["<html>not json</html>"])
        #expect(harness.outcomes == [.failure(.status(503)), .failure(.malformed)])
        _ = try harness.channel.finish()
    }

    @Test("No answer within the timeout: the request times out once and the connection is closed")
    func timeout() throws {
        let harness = try Harness(timeout: .seconds(2))
        try harness.start()
        harness.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1_999))
        #expect(harness.outcomes.isEmpty)
        harness.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(harness.outcomes == [.failure(.timeout)])
        #expect(!harness.channel.isActive)
    }

    @Test("A request waiting for a connection fails as a timeout at its deadline, its wait counted as latency")
    func timeoutWhileWaiting() throws {
        let harness = try Harness(timeout: .seconds(2), limit: 0)
        harness.pool.enqueue(try harness.job())
        harness.advance(by: .milliseconds(1_999))
        #expect(harness.outcomes.isEmpty)
        harness.advance(by: .milliseconds(1))
        #expect(harness.outcomes == [.failure(.timeout)])
        #expect(harness.answers.withLock { $0.map(\.latencyNanos) } == [2_000_000_000])
        // Nothing was sent for it, and the pool has nothing left to start.
        #expect(try harness.channel.readOutbound(as: HTTPClientRequestPart.self) == nil)
        _ = try harness.channel.finish()
    }

    @Test("A request whose time ran out before a connection was free is not sent; the connection takes the next one")
    func startedTooLate() throws {
        let harness = try Harness(timeout: .seconds(2))
        let late = try harness.job(player: 1)
        harness.advance(by: .seconds(3))
        harness.handler.start(late)
        #expect(harness.outcomes == [.failure(.timeout)])
        #expect(try harness.channel.readOutbound(as: HTTPClientRequestPart.self) == nil)
        // The connection went back to the pool, idle: the next request goes out on it.
        harness.pool.enqueue(try harness.job(player: 2))
        guard case .head(let head) = try harness.channel.readOutbound(as: HTTPClientRequestPart.self) else {
            Issue.record("no request head")
            return
        }
        #expect(head.headers["X-Player-ID"] == ["swarm-2"])
        _ = try harness.channel.finish()
    }

    @Test("The server closing the connection mid-answer fails the request as closed, once")
    func closedMidAnswer() throws {
        let harness = try Harness()
        try harness.start()
        try harness.channel.writeInbound(HTTPClientResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        try harness.channel.writeInbound(HTTPClientResponsePart.body(ByteBuffer(string: #"{"locations":[{"id":"a""#)))
        try harness.channel.close().wait()
        #expect(harness.outcomes == [.failure(.closed)])
    }

    @Test("Connection: close on the answer closes the channel after counting it")
    func connectionClose() throws {
        let harness = try Harness()
        try harness.start()
        try harness.answer(status: .ok, body: [#"{"locations":[]}"#], keepAlive: false)
        #expect(harness.outcomes == [.success(0)])
        #expect(!harness.channel.isActive)
    }
}
