#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import Hummingbird
import LocationCore
import Logging
import NIOCore

/// The outermost middleware of every route and of the router's not-found answer: one request in,
/// one answer out, counted and logged once.
///
/// It names the caller (``NearbyRoutes/clientName(_:remoteAddress:)``) and notes the arrival for
/// the routes; turns what a route throws into its JSON answer (a ``/LocationCore/ServerError`` as
/// it says, the router's not-found as a 404, or a 405 with `Allow` when the path exists with other
/// methods, anything else a 500 whose cause is logged); gzips a whole body the client accepts
/// compressed; answers HEAD with the headers alone; and writes the metrics and the access log line
/// with what the route noted (``ExchangeNotes``). The server's logger hears of each arrival at
/// `debug` (`serve --log-level debug`).
struct ExchangeMiddleware: RouterMiddleware {
    typealias Context = NearbyRequestContext

    let routes: NearbyRoutes
    let methods: RouteMethodTable

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = routes.time.elapsed()
        var context = context
        context.arrival = routes.time.now()
        context.client = routes.clientName(request.headers, remoteAddress: context.remoteAddress)
        // At debug, each request as it arrives (the access log's line comes with the answer): what
        // is in flight right now, a held or slow request included. Credentials redacted as there.
        routes.logger.debug(
            "arrived: \(request.method) \(AccessLog.redactingCredentials(request.uri.description))",
            metadata: ["client": .string(context.client)])
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as ServerError {
            response = error.response
        } catch let error as HTTPError where error.status == .notFound {
            response = await notFound(request, context: context).response
        } catch let error as any HTTPResponseError {
            // Hummingbird's own refusals (a body over its limit…), in the contract's shape.
            let code: ServerError.Code = error.status.code == 413 ? .payloadTooLarge : .badRequest
            response = ServerError(code, status: error.status.code, "\(error)").response
        } catch {
            routes.logger.error("\(request.method) \(request.uri.path) failed: \(error)", metadata: ["client": .string(context.client)])
            context.notes.update { $0.error = "\(error)" }
            response = ServerError(.internal, status: 500, "the server failed; see its log").response
        }
        do {
            try await Self.compress(&response, acceptEncoding: request.headers[.acceptEncoding])
        } catch {
            // zlib failing is the machine's trouble (memory), not the client's: it gets the plain body.
            routes.logger.error("gzip failed, answering uncompressed: \(error)", metadata: ["client": .string(context.client)])
        }
        // HEAD is GET without the body (RFC 9110 §9.3.2): the same work, headers and length. A
        // body of unknown length (an event stream) stays so: no `Content-Length: 0` that the GET
        // would not send; NIO's encoder then frames the HEAD answer as the GET's, with no body.
        if request.method == .head {
            response =
                response.body.contentLength == nil
                ? Response(status: response.status, headers: response.headers, body: ResponseBody { writer in try await writer.finish(nil) })
                : response.createHeadResponse()
        }
        record(response.status.code, request: request, context: context, started: started)
        return response
    }

    /// No route has the request's path and method: a 405 naming the methods when the path has
    /// routes, else a 404.
    private func notFound(_ request: Request, context: Context) async -> ServerError {
        guard let allowed = await methods.methods(for: request, context: context) else {
            return .notFound("no route \(request.uri.path)")
        }
        return ServerError(
            .methodNotAllowed, status: 405,
            "\(request.method) is not allowed on \(request.uri.path); use \(allowed.joined(separator: " or "))",
            allowedMethods: allowed)
    }

    /// gzips a whole body of at least ``ResponseCompression/minimumBytes`` when the client accepts
    /// it (`acceptEncoding`), and says `Vary: Accept-Encoding` on every answer that could have
    /// been, so a cache keeps the two apart. Streams (no length) are left alone.
    ///
    /// - Throws: `CompressNIOError` when zlib fails; the answer is then unchanged.
    static func compress(_ response: inout Response, acceptEncoding: String?) async throws {
        guard let length = response.body.contentLength, length >= ResponseCompression.minimumBytes,
            response.headers[.contentEncoding] == nil
        else { return }
        response.headers[.vary] = response.headers[.vary].map { $0 + ", Accept-Encoding" } ?? "Accept-Encoding"
        guard ResponseCompression.acceptsGzip(acceptEncoding) else { return }
        let whole = WholeBody()
        try await response.body.write(whole)
        let compressed = try ResponseCompression.gzip(whole.bytes.withLock { $0 })
        response.body = ResponseBody(byteBuffer: compressed)
        response.headers[.contentEncoding] = "gzip"
    }

    /// The metrics and the access log line for one answered request.
    private func record(_ status: Int, request: Request, context: Context, started: Duration) {
        let duration = routes.time.elapsed() - started
        let notes = context.notes.current
        // A HEAD's answer has the GET's length but no body: no place is sent.
        let places = request.method == .head ? nil : notes.places
        routes.state.metrics.record(
            route: Self.metricsRow(path: request.uri.path), status: status, seconds: duration.fractionalSeconds,
            places: places ?? 0)
        routes.accessLog?.log(AccessLog.Record(
            time: context.arrival, method: request.method.rawValue, target: request.uri.description, status: status,
            duration: duration, client: context.client, places: places, verdict: notes.verdict,
            reason: notes.reason, fault: notes.fault, error: notes.error))
    }

    /// The access-log line and the metrics for a connection its ``ConnectionGuard`` answered and
    /// closed itself (counted under `other`).
    static func record(_ rejection: ConnectionRejection, routes: NearbyRoutes) {
        routes.state.metrics.recordRejection(rejection.reason)
        routes.state.metrics.record(
            route: otherMetricsRow, status: rejection.error.statusCode, seconds: rejection.waited.fractionalSeconds, places: 0)
        routes.accessLog?.log(AccessLog.Record(
            time: routes.time.now(), method: rejection.method ?? "-", target: rejection.target ?? "-",
            status: rejection.error.statusCode, duration: rejection.waited,
            client: "address:" + (rejection.remoteAddress ?? "unknown"),
            error: "\(rejection.reason.rawValue): \(rejection.error.message)"))
    }

    /// ``ServerMetrics``' row for unknown paths.
    static let otherMetricsRow = ServerMetrics.routes.count - 1

    /// ``ServerMetrics``' row of a path: its own for the contract's routes (the audit's reset
    /// under `/audit`), `other` for the rest, so a scanner cannot grow the label set.
    static func metricsRow(path: String) -> Int {
        switch path {
        case NearbyRoutes.Path.auditReset: ServerMetrics.routes.firstIndex(of: NearbyRoutes.Path.audit) ?? otherMetricsRow
        default: ServerMetrics.routes.firstIndex(of: path) ?? otherMetricsRow
        }
    }
}

/// Collects a whole body (one with a known length) to compress it.
private final class WholeBody: ResponseBodyWriter, Sendable {
    let bytes = Locked(ByteBuffer())

    func write(_ buffer: ByteBuffer) async throws {
        bytes.withLock { _ = $0.writeImmutableBuffer(buffer) }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
