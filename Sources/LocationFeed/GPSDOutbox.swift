import ConnectFailure
import NIOCore
import LocationCore

/// Everything one gpsd client is sent, in order: its session's replies and the reports of the
/// players it watches.
///
/// Players' tasks and the client's session add to it from any thread; the client's event loop
/// writes all that is waiting with one `write`. A report thus crosses one thread on its way (the
/// player's task hands it to the event loop), and a client whose loop falls behind gets the
/// reports that piled up in one system call instead of one each.
///
/// A client that reads slower than reports come loses the oldest: while its socket cannot take
/// more (NIO's write buffer past its high-water mark), reports wait here, at most `limit` of them.
///
/// Internal: the per-connection output queue behind `GPSDFeedServer` and `NMEAFeedServer`.
final class GPSDOutbox: Sendable {
    private enum Item: Sendable {
        case text(String)
        case update(PlayerHub.Update, GPSDSession.Forms)
    }

    private struct State: Sendable {
        var items: [Item] = []
        /// The session's watch as of its last reply: which updates this client gets.
        var watch = GPSDWatch()
        /// A flush is on its way to the event loop.
        var scheduled = false
        /// The socket could not take more at the last flush; the next comes when it can.
        var blocked = false
    }

    private let state = Locked(State())
    private let channel: any Channel
    /// The most items kept waiting; older ones are dropped.
    let limit: Int

    private let onDrop: @Sendable (Int) -> Void

    /// - Parameters:
    ///   - limit: The most items kept waiting (at least 8).
    ///   - onDrop: Told how many items were dropped, each time some are.
    init(channel: any Channel, limit: Int, onDrop: @escaping @Sendable (Int) -> Void) {
        precondition(limit >= 8, "an outbox holds at least 8 items")
        self.channel = channel
        self.limit = limit
        self.onDrop = onDrop
    }

    /// Queues `reply` (may be empty), then sends updates as `watch` asks (as before when nil).
    ///
    /// Taking both at once keeps the order a client sees: no report chosen by the new watch
    /// reaches it before the reply that set that watch.
    func send(_ reply: String, watch: GPSDWatch? = nil) {
        let (schedule, dropped) = state.withLock { state -> (Bool, Int) in
            if let watch { state.watch = watch }
            guard !reply.isEmpty else { return (false, 0) }
            return Self.append(.text(reply), to: &state, limit: limit)
        }
        if dropped > 0 { onDrop(dropped) }
        if schedule { channel.eventLoop.execute { self.flush() } }
    }

    /// Queues `update` if the client watches its device.
    func offer(_ update: PlayerHub.Update) {
        let (schedule, dropped) = state.withLock { state -> (Bool, Int) in
            guard let forms = GPSDSession.forms(of: update, for: state.watch) else { return (false, 0) }
            return Self.append(.update(update, forms), to: &state, limit: limit)
        }
        if dropped > 0 { onDrop(dropped) }
        if schedule { channel.eventLoop.execute { self.flush() } }
    }

    /// Queues a `DEVICE` report about `device` (a player added or removed) if the client hears
    /// of that device (``GPSDSession/hearsOf(device:watch:)``).
    func notice(_ report: String, about device: String) {
        let (schedule, dropped) = state.withLock { state -> (Bool, Int) in
            guard GPSDSession.hearsOf(device: device, watch: state.watch) else { return (false, 0) }
            return Self.append(.text(report), to: &state, limit: limit)
        }
        if dropped > 0 { onDrop(dropped) }
        if schedule { channel.eventLoop.execute { self.flush() } }
    }

    /// Appends `item`: whether a flush must be scheduled, and how many items were dropped.
    private static func append(_ item: Item, to state: inout State, limit: Int) -> (Bool, Int) {
        state.items.append(item)
        var dropped = 0
        if state.items.count > limit {
            // Drop an eighth at once so a client that stays behind costs a move of the queue
            // per `limit / 8` reports, not one per report.
            dropped = state.items.count - limit + limit / 8
            state.items.removeFirst(dropped)
        }
        guard !state.scheduled, !state.blocked else { return (false, dropped) }
        state.scheduled = true
        return (true, dropped)
    }

    /// Writes everything waiting in one `write`, unless the socket cannot take more. On the
    /// channel's event loop.
    func flush() {
        let writable = channel.isWritable
        let items = state.withLock { state -> [Item] in
            state.scheduled = false
            state.blocked = !writable
            guard writable else { return [] }
            var taken: [Item] = []
            swap(&taken, &state.items)
            return taken
        }
        guard !items.isEmpty else { return }
        var size = 0
        for item in items {
            switch item {
            case .text(let text): size += text.utf8.count
            case .update(let update, let forms): forms.forEachPart(of: update) { size += $0.utf8.count }
            }
        }
        var buffer = channel.allocator.buffer(capacity: size)
        for item in items {
            switch item {
            case .text(let text): buffer.writeString(text)
            case .update(let update, let forms): forms.forEachPart(of: update) { buffer.writeString($0) }
            }
        }
        channel.writeAndFlush(buffer, promise: nil)
    }

    /// Passes the channel's writability changes to the outbox: once the socket takes data
    /// again, what waited is written.
    final class WritabilityHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        private let outbox: GPSDOutbox

        init(_ outbox: GPSDOutbox) { self.outbox = outbox }

        // First in the connection's pipeline, ahead of its NIOAsyncChannel's handler: a
        // connection accepted as the feed stopped is closed rather than made active
        // (ConnectFailure's LateConnection).
        func channelActive(context: ChannelHandlerContext) {
            if LateConnection.closeIfListenerClosed(context) { return }
            context.fireChannelActive()
        }

        func channelWritabilityChanged(context: ChannelHandlerContext) {
            if context.channel.isWritable { outbox.flush() }
            context.fireChannelWritabilityChanged()
        }
    }
}
