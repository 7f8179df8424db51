#if Server && PostGIS
import LocationCore
import LocationIndex
import LocationPostGIS
import NearbyServer
import ServiceLifecycle

/// `serve --postgres`: the PostGIS store as the server's backend. A query that fails (server
/// down, no answer within the store's query timeout) becomes a 503 with `Retry-After`; the
/// pool reconnects on its own, so the server recovers without a restart.
struct PostGISSearch: NearbySearching {
    let store: PostGISPlaceStore

    func places(near center: Coordinate, within radius: Double, limit: Int?) async throws -> [Place] {
        try await store.places(near: center, within: radius, limit: limit).map(\.place)
    }

    func healthProblem() async -> String? {
        do {
            try await store.checkHealth()
            return nil
        } catch {
            return "backend postgres \(store.url.endpoint) is down: \(error)"
        }
    }
}

/// Runs the store's connection pool for as long as the server runs; it stops after the HTTP
/// server (services shut down in reverse order), so requests in flight can finish.
struct PostGISPoolService: Service {
    let store: PostGISPlaceStore

    func run() async throws {
        await cancelWhenGracefulShutdown { await store.run() }
    }
}
#endif  // Server && PostGIS
