import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// HTTP/1.0's rule for a connection's life (RFC 9112, 9.3): after the answer to an HTTP/1.0
/// request the connection closes, unless the request asked for `Connection: keep-alive`.
///
/// NIO's HTTP Types codec drops a request's version (every request reaches Hummingbird as
/// HTTP/1.1), so without this an HTTP/1.0 client that reads to the end of the connection, as
/// ApacheBench does without `-k`, waits for the idle timeout. This handler sits before that
/// codec and says the rule in the one term that survives it: a request head that will not keep
/// the connection gets `Connection: close`, which Hummingbird honours after its answer.
/// ``ConnectionGuard`` puts it in place.
final class HTTP10Persistence: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), head.version == .http1_0, !head.isKeepAlive else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
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
