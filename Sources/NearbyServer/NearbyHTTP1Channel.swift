import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1.1 child channel (`HTTP1Channel`'s pipeline, built from the same public
/// pieces) with ``ImmediateAnswerHandler`` placed right after NIO's HTTP/1.1 codec, before the
/// conversion to Swift HTTP Types: a request answered on the event loop is then never converted
/// either way. Everything handed on goes through `HTTP1ToHTTPServerCodec`, Hummingbird's
/// connection-state handler and its async channel exactly as in `HTTP1Channel`, and is answered
/// by Hummingbird's `handleHTTP`.
struct NearbyHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    /// A new handler per connection, or nil for Hummingbird's pipeline unchanged.
    let immediateAnswers: @Sendable () -> ImmediateAnswerHandler?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            // HTTP1Channel's settings, with its default decoder limits.
            let decoder = HTTP1Channel.Configuration().httpDecoder
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = decoder.maxHeaderFieldSize
            limits.maxHeaderListSize = decoder.maxHeaderListSize
            limits.maxHeaderFieldCount = decoder.maxHeaderFieldCount
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
            if let handler = immediateAnswers() { try channel.pipeline.syncOperations.addHandler(handler) }
            try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try channel.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}
