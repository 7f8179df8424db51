import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import LocationCore
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
@testable import NearbyServer
import Testing
import LocSimTestHelpers

/// `ConnectionGuard` on an `EmbeddedChannel` behind NIO's real HTTP/1 decoder and the HTTP Types
/// codec and before Hummingbird's connection handler, as `HTTP1Channel` sets them up: bytes in,
/// bytes out, time moved by hand.
@Suite(.timeLimit(.minutes(1)), .ownThread) struct ConnectionGuardTests {
    /// The wall clock the guarded connections are given.
    static let now = Date(timeIntervalSince1970: 1_796_515_200.75)

    /// One guarded connection and what it reported.
    final class Connection {
        let channel = EmbeddedChannel()
        let rejections: Locked<[ConnectionRejection]>
        let guardHandler: ConnectionGuard

        init(
            limit: ConnectionLimit = ConnectionLimit(maximum: 10), headerTimeout: Duration = .seconds(10),
            drainPeriod: Duration = .seconds(1)
        ) throws {
            let rejections = Locked<[ConnectionRejection]>([])
            self.rejections = rejections
            guardHandler = ConnectionGuard(settings: ConnectionGuardSettings(
                headerTimeout: headerTimeout, limit: limit, drainPeriod: drainPeriod, now: { ConnectionGuardTests.now },
                onRejection: { rejection in rejections.withLock { $0.append(rejection) } }))
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false)
            try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try channel.pipeline.syncOperations.addHandler(guardHandler)
            // Hummingbird's own, behind the guard as in HTTP1Channel (no idle timeout here): on a
            // quiesce event that reached it, it would close an idle connection at once.
            try channel.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(logger: Logger(label: "test")))
            try channel.connect(to: SocketAddress(ipAddress: "192.0.2.7", port: 40_000)).wait()
        }

        func send(_ text: String) throws { try channel.writeInbound(ByteBuffer(string: text)) }
        func send(_ bytes: [UInt8]) throws { try channel.writeInbound(ByteBuffer(bytes: bytes)) }

        /// The request parts that reached Hummingbird's side of the guard.
        func passedOn() throws -> [HTTPRequestPart] {
            var parts: [HTTPRequestPart] = []
            while let part = try channel.readInbound(as: HTTPRequestPart.self) { parts.append(part) }
            return parts
        }

        /// Everything written to the socket so far, as text.
        func written() throws -> String {
            var text = ""
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
            return text
        }

        /// Hummingbird's side answering the request in progress.
        func answer(status: HTTPResponse.Status = .ok, body: String = "ok\n") throws {
            try answerHead(status: status, length: body.utf8.count)
            try answerRest(body: body)
        }

        /// The head of an answer (`Content-Length: length`).
        func answerHead(status: HTTPResponse.Status = .ok, length: Int = 3) throws {
            var headers = HTTPFields()
            headers[.contentLength] = String(length)
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: status, headerFields: headers)))
        }

        /// The body and the end of an answer whose head is out.
        func answerRest(body: String = "ok\n") throws {
            try channel.writeOutbound(HTTPResponsePart.body(ByteBuffer(string: body)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }

        /// What NIO's `ServerQuiescingHelper` sends every open connection at graceful shutdown.
        func quiesce() { channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }

        func advance(_ amount: TimeAmount) { channel.embeddedEventLoop.advanceTime(by: amount) }
    }

    /// The status line, the headers (names lowercased) and the JSON error of an answer.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var error: ErrorBody.Inner

        init(_ text: String) throws {
            let parts = text.components(separatedBy: "\r\n\r\n")
            let lines = parts[0].components(separatedBy: "\r\n")
            status = Int(lines[0].split(separator: " ")[1]) ?? 0
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                let colon = try #require(line.firstIndex(of: ":"))
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            self.headers = headers
            let body = parts.dropFirst().joined(separator: "\r\n\r\n")
            #expect(headers["content-length"] == String(body.utf8.count))
            error = try JSONDecoder().decode(ErrorBody.self, from: Data(body.utf8)).error
        }
    }

    /// Requests NIO's decoder refuses, by name (the 90 KB one would flood the test's name).
    static let refused = [
        "method FOO": "FOO / HTTP/1.1\r\nHost: a\r\n\r\n",
        "a control byte in the target": "GET /\u{01}x HTTP/1.1\r\nHost: a\r\n\r\n",
        "a space in a header name": "GET / HTTP/1.1\r\nBad Header: a\r\n\r\n",
        "a 90 KB header": "GET / HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 90_000) + "\r\n\r\n",
        "Content-Length beside Transfer-Encoding": "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
        "two different Content-Lengths": "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        "a Content-Length that is no number": "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1x\r\n\r\nab",
    ]

    @Test("A request that is not HTTP/1.1 is a JSON 400 naming what is wrong, reported, and the connection closes", arguments: [
        ("method FOO", 400, "method"),
        ("a control byte in the target", 400, "target"),
        ("a space in a header name", 400, "headers"),
        ("a 90 KB header", 431, "headers"),
        ("Content-Length beside Transfer-Encoding", 400, "headers"), ("two different Content-Lengths", 400, "headers"),
        ("a Content-Length that is no number", 400, "headers"),
    ])
    func protocolErrors(name: String, status: Int, parameter: String) throws {
        let connection = try Connection()
        try connection.send(try #require(Self.refused[name]))
        #expect(try connection.passedOn().isEmpty)
        let answer = try Answer(try connection.written())
        #expect(answer.status == status)
        #expect(answer.headers["connection"] == "close")
        #expect(answer.headers["content-type"] == "application/json")
        // Dated and signed as every answer Hummingbird writes (RFC 9110 wants a Date on a 4xx).
        #expect(answer.headers["date"] == ServerTime.httpDate(Self.now))
        #expect(answer.headers["server"] == "locsim")
        #expect(answer.error.parameter == parameter)
        if name.contains("Content-Length") {
            // Not the parser's "invalid character in content-length header" for a well-formed number.
            #expect(answer.error.message.hasPrefix("the request's length is unclear"), "\(answer.error.message)")
        }
        #expect(!connection.channel.isActive)
        let rejections = connection.rejections.withLock { $0 }
        #expect(rejections.map(\.reason) == [.protocolError])
        #expect(rejections.first?.error.statusCode == status)
        #expect(rejections.first?.remoteAddress == "192.0.2.7")
    }

    @Test("The Date header is RFC 9110's IMF-fixdate, as Foundation's formatter writes it, to the second below")
    func httpDate() {
        let reference = DateFormatter()
        reference.locale = Locale(identifier: "en_US_POSIX")
        reference.timeZone = TimeZone(identifier: "GMT")
        reference.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        // Every weekday and month, single-digit days and hours, leap days, a second's last instant.
        var seconds = 784_111_777.0  // 1994-11-06 08:49:37, RFC 9110's own example
        for _ in 0..<400 {
            let date = Date(timeIntervalSince1970: seconds + 0.999)
            #expect(ServerTime.httpDate(date) == reference.string(from: Date(timeIntervalSince1970: seconds)))
            seconds += 3 * 86_400 + 3_601 * 7 + 13
        }
        // Before 1970 the day and the second count down: the second below is still the one shown.
        for seconds in [-1.5, -86_400, -86_400 * 400 - 7.25] {
            #expect(ServerTime.httpDate(Date(timeIntervalSince1970: seconds)) == reference.string(from: Date(timeIntervalSince1970: seconds.rounded(.down))))
        }
    }

    @Test("A target that is not UTF-8 is a JSON 400 too")
    func nonUTF8() throws {
        let connection = try Connection()
        try connection.send(Array("GET /locations/nearby?lat=".utf8) + [0xFF, 0xFE] + Array(" HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        let answer = try Answer(try connection.written())
        #expect(answer.status == 400)
        #expect(answer.error.code == "bad_request")
        #expect(!connection.channel.isActive)
    }

    @Test("A request head not complete within the header timeout of its first byte is a 408; a complete one passes")
    func headerTimeout() throws {
        let connection = try Connection(headerTimeout: .seconds(10))
        // Idle before the first byte: the header clock has not started (idle is Hummingbird's).
        connection.advance(.seconds(60))
        #expect(try connection.written().isEmpty)
        try connection.send("GET /healthz HTTP/1.1\r\nHo")
        connection.advance(.milliseconds(9_999))
        #expect(try connection.written().isEmpty)
        #expect(connection.channel.isActive)
        connection.advance(.milliseconds(1))
        let answer = try Answer(try connection.written())
        #expect(answer.status == 408)
        #expect(answer.error.code == "request_timeout")
        #expect(!connection.channel.isActive)
        #expect(connection.rejections.withLock { $0.map(\.reason) } == [.headerTimeout])
        #expect(connection.rejections.withLock { $0.first?.waited } == .seconds(10))
    }

    @Test("Requests whose heads arrive in time are passed on, one after another on a keep-alive connection")
    func keepAlive() throws {
        let connection = try Connection(headerTimeout: .seconds(10))
        for _ in 0..<3 {
            try connection.send("GET /healthz HTTP/1.1\r\n")
            connection.advance(.seconds(9))
            try connection.send("Host: a\r\n\r\n")
            let parts = try connection.passedOn()
            #expect(parts.count == 2)
            // Answering takes longer than the header timeout: that is not the head's time.
            connection.advance(.seconds(30))
            try connection.answer()
            #expect(try connection.written().hasPrefix("HTTP/1.1 200 OK"))
        }
        #expect(connection.channel.isActive)
        #expect(connection.rejections.withLock { $0.isEmpty })
    }

    @Test("Expect: 100-continue is answered 100 Continue as the head arrives, before the body is sent; never to HTTP/1.0")
    func expectContinue() throws {
        let connection = try Connection()
        try connection.send("POST /players HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        #expect(try connection.written() == "HTTP/1.1 100 Continue\r\n\r\n")
        try connection.send("hello")
        #expect(try connection.passedOn().count == 3, "head, body, end")
        try connection.answer(status: .created)
        #expect(try connection.written().hasPrefix("HTTP/1.1 201 Created"))
        let older = try Connection()
        try older.send("POST /players HTTP/1.0\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        #expect(try older.written().isEmpty)
        guard case .head(let head) = try #require(try older.passedOn().first) else { return }
        #expect(head.headerFields[.expect] == nil)
    }

    @Test("An HTTP/1.0 request asks to close after its answer unless it says keep-alive; HTTP/1.1 is left as sent", arguments: [
        ("GET /healthz HTTP/1.0\r\n\r\n", "close"),
        ("GET /healthz HTTP/1.0\r\nConnection: close\r\n\r\n", "close"),
        ("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "keep-alive"),
        ("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n", nil),
        ("GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", "close"),
    ] as [(String, String?)])
    func http10(request: String, connectionField: String?) throws {
        let connection = try Connection()
        try connection.send(request)
        let parts = try connection.passedOn()
        guard case .head(let head) = try #require(parts.first) else {
            Issue.record("no request head passed on: \(parts)")
            return
        }
        #expect(head.headerFields[.connection] == connectionField)
    }

    /// The status line and the headers (names lowercased) of the answer in `text`, and its body.
    static func split(_ text: String) -> (statusLine: String, headers: [String: String], body: String) {
        let parts = text.components(separatedBy: "\r\n\r\n")
        let lines = parts[0].components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (lines[0], headers, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    @Test("HTTP/1.0 keep-alive: an answer of known length is an HTTP/1.0 answer saying keep-alive, and the connection serves the next request")
    func http10KeepAlive() throws {
        let connection = try Connection()
        for _ in 0..<2 {
            try connection.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try connection.passedOn().count == 2)
            try connection.answer()
            let answer = Self.split(try connection.written())
            #expect(answer.statusLine == "HTTP/1.0 200 OK")
            #expect(answer.headers["connection"] == "keep-alive")
            #expect(answer.headers["content-length"] == "3")
            #expect(answer.body == "ok\n")
            #expect(connection.channel.isActive)
        }
    }

    @Test("HTTP/1.0: an answer of unknown length (an event stream) is not chunked, says close and ends with the connection, even on keep-alive", arguments: [
        "GET /events HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "GET /events HTTP/1.0\r\n\r\n",
    ])
    func http10Stream(request: String) throws {
        let connection = try Connection()
        try connection.send(request)
        #expect(try connection.passedOn().count == 2)
        try connection.channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"])))
        try connection.channel.writeOutbound(HTTPResponsePart.body(ByteBuffer(string: "data: 1\n\n")))
        try connection.channel.writeOutbound(HTTPResponsePart.body(ByteBuffer(string: "data: 2\n\n")))
        #expect(connection.channel.isActive)
        try connection.channel.writeOutbound(HTTPResponsePart.end(nil))
        let answer = Self.split(try connection.written())
        #expect(answer.statusLine == "HTTP/1.0 200 OK")
        #expect(answer.headers["transfer-encoding"] == nil)
        #expect(answer.headers["connection"] == "close")
        #expect(answer.body == "data: 1\n\ndata: 2\n\n")
        if request.contains("keep-alive") {
            // Hummingbird would keep it (the request asked to): the handler closes it.
            #expect(!connection.channel.isActive)
        }
    }

    @Test("HTTP/1.0 keep-alive HEAD: no body whatever the headers, so the connection stays")
    func http10Head() throws {
        let connection = try Connection()
        try connection.send("HEAD /events HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(try connection.passedOn().count == 2)
        try connection.channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"])))
        try connection.channel.writeOutbound(HTTPResponsePart.end(nil))
        let answer = Self.split(try connection.written())
        #expect(answer.statusLine == "HTTP/1.0 200 OK")
        #expect(answer.headers["connection"] == "keep-alive")
        #expect(answer.body.isEmpty)
        #expect(connection.channel.isActive)
    }

    @Test("HTTP/1.1 answers are left as they are: a stream is chunked, a known length kept alive without saying so")
    func http11Untouched() throws {
        let connection = try Connection()
        try connection.send("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try connection.passedOn().count == 2)
        try connection.answer()
        let known = Self.split(try connection.written())
        #expect(known.statusLine == "HTTP/1.1 200 OK")
        #expect(known.headers["connection"] == nil)
        try connection.send("GET /events HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try connection.passedOn().count == 2)
        try connection.channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"])))
        try connection.channel.writeOutbound(HTTPResponsePart.body(ByteBuffer(string: "data: 1\n\n")))
        try connection.channel.writeOutbound(HTTPResponsePart.end(nil))
        let stream = Self.split(try connection.written())
        #expect(stream.statusLine == "HTTP/1.1 200 OK")
        #expect(stream.headers["transfer-encoding"] == "chunked")
        #expect(connection.channel.isActive)
    }

    @Test("An HTTP/1.0 keep-alive request over the cap is still told to close: a rejection's close is kept")
    func http10OverCap() throws {
        let limit = ConnectionLimit(maximum: 1, refusalAllowance: 1)
        let first = try Connection(limit: limit)
        let second = try Connection(limit: limit)
        try second.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(try second.passedOn().isEmpty)
        let answer = try Answer(try second.written())
        #expect(answer.status == 503)
        #expect(answer.headers["connection"] == "close")
        #expect(!second.channel.isActive)
        _ = first
    }

    @Test("Beyond the cap a connection is answered 503 with Retry-After and closed; closing frees a place")
    func cap() throws {
        let limit = ConnectionLimit(maximum: 2, refusalAllowance: 1)
        let first = try Connection(limit: limit)
        let second = try Connection(limit: limit)
        #expect(limit.current == 2)
        #expect(limit.acceptsMore)
        let third = try Connection(limit: limit)
        #expect(limit.current == 3)
        #expect(!limit.acceptsMore)
        try third.send("GET /locations/nearby?lat=1&lng=2 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try third.passedOn().isEmpty)
        let answer = try Answer(try third.written())
        #expect(answer.status == 503)
        #expect(answer.headers["retry-after"] == "1")
        #expect(answer.headers["connection"] == "close")
        #expect(answer.error.message.contains("2 connections"))
        #expect(!third.channel.isActive)
        let rejection = try #require(third.rejections.withLock { $0.first })
        #expect(rejection.reason == .overCapacity)
        #expect(rejection.method == "GET")
        #expect(rejection.target == "/locations/nearby?lat=1&lng=2")
        #expect(limit.current == 2)
        // The first two are served as usual.
        try first.send("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try first.passedOn().count == 2)
        _ = try first.channel.finish()
        #expect(limit.current == 1)
        let fourth = try Connection(limit: limit)
        try fourth.send("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try fourth.passedOn().count == 2)
        _ = second
    }

    @Test("A connection over the cap that sends nothing is closed after the header timeout, not the idle one")
    func silentOverCap() throws {
        let limit = ConnectionLimit(maximum: 1)
        let first = try Connection(limit: limit)
        let second = try Connection(limit: limit, headerTimeout: .seconds(5))
        second.advance(.seconds(5))
        let answer = try Answer(try second.written())
        #expect(answer.status == 408)
        #expect(!second.channel.isActive)
        #expect(limit.current == 1)
        _ = first
    }

    @Test("The client closing its side, or the connection ending, is a departure a held request sees")
    func departure() throws {
        let connection = try Connection()
        try connection.send("GET /locations/nearby?lat=1&lng=2 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try connection.passedOn().count == 2)
        #expect(connection.guardHandler.departure.generation == 0)
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(connection.guardHandler.departure.generation == 1)

        let other = try Connection()
        _ = try other.channel.finish()
        #expect(other.guardHandler.departure.generation == 1)
    }

    @Test("An idle connection its client closes is never answered 408: the end of input is a read that completes, not a head")
    func endOfInputIsNoHead() throws {
        let connection = try Connection(headerTimeout: .seconds(1))
        try connection.send("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        _ = try connection.passedOn()
        try connection.answer()
        _ = try connection.written()
        // What NIO does at EOF on a half-closable socket: a completed read, then input closed.
        connection.channel.pipeline.fireChannelReadComplete()
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        connection.advance(.seconds(2))
        #expect(try connection.written().isEmpty)
        #expect(connection.rejections.withLock { $0 }.isEmpty)
    }

    @Test("A bad request behind one being answered gets its 400 after that answer ends")
    func errorWhileAnswering() throws {
        let connection = try Connection()
        try connection.send("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\nFOO / HTTP/1.1\r\n\r\n")
        #expect(try connection.passedOn().count == 2)
        #expect(try connection.written().isEmpty)
        try connection.answer()
        let text = try connection.written()
        #expect(text.hasPrefix("HTTP/1.1 200 OK"))
        let second = try #require(text.range(of: "ok\n")).upperBound
        let answer = try Answer(String(text[second...]))
        #expect(answer.status == 400)
        #expect(!connection.channel.isActive)
    }

    // MARK: Drain at graceful shutdown

    /// The status and the headers (names lowercased) of each answer in `text`, in order.
    static func heads(_ text: String) -> [(status: Int, headers: [String: String])] {
        text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { answer in
            let lines = answer.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            return (Int(lines[0].prefix(3)) ?? 0, headers)
        }
    }

    static let healthz = "GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n"

    @Test("An answer that says Connection: close itself (a held request's 503 at a stop) is the connection's last")
    func answerSaysClose() throws {
        let connection = try Connection()
        try connection.send(Self.healthz)
        #expect(try connection.passedOn().count == 2)
        var headers = HTTPFields()
        headers[.contentLength] = "3"
        headers[.connection] = "close"
        try connection.channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .serviceUnavailable, headerFields: headers)))
        try connection.answerRest(body: "no\n")
        let text = try connection.written()
        #expect(Self.heads(text).first?.headers["connection"] == "close")
        #expect(!connection.channel.isActive)
    }

    @Test("At a stop, a request being answered gets its answer in full with Connection: close, then the connection closes")
    func drainBusy() throws {
        let connection = try Connection()
        try connection.send(Self.healthz)
        #expect(try connection.passedOn().count == 2)
        connection.quiesce()
        // Hummingbird's handler never saw the event (it would have marked the connection).
        #expect(connection.channel.isActive)
        try connection.answer(body: "ok\n")
        let text = try connection.written()
        #expect(text.hasSuffix("\r\n\r\nok\n"))
        #expect(Self.heads(text).map(\.status) == [200])
        #expect(Self.heads(text).first?.headers["connection"] == "close")
        #expect(!connection.channel.isActive)
    }

    @Test("At a stop, an idle keep-alive connection stays open for the drain period: its next request is answered, with Connection: close")
    func drainIdleThenRequest() throws {
        let connection = try Connection(drainPeriod: .seconds(1))
        try connection.send(Self.healthz)
        _ = try connection.passedOn()
        try connection.answer()
        #expect(Self.heads(try connection.written()).first?.headers["connection"] == nil)
        connection.quiesce()
        connection.advance(.milliseconds(999))
        #expect(connection.channel.isActive)
        #expect(try connection.written().isEmpty)
        try connection.send(Self.healthz)
        #expect(try connection.passedOn().count == 2)
        // Answering outlasts the period: a request in progress is never cut off.
        connection.advance(.seconds(5))
        #expect(connection.channel.isActive)
        try connection.answer()
        let heads = Self.heads(try connection.written())
        #expect(heads.map(\.status) == [200])
        #expect(heads.first?.headers["connection"] == "close")
        #expect(!connection.channel.isActive)
    }

    @Test("A connection still idle when the drain period ends is closed then, with nothing written")
    func drainIdleCloses() throws {
        let connection = try Connection(drainPeriod: .milliseconds(1_500))
        try connection.send(Self.healthz)
        _ = try connection.passedOn()
        try connection.answer()
        _ = try connection.written()
        connection.quiesce()
        connection.advance(.milliseconds(1_499))
        #expect(connection.channel.isActive)
        connection.advance(.milliseconds(1))
        #expect(!connection.channel.isActive)
        #expect(try connection.written().isEmpty)
        #expect(connection.rejections.withLock { $0 }.isEmpty)
    }

    @Test("An answer begun before the stop ends as it began; the connection then waits, and its next answer says Connection: close")
    func drainAnswerBegunBefore() throws {
        let connection = try Connection(drainPeriod: .seconds(1))
        try connection.send(Self.healthz)
        _ = try connection.passedOn()
        try connection.answerHead()
        connection.quiesce()
        try connection.answerRest()
        let first = Self.heads(try connection.written())
        #expect(first.map(\.status) == [200])
        #expect(first.first?.headers["connection"] == nil)
        // Its client was not told: it may send another request, which is answered.
        #expect(connection.channel.isActive)
        try connection.send(Self.healthz)
        #expect(try connection.passedOn().count == 2)
        try connection.answer()
        #expect(Self.heads(try connection.written()).first?.headers["connection"] == "close")
        #expect(!connection.channel.isActive)
    }

    @Test("An answer begun before the stop and still going when the period ends: the connection closes once it is out")
    func drainLongAnswer() throws {
        let connection = try Connection(drainPeriod: .seconds(1))
        try connection.send(Self.healthz)
        _ = try connection.passedOn()
        try connection.answerHead()
        connection.quiesce()
        connection.advance(.seconds(2))
        #expect(connection.channel.isActive)
        try connection.answerRest()
        #expect(try connection.written().hasSuffix("ok\n"))
        #expect(!connection.channel.isActive)
    }

    @Test("Pipelined requests at a stop: each is answered, and only the last answer says Connection: close")
    func drainPipelined() throws {
        let connection = try Connection()
        try connection.send(Self.healthz + Self.healthz)
        #expect(try connection.passedOn().count == 4)
        connection.quiesce()
        try connection.answer()
        #expect(connection.channel.isActive)
        try connection.answer()
        let heads = Self.heads(try connection.written())
        #expect(heads.map(\.status) == [200, 200])
        #expect(heads.map { $0.headers["connection"] } == [nil, "close"])
        #expect(!connection.channel.isActive)
    }

    @Test("A request that arrives after the last answer began is not started (the client sends it again elsewhere)")
    func drainRequestAfterLastAnswer() throws {
        let connection = try Connection()
        try connection.send(Self.healthz)
        _ = try connection.passedOn()
        connection.quiesce()
        try connection.answerHead()
        try connection.send(Self.healthz)
        #expect(try connection.passedOn().isEmpty)
        try connection.answerRest()
        #expect(Self.heads(try connection.written()).count == 1)
        #expect(!connection.channel.isActive)
    }

    @Test("A head arriving when the period ends is waited for and answered with Connection: close")
    func drainHeadArriving() throws {
        let connection = try Connection(headerTimeout: .seconds(10), drainPeriod: .seconds(1))
        connection.quiesce()
        try connection.send("GET /healthz HTTP/1.1\r\nHo")
        connection.advance(.seconds(2))
        #expect(connection.channel.isActive)
        try connection.send("st: a\r\n\r\n")
        #expect(try connection.passedOn().count == 2)
        try connection.answer()
        #expect(Self.heads(try connection.written()).first?.headers["connection"] == "close")
        #expect(!connection.channel.isActive)
    }

    @Test("At a stop, an idle connection whose client has closed its side is closed at once")
    func drainHalfClosed() throws {
        let connection = try Connection()
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(connection.channel.isActive)
        connection.quiesce()
        #expect(!connection.channel.isActive)
    }
}
