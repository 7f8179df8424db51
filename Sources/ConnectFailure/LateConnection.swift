package import NIOCore

/// A connection a SwiftNIO listener accepted as it closed.
///
/// A listener served through `NIOAsyncChannel` hands each accepted connection to its server's
/// loop as a `NIOAsyncChannel` of its own, made on the connection's event loop. When the
/// listener closes (a graceful stop, or its task cancelled) while one is being made, the one
/// made is dropped unread, and when the connection then becomes active its writer is released
/// unfinished, which traps ("Deinited NIOAsyncWriter without calling finish()", swift-nio #2637):
/// `locsim serve` stopped by SIGTERM while clients were connecting died with SIGILL in about one
/// stop in ten. A handler placed ahead of the async channel's asks ``closeIfListenerClosed(_:)``
/// in its `channelActive` and passes the event on only when it says no; closed before it was
/// active, the connection finishes its writer as it is removed. Its client sees the connection
/// closed with nothing said, as it would a listener that had stopped a moment sooner.
package enum LateConnection {
    /// Closes the connection of `context` when the listener that accepted it (its channel's
    /// parent) has closed; a connection without one (made by this process) is left alone.
    ///
    /// - Returns: Whether it closed the connection; the caller then does not pass `channelActive` on.
    package static func closeIfListenerClosed(_ context: ChannelHandlerContext) -> Bool {
        guard let listener = context.channel.parent, !listener.isActive else { return false }
        context.close(promise: nil)
        return true
    }
}
