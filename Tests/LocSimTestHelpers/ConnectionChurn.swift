import LocationCore
import NIOCore
import NIOPosix

/// Clients that connect to a server on 127.0.0.1 and hang up at once, again and again: the
/// stream of new connections under which a test stops the server.
///
/// Each client awaits its connection (SwiftNIO, off the cooperative pool) and stops at the
/// first one refused (the listener has closed) or at ``stop()``; none spins.
public final class ConnectionChurn: Sendable {
    private let stopped = Locked(false)
    private let made: AsyncStream<Void>
    private let clients: [Task<Void, Never>]

    /// Starts `clients` clients of `port`.
    public init(port: Int, clients: Int = 4) {
        let (made, connected) = AsyncStream.makeStream(of: Void.self)
        self.made = made
        let live = Locked(clients)
        let stopped = self.stopped
        self.clients = (0..<clients).map { _ in
            Task {
                defer { if live.withLock({ $0 -= 1; return $0 == 0 }) { connected.finish() } }
                while !stopped.withLock({ $0 }) {
                    let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    guard let channel = try? await bootstrap.connect(host: "127.0.0.1", port: port).get() else {
                        return  // refused: the listener has closed
                    }
                    connected.yield()
                    try? await channel.close()
                }
            }
        }
    }

    /// Returns once `count` connections have been made, or every client has stopped.
    public func wait(forConnections count: Int) async {
        var seen = 0
        for await _ in made {
            seen += 1
            if seen >= count { return }
        }
    }

    /// Stops the clients and waits for them.
    public func stop() async {
        stopped.withLock { $0 = true }
        for client in clients { await client.value }
    }
}
