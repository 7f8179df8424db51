import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// HTTP/1.0's rules for an answer's framing and a connection's life (RFC 9112, 6.1 and 9.3).
///
/// NIO's HTTP Types codec drops a request's version (every request reaches Hummingbird as
/// HTTP/1.1, and every answer leaves it as HTTP/1.1), so this handler sits before that codec and
/// keeps the rules for an HTTP/1.0 request:
/// - the connection closes after the answer unless the request asked for
///   `Connection: keep-alive`: a head that will not keep the connection gets `Connection: close`,
///   the one term that survives the codec, which Hummingbird honours after its answer. Without
///   this, an HTTP/1.0 client that reads to the end of the connection (ApacheBench without `-k`)
///   waits for the idle timeout;
/// - the answer is an HTTP/1.0 answer: never chunked (an HTTP/1.0 client cannot read chunks), so
///   an answer of unknown length (an event stream) ends when the connection closes, and says
///   `Connection: close`, and the connection is closed after it even when the request asked to
///   keep it;
/// - an answer of known length to a request that asked for keep-alive says
///   `Connection: keep-alive`, which is how an HTTP/1.0 client (ApacheBench `-k`) learns that it
///   may send its next request on the same connection.
///
/// Answers leave in the order of their requests, so the requests' rules wait in a queue.
/// ``ConnectionGuard`` puts it in place.
final class HTTP10Persistence: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// What an HTTP/1.0 request asked for; nil for a later version, whose answer is left alone.
    private struct Asked {
        var keepAlive: Bool
        /// A HEAD request: its answer has no body, whatever its headers say.
        var head: Bool
    }

    /// One entry per request whose answer has not begun, in order.
    private var waiting = CircularBuffer<Asked?>()
    /// Set while an answer that must end the connection is being written.
    private var closeAfterAnswer = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        guard head.version == .http1_0 else {
            waiting.append(nil)
            context.fireChannelRead(data)
            return
        }
        let keepAlive = head.isKeepAlive
        waiting.append(Asked(keepAlive: keepAlive, head: head.method == .HEAD))
        if !keepAlive { head.headers.replaceOrAdd(name: "connection", value: "close") }
        // No interim answer goes to HTTP/1.0 (RFC 9110, 10.1.1: its `Expect` is ignored).
        head.headers.remove(name: "expect")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200:
            // An answer the handler did not see a request for (the guard's own, to a head NIO's
            // decoder refused) is left as it is.
            guard let entry = waiting.popFirst(), let asked = entry else {
                context.write(data, promise: promise)
                return
            }
            head.version = .http1_0
            head.headers.remove(name: "transfer-encoding")
            let lengthKnown = asked.head || head.headers.contains(name: "content-length")
                || head.status == .noContent || head.status == .notModified
            // An answer that says `Connection: close` already (a rejection, the drain) is from a
            // server that closes after it: left as it is.
            let serverCloses = head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
            if !serverCloses && asked.keepAlive && lengthKnown {
                head.headers.replaceOrAdd(name: "connection", value: "keep-alive")
            } else if !serverCloses {
                head.headers.replaceOrAdd(name: "connection", value: "close")
                closeAfterAnswer = asked.keepAlive
            }
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end where closeAfterAnswer:
            closeAfterAnswer = false
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.cascade(to: promise)
            context.write(data, promise: written)
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        default:
            context.write(data, promise: promise)
        }
    }

    /// Puts a new one before the HTTP Types codec of `context`'s pipeline; a pipeline without that
    /// codec (nothing there speaks HTTP/1 text) is left as it is.
    static func install(before context: ChannelHandlerContext) throws {
        let pipeline = context.pipeline.syncOperations
        let codec: ChannelHandlerContext
        do {
            codec = try pipeline.context(handlerType: HTTP1ToHTTPServerCodec.self)
        } catch ChannelPipelineError.notFound {
            return
        }
        try pipeline.addHandler(HTTP10Persistence(), position: .before(codec.handler))
    }
}
