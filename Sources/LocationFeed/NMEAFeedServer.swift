import LocationCore
import NIOCore

/// `locsim nmea serve`'s TCP side: every client gets the same text as it is broadcast, like
/// devices sharing one receiver; what a client sends is read and ignored.
///
/// On the gpsd feed's listener (``GPSDFeedServer``'s `listen`), so each client's output goes
/// through its own outbox: a client that reads slower than the sentences come loses its oldest
/// ones and slows nobody else, and one that hangs up is forgotten.
package final class NMEAFeedServer: Sendable {
    private let host: String
    private let port: Int
    private struct State {
        var clients: [ObjectIdentifier: GPSDOutbox] = [:]
        var served = 0
        var broadcasts = 0
    }
    private let state = Locked(State())
    /// Told of each client; ``waitForFirstClient()`` waits for the first.
    private let connected: AsyncStream<Void>
    private let connections: AsyncStream<Void>.Continuation

    /// Listens on `host:port` (port 0 picks a free one) once ``run(onListening:)`` runs.
    package init(host: String, port: Int) {
        self.host = host
        self.port = port
        (connected, connections) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// How many clients connected so far.
    package var clientsServed: Int { state.withLock { $0.served } }

    /// How many texts were broadcast so far.
    package var broadcasts: Int { state.withLock { $0.broadcasts } }

    /// Serves clients until the task is cancelled; `onListening` is told the port first.
    ///
    /// - Throws: ``/LocationCore/ListenError`` naming host and port when the name has no
    ///   address or the port cannot be bound.
    package func run(onListening: @Sendable (_ host: String, _ port: Int) -> Void) async throws {
        try await GPSDFeedServer.listen(
            for: .nmea, host: host, port: port, clientBuffer: 4096, onDrop: { _ in }, onListening: onListening
        ) { connection in
            self.state.withLock { state in
                state.clients[ObjectIdentifier(connection.outbox)] = connection.outbox
                state.served += 1
            }
            self.connections.yield()
            do {
                try await connection.channel.executeThenClose { inbound in
                    for try await _ in inbound {}  // until the client hangs up, or the server stops
                }
            } catch {
                // The client reset the connection: it is forgotten, nothing else ends.
            }
            self.state.withLock { _ = $0.clients.removeValue(forKey: ObjectIdentifier(connection.outbox)) }
        }
    }

    /// Returns once a client has connected (at once if one has); call it once.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    package func waitForFirstClient() async throws {
        var iterator = connected.makeAsyncIterator()
        guard await iterator.next() != nil else { throw CancellationError() }
    }

    /// Queues `text` for every client.
    package func broadcast(_ text: String) {
        let clients = state.withLock { state in
            state.broadcasts += 1
            return state.clients.values
        }
        for outbox in clients { outbox.send(text) }
    }
}
