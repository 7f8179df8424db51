#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
import LocationCore
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The gpsd protocol on a TCP port: every player of a ``PlayerHub`` is a device that gpsd
/// clients (`gpspipe`, libgps, Python's `gps`) watch as if a gpsd 3.22 served it.
///
/// A `Service` for the same `ServiceGroup` as the HTTP server: one runtime, one shutdown. Each
/// client gets `VERSION` on connect, then answers to its requests and, once it watches, the
/// reports of the players it watches. Each client's output goes through a `GPSDOutbox`: a player's
/// fix is handed straight to the client's event loop, and what piles up for a client is written
/// in one `write`. A client too slow to keep up loses its oldest reports without slowing the
/// others.
package final class GPSDFeedServer: Service, Sendable {
    /// Where to listen.
    package struct Configuration: Sendable {
        package var host: String
        /// 0 picks a free port (reported through `onListening`).
        package var port: Int
        /// The `release` and `rev` the `VERSION` report names.
        package var release: String
        /// Reports kept for a client that reads slower than they come, beyond what its socket
        /// and NIO's 64 KB write buffer hold; older ones are dropped (and counted in
        /// ``GPSDFeedServer/droppedReports``). At least 8: ``GPSDFeedServer/run()`` throws
        /// ``/LocationCore/ConfigurationError`` (`clientBuffer`) otherwise.
        package var clientBuffer: Int

        package init(host: String = "127.0.0.1", port: Int = 2947, release: String, clientBuffer: Int = 4096) {
            self.host = host
            self.port = port
            self.release = release
            self.clientBuffer = clientBuffer
        }
    }

    private let configuration: Configuration
    private let hub: PlayerHub
    private let now: @Sendable () -> Date
    private let onListening: @Sendable (_ host: String, _ port: Int) -> Void
    private let counters = Locked((connected: 0, open: 0))
    private let dropped = Locked(0)

    package init(
        configuration: Configuration, hub: PlayerHub, now: @escaping @Sendable () -> Date,
        onListening: @escaping @Sendable (_ host: String, _ port: Int) -> Void = { _, _ in }
    ) {
        self.configuration = configuration
        self.hub = hub
        self.now = now
        self.onListening = onListening
    }

    /// Clients connected so far, and open now.
    package var clients: (connected: Int, open: Int) { counters.withLock { $0 } }

    /// Reports dropped so far because a client read them too slowly, over all clients.
    package var droppedReports: Int { dropped.withLock { $0 } }

    /// Listens until the group shuts down (or the task is cancelled).
    ///
    /// - Throws: ``/LocationCore/ConfigurationError`` (`clientBuffer`) for a buffer under 8
    ///   reports, before anything listens; ``ListenError`` naming host and port when the port
    ///   cannot be bound.
    package func run() async throws {
        guard configuration.clientBuffer >= 8 else {
            throw ConfigurationError(
                parameter: "clientBuffer", "must be at least 8 reports, got \(configuration.clientBuffer)")
        }
        try await Self.listen(
            for: .gpsd, host: configuration.host, port: configuration.port, clientBuffer: configuration.clientBuffer,
            onDrop: { count in self.dropped.withLock { $0 += count } }, onListening: onListening
        ) { connection in await self.serve(connection) }
    }

    /// A client's connection: what it sends in, its outbox out.
    struct Connection: Sendable {
        let outbox: GPSDOutbox
        let channel: NIOAsyncChannel<ByteBuffer, Never>
    }

    /// The package's one TCP listener, for the line feeds (the gpsd protocol, `nmea serve`): binds
    /// `host:port` on SwiftNIO, says which port, and runs `serve` for each client until the group
    /// shuts down or the task is cancelled; the client's connection closes when `serve` returns.
    ///
    /// Each client's output goes through its own ``GPSDOutbox`` of `clientBuffer` items; `onDrop`
    /// counts those dropped for a slow reader.
    ///
    /// - Throws: ``ListenError`` naming `clients`, host and port when the name has no address
    ///   or the port cannot be bound.
    static func listen(
        for clients: ListenError.Clients, host: String, port: Int, clientBuffer: Int, onDrop: @escaping @Sendable (Int) -> Void,
        onListening: @Sendable (_ host: String, _ port: Int) -> Void, serve: @escaping @Sendable (Connection) async -> Void
    ) async throws {
        let server: NIOAsyncChannel<Connection, Never>
        do {
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .bind(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        // Output bypasses NIOAsyncChannel's writer (one hand-off less per
                        // report): the outbox writes on the channel, told when it may.
                        let outbox = GPSDOutbox(channel: channel, limit: clientBuffer, onDrop: onDrop)
                        try channel.pipeline.syncOperations.addHandler(GPSDOutbox.WritabilityHandler(outbox))
                        return Connection(
                            outbox: outbox, channel: try NIOAsyncChannel<ByteBuffer, Never>(wrappingChannelSynchronously: channel))
                    }
                }
        } catch let error as IOError {
            throw ListenError(clients: clients, host: host, port: port, errno: error.errnoCode)
        } catch let error as SocketAddressError.UnknownHost {
            throw ListenError(clients: clients, host: host, port: port, reason: "no such host (\(error.errorDescription))")
        } catch {
            throw ListenError(clients: clients, host: host, port: port, reason: "\(error)")
        }
        onListening(host, server.channel.localAddress?.port ?? port)
        // A stop (graceful, or the task cancelled) closes the listener and lets the accept loop run
        // out: the loop runs in a task of its own, which the stop does not cancel. Cancelling the
        // loop would drop a connection being accepted, unread, and its async channel would trap
        // as it became active (ConnectFailure's LateConnection; the outbox's handler closes such a
        // connection). The sessions end once the loop has.
        let accepting = Task {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask { await serve(connection) }
                    }
                }
                group.cancelAll()
            }
        }
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await accepting.value
            } onGracefulShutdown: {
                server.channel.close(promise: nil)
            }
        } onCancel: {
            server.channel.close(promise: nil)
        }
    }

    private func serve(_ connection: Connection) async {
        counters.withLock {
            $0.connected += 1
            $0.open += 1
        }
        defer { counters.withLock { $0.open -= 1 } }
        let outbox = connection.outbox
        do {
            try await connection.channel.executeThenClose { inbound in
                var session = GPSDSession(hub: hub, release: configuration.release, now: now)
                outbox.send(session.greeting, watch: session.watch)
                let subscription = hub.subscribe { outbox.offer($0) }
                defer { hub.unsubscribe(subscription) }
                // Hotplug, as gpsd reports a receiver plugged in or unplugged.
                let devices = hub.subscribeEvents { event in
                    switch event {
                    case .changed(let info, reason: PlayerHub.addedReason):
                        outbox.notice(GPSDReport.deviceAdded(path: info.device, activated: info.activated), about: info.device)
                    case .removed(let name):
                        let path = FeedPlayer.devicePrefix + name
                        outbox.notice(GPSDReport.deviceRemoved(path: path), about: path)
                    case .fix, .changed, .note:
                        break
                    }
                }
                defer { hub.unsubscribe(devices) }
                var pending: [UInt8] = []
                var discarding = false
                for try await buffer in inbound {
                    for byte in buffer.readableBytesView {
                        if byte == UInt8(ascii: "\n") {
                            if !discarding {
                                outbox.send(session.handle(line: String(decoding: pending, as: UTF8.self)), watch: session.watch)
                            }
                            pending.removeAll(keepingCapacity: true)
                            discarding = false
                        } else if !discarding {
                            pending.append(byte)
                            if pending.count > GPSDSession.maximumRequestLength {
                                outbox.send(
                                    GPSDReport.error("request longer than \(GPSDSession.maximumRequestLength) bytes"),
                                    watch: session.watch)
                                pending.removeAll(keepingCapacity: true)
                                discarding = true
                            }
                        }
                    }
                    // gpsd takes a request without a line end once it ends in ';', or at the end
                    // of the read once its JSON argument is complete (gps3 sends `?WATCH={…}` bare).
                    if !discarding, pending.last == UInt8(ascii: ";") || GPSDSession.isComplete(pending) {
                        outbox.send(session.handle(line: String(decoding: pending, as: UTF8.self)), watch: session.watch)
                        pending.removeAll(keepingCapacity: true)
                    }
                }
            }
        } catch {
            // The client hung up or reset the connection: its session ends, nothing else does.
            // (Errors of a single client are not the server's to report.)
        }
    }
}
