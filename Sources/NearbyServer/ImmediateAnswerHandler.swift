#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import LocationCore
import LocationIndex
import NIOCore
import NIOHTTP1

/// A channel handler in Hummingbird's HTTP/1.1 pipeline (``NearbyHTTP1Channel``: right after
/// NIO's HTTP/1.1 codec, before the conversion to Swift HTTP Types) that answers
/// `GET /locations/nearby` on the connection's event loop, as the request's last byte arrives,
/// and hands every other request on to Hummingbird unchanged.
///
/// Why: Hummingbird answers each connection in a Swift task; for a small answer that task, its
/// async streams and the hand-overs between it and the event loop cost about three times what
/// the socket work does (docs/benchmarks/serve.md). The nearby route with no faults and the
/// SQLite index needs none of it: ``NearbyResponder/respondImmediately(repository:target:authorization:player:remoteAddress:)`` gives
/// the same answer, audit verdict, metrics and access log line as the task path.
///
/// Order: while a request handed to Hummingbird has not been answered, every later request on
/// the connection (pipelined) is handed on too, so answers always leave in request order.
/// A request with a body, or `Connection: close`, goes to Hummingbird.
///
/// Graceful shutdown: Hummingbird's connection handler (after this one) closes a connection that
/// is idle when shutdown begins and lets one with a request in Hummingbird's hands finish it. An
/// immediate answer is never in flight then: the HTTP decoder hands over a body-less request's
/// head and end in one pass, and the answer is written before the event loop does anything else.
final class ImmediateAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let responder: NearbyResponder
    private let repository: OfflineLocationRepository
    private let serverName: String
    /// A head kept back for an immediate answer, until its end arrives.
    private var held: HTTPRequestHead?
    /// Requests handed to Hummingbird whose answer has not been written to its end yet.
    private var handedOn = 0
    /// The peer's address (no port), read once.
    private var remoteAddress: String??
    /// The `Date` header for the current second of the injected wall clock.
    private var date: (second: Int64, text: String)?

    init(responder: NearbyResponder, repository: OfflineLocationRepository, serverName: String) {
        self.responder = responder
        self.repository = repository
        self.serverName = serverName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if handedOn == 0, head.method == .GET, !Self.asksToClose(head), responder.answersImmediately(target: head.uri) {
                held = head
            } else {
                handedOn += 1
                context.fireChannelRead(data)
            }
        case .body:
            if let head = held {
                // A GET with a body: Hummingbird takes the request as it came.
                held = nil
                handedOn += 1
                context.fireChannelRead(wrapInboundOut(.head(head)))
            }
            context.fireChannelRead(data)
        case .end:
            guard let head = held else {
                context.fireChannelRead(data)
                return
            }
            held = nil
            answer(head, context: context)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { handedOn = max(0, handedOn - 1) }
        context.write(data, promise: promise)
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        if remoteAddress == nil { remoteAddress = .some(context.channel.remoteAddress?.ipAddress) }
        let answer = responder.respondImmediately(
            repository: repository, target: head.uri, authorization: head.headers.first(name: "authorization"),
            player: head.headers.first(name: NearbyResponder.playerHeader.rawName), remoteAddress: remoteAddress ?? nil)
        // The header lines as Hummingbird's path writes them: the responder's, then Date, Server.
        var headers = HTTPHeaders()
        headers.reserveCapacity(answer.head.headerFields.count + 2)
        for field in answer.head.headerFields { headers.add(name: field.name.rawName, value: field.value) }
        headers.add(name: "Date", value: dateHeader())
        headers.add(name: "Server", value: serverName)
        let status = HTTPResponseStatus(statusCode: answer.head.status.code, reasonPhrase: answer.head.status.reasonPhrase)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if answer.body.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(answer.body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// `Connection: close` (any case, among other tokens).
    private static func asksToClose(_ head: HTTPRequestHead) -> Bool {
        head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
    }

    /// The IMF-fixdate of the server's wall clock (RFC 9110 5.6.7), made once a second.
    private func dateHeader() -> String {
        let seconds = responder.time.now().timeIntervalSince1970.rounded(.down)
        let second = Int64(seconds)
        if let date, date.second == second { return date.text }
        let text = HTTPDate.text(secondsSince1970: second)
        date = (second, text)
        return text
    }
}

/// HTTP's date format, `Sun, 06 Nov 1994 08:49:37 GMT`, written directly (no formatter).
enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func text(secondsSince1970 seconds: Int64) -> String {
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = CivilCalendar.civil(fromDays: Int(days))
        let weekday = weekdays[Int(floorDivide(days, 7).remainder)]
        return "\(weekday), \(twoDigits(day)) \(months[month - 1]) \(year) "
            + "\(twoDigits(Int(secondOfDay / 3600))):\(twoDigits(Int(secondOfDay / 60 % 60))):\(twoDigits(Int(secondOfDay % 60))) GMT"
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = (value % divisor + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
