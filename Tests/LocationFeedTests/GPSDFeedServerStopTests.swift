import Foundation
import LocSimTestHelpers
import LocationCore
import LocationFeed
import LocationSimulation
import Testing

/// Stopping the gpsd feed while clients connect.
@Suite(.timeLimit(.minutes(1)))
struct GPSDFeedServerStopTests {
    @Test("Clients connecting while the feed stops never bring it down: 40 stops by cancellation, each under a stream of new connections")
    func stopWhileConnecting() async throws {
        // Cancelling the accept loop could drop a connection being accepted, unread, and its async
        // channel would trap as it became active, as serve's HTTP listener did
        // (AbuseTests.stopWhileConnecting); not seen here with the loop cancelled either. The stop
        // now closes the listener and lets the loop run out: every stop ends, none traps.
        let player = try FeedPlayer(name: "alice", seed: 1, provider: try GPSDOutboxTests.walk(pacing: .virtual))
        let hub = try PlayerHub(players: [player], now: { Date() })
        for _ in 0..<40 {
            let (listening, listened) = AsyncStream.makeStream(of: Int.self)
            let server = GPSDFeedServer(
                configuration: .init(host: "127.0.0.1", port: 0, release: "locsim-test"), hub: hub, now: { Date() },
                onListening: { _, port in
                    listened.yield(port)
                    listened.finish()
                })
            let serverTask = Task { try await server.run() }
            guard let port = await listening.first(where: { _ in true }) else {
                try await serverTask.value
                throw HarnessError("the feed server stopped before it listened")
            }
            let churn = ConnectionChurn(port: port)
            // The stop comes while connections keep coming.
            await churn.wait(forConnections: 20)
            serverTask.cancel()
            try await serverTask.value
            await churn.stop()
        }
    }
}
