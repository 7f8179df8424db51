import HTTPTypes
import Hummingbird
import HummingbirdCore
import LocationCore
import LocSimTestHelpers
import Logging
import NIOCore
import NIOEmbedded
@testable import NearbyServer
import ServiceLifecycle

/// How a test reaches a ``NearbyServer``.
enum ServerTestMode {
    /// In process: each request goes straight to the server's responder, with a context on a
    /// test channel (so no remote address); no socket, no connection handlers.
    case router
    /// Over loopback: the server's application runs on a free port (whatever its configuration
    /// says) and requests go over one keep-alive HTTP/1.1 connection, opened at the first one.
    case live
}

/// An answer as a test reads it.
struct TestResponse: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer
}

/// Sends a test's requests to the server under test (``NearbyServer/test(_:_:)``).
struct ServerTestClient: Sendable {
    /// The port the server listens on, in ``ServerTestMode/live`` mode.
    let port: Int?
    fileprivate let send: @Sendable (HTTPRequest.Method, String, HTTPFields, ByteBuffer?) async throws -> TestResponse

    /// Sends one request and hands its answer to `check`.
    func execute<Value>(
        uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
        _ check: (TestResponse) async throws -> Value
    ) async throws -> Value {
        try await check(try await send(method, uri, headers, body))
    }

    /// Sends one request and returns its answer.
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil) async throws -> TestResponse {
        try await send(method, uri, headers, body)
    }
}

extension NearbyServer {
    /// Runs `body` with a client of this server in `mode`; a live server is shut down gracefully
    /// when `body` returns or throws.
    func test<Value>(_ mode: ServerTestMode, _ body: (ServerTestClient) async throws -> Value) async throws -> Value {
        switch mode {
        case .router:
            return try await body(ServerTestClient(port: nil) { [responder] method, uri, headers, requestBody in
                try await Self.respond(responder, method: method, uri: uri, headers: headers, body: requestBody)
            })
        case .live:
            let application = LoopbackApplication(base: application())
            let services = ServiceGroup(
                configuration: .init(services: [application], gracefulShutdownSignals: [], logger: application.logger))
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // A server that cannot listen ends here: no port comes, and its error is next.
                    defer { application.stopped() }
                    try await services.run()
                }
                do {
                    guard let port = await application.ports.first(where: { _ in true }) else {
                        try await group.waitForAll()
                        throw HarnessError("the server stopped before it listened")
                    }
                    let connection = Locked<RawConnection?>(nil)
                    let client = ServerTestClient(port: port) { method, uri, headers, requestBody in
                        let open = try connection.withLock { open in
                            if let open { return open }
                            let new = try RawConnection(port: port)
                            open = new
                            return new
                        }
                        return try await Self.exchange(on: open, method: method, uri: uri, headers: headers, body: requestBody)
                    }
                    let value = try await body(client)
                    await services.triggerGracefulShutdown()
                    try await group.waitForAll()
                    return value
                } catch {
                    await services.triggerGracefulShutdown()
                    throw error
                }
            }
        }
    }

    /// One request through `responder`, as Hummingbird's server would hand it over; a thrown
    /// error is a 500, as the server answers one.
    private static func respond(
        _ responder: RouterResponder<NearbyRequestContext>, method: HTTPRequest.Method, uri: String, headers: HTTPFields, body: ByteBuffer?
    ) async throws -> TestResponse {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
            body: RequestBody(buffer: body ?? ByteBuffer()))
        let channel = NIOAsyncTestingChannel()
        let context = NearbyRequestContext(
            source: ApplicationRequestContextSource(channel: channel, logger: Logger(label: "locsim.test")))
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch {
            response = Response(status: .internalServerError)
        }
        let writer = CollectingWriter()
        try await response.body.write(writer)
        // Closed, the channel leaves no cycle with its pipeline and testing event loop behind.
        _ = try await channel.finish(acceptAlreadyClosed: true)
        return TestResponse(status: response.status, headers: response.headers, body: writer.collected.withLock { $0 })
    }

    /// One request on `connection`, its answer read back (no body for HEAD).
    private static func exchange(
        on connection: RawConnection, method: HTTPRequest.Method, uri: String, headers: HTTPFields, body: ByteBuffer?
    ) async throws -> TestResponse {
        var text = "\(method.rawValue) \(uri) HTTP/1.1\r\nHost: localhost\r\n"
        for field in headers { text += "\(field.name.rawName): \(field.value)\r\n" }
        if let body { text += "Content-Length: \(body.readableBytes)\r\n\r\n" + String(buffer: body) } else { text += "\r\n" }
        try await connection.send(text)
        let answer = try await connection.readAnswer(bodyless: method == .head)
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            guard let name = HTTPField.Name(name) else { throw HarnessError("a header name HTTP does not allow: \(name)") }
            fields.append(HTTPField(name: name, value: value))
        }
        return TestResponse(status: HTTPResponse.Status(code: answer.status), headers: fields, body: ByteBuffer(bytes: answer.body))
    }
}

/// Collects a response body in memory.
private final class CollectingWriter: ResponseBodyWriter, Sendable {
    let collected = Locked(ByteBuffer())

    func write(_ buffer: ByteBuffer) async throws {
        collected.withLock { _ = $0.writeImmutableBuffer(buffer) }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// A server's application on a free loopback port, which it reports through ``ports``.
private struct LoopbackApplication<Base: ApplicationProtocol>: ApplicationProtocol, Service {
    typealias Responder = Base.Responder

    let base: Base
    let ports: AsyncStream<Int>
    private let found: AsyncStream<Int>.Continuation

    init(base: Base) {
        self.base = base
        (ports, found) = AsyncStream.makeStream(of: Int.self)
    }

    var responder: Responder { get async throws { try await base.responder } }
    var server: HTTPServerBuilder { base.server }
    var eventLoopGroup: any EventLoopGroup { base.eventLoopGroup }
    var configuration: ApplicationConfiguration { base.configuration.with(address: .hostname("127.0.0.1", port: 0)) }
    var logger: Logger { base.logger }
    var services: [any Service] { base.services }
    var processesRunBeforeServerStart: [@Sendable () async throws -> Void] { base.processesRunBeforeServerStart }

    @Sendable func onServerRunning(_ channel: any Channel) async {
        await base.onServerRunning(channel)
        found.yield(channel.localAddress?.port ?? 0)
        found.finish()
    }

    /// The application has stopped: no port will come.
    func stopped() { found.finish() }
}
