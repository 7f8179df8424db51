#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import NIOCore
import NIOPosix
public import ServiceLifecycle
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The gpsd protocol on a TCP port: every player of a ``PlayerHub`` is a device that gpsd
/// clients (`gpspipe`, libgps, Python's `gps`) watch as if a gpsd 3.22 served it.
///
/// A `Service` for the same `ServiceGroup` as the HTTP server: one runtime, one shutdown. Each
/// client gets `VERSION` on connect, then answers to its requests and, once it watches, the
/// reports of the players it watches. A client too slow to keep up loses its oldest reports, as a
/// gpsd client would, without slowing the others.
public final class GPSDFeedServer: Service, Sendable {
    /// Where to listen.
    public struct Configuration: Sendable {
        public var host: String
        /// 0 picks a free port (reported through `onListening`).
        public var port: Int
        /// The `release` and `rev` the `VERSION` report names.
        public var release: String

        public init(host: String = "127.0.0.1", port: Int = 2947, release: String) {
            self.host = host
            self.port = port
            self.release = release
        }
    }

    /// Why the server could not start.
    public struct ListenError: Error, Sendable, CustomStringConvertible {
        public let host: String
        public let port: Int
        public let reason: String
        public var description: String { "cannot listen for gpsd clients on \(host):\(port): \(reason)" }
    }

    /// Reports kept for a client that reads slower than they come; older ones are dropped.
    public static let clientBuffer = 4096

    private let configuration: Configuration
    private let hub: PlayerHub
    private let now: @Sendable () -> Date
    private let onListening: @Sendable (_ host: String, _ port: Int) -> Void
    private let counters = Mutex((connected: 0, open: 0))

    public init(
        configuration: Configuration, hub: PlayerHub, now: @escaping @Sendable () -> Date,
        onListening: @escaping @Sendable (_ host: String, _ port: Int) -> Void = { _, _ in }
    ) {
        self.configuration = configuration
        self.hub = hub
        self.now = now
        self.onListening = onListening
    }

    /// Clients connected so far, and open now.
    public var clients: (connected: Int, open: Int) { counters.withLock { $0 } }

    /// Listens until the group shuts down (or the task is cancelled).
    ///
    /// - Throws: ``ListenError`` naming host and port when the port cannot be bound.
    public func run() async throws {
        let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        do {
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .bind(host: configuration.host, port: configuration.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch let error as IOError {
            throw ListenError(host: configuration.host, port: configuration.port, reason: String(cString: strerror(error.errnoCode)))
        } catch {
            throw ListenError(host: configuration.host, port: configuration.port, reason: "\(error)")
        }
        onListening(configuration.host, server.channel.localAddress?.port ?? configuration.port)
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingDiscardingTaskGroup { group in
                    try await server.executeThenClose { connections in
                        for try await connection in connections {
                            group.addTask { await self.serve(connection) }
                        }
                    }
                }
            }
        } catch is CancellationError {
            // Shutdown (or the task's cancellation) closed the listener: the normal end.
        }
    }

    private enum Event: Sendable {
        case line(String)
        case tooLong
        case update(PlayerHub.Update)
    }

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        counters.withLock {
            $0.connected += 1
            $0.open += 1
        }
        defer { counters.withLock { $0.open -= 1 } }
        do {
            try await connection.executeThenClose { inbound, outbound in
                let (events, continuation) = AsyncStream.makeStream(
                    of: Event.self, bufferingPolicy: .bufferingNewest(Self.clientBuffer))
                let subscription = hub.subscribe { continuation.yield(.update($0)) }
                defer { hub.unsubscribe(subscription) }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        defer { continuation.finish() }
                        var pending: [UInt8] = []
                        var discarding = false
                        for try await buffer in inbound {
                            for byte in buffer.readableBytesView {
                                if byte == UInt8(ascii: "\n") {
                                    if !discarding { continuation.yield(.line(String(decoding: pending, as: UTF8.self))) }
                                    pending.removeAll(keepingCapacity: true)
                                    discarding = false
                                } else if !discarding {
                                    pending.append(byte)
                                    if pending.count > GPSDSession.maximumRequestLength {
                                        continuation.yield(.tooLong)
                                        pending.removeAll(keepingCapacity: true)
                                        discarding = true
                                    }
                                }
                            }
                            // gpsd takes a request without a line end once it ends in ';'.
                            if !discarding, pending.last == UInt8(ascii: ";") {
                                continuation.yield(.line(String(decoding: pending, as: UTF8.self)))
                                pending.removeAll(keepingCapacity: true)
                            }
                        }
                    }
                    var session = GPSDSession(hub: hub, release: configuration.release, now: now)
                    try await outbound.write(ByteBuffer(string: session.greeting))
                    for await event in events {
                        let text: String
                        switch event {
                        case .line(let line): text = session.handle(line: line)
                        case .tooLong:
                            text = GPSDReport.error("request longer than \(GPSDSession.maximumRequestLength) bytes")
                        case .update(let update): text = session.report(update)
                        }
                        if !text.isEmpty { try await outbound.write(ByteBuffer(string: text)) }
                    }
                    group.cancelAll()
                }
            }
        } catch {
            // The client hung up or reset the connection: its session ends, nothing else does.
            // (Errors of a single client are not the server's to report.)
        }
    }
}
