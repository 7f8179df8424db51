#if Server && PostGIS
import LocationCore
import LocationIndex
import LocationPostGIS
import NIOCore
import NearbyServer
import ServiceLifecycle

/// The game's `GET /locations/nearby` answered from PostGIS, the PostGIS backend's one adapter:
/// the same places, in the same order, as the SQLite index's `OfflineLocationRepository` over
/// the same data. `serve --postgres [--replica …]` serves it through a ``PostGISReadRouter``
/// (reads round robin over the replicas, failing over to the primary). A read no backend can
/// answer becomes a 503 with `Retry-After`; the router checks a down backend again with
/// back-off, so the server recovers without a restart.
struct PostGISRepository: NearbyServing {
    let router: PostGISReadRouter

    func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] {
        try await fetchNearby(center: center, radius: radius, limit: nil)
    }

    func fetchNearby(center: Coordinate, radius: Double, limit: Int?) async throws -> [Place] {
        try await router.places(near: center, within: radius, limit: limit).map(\.place)
    }

    /// The JSON written straight from the tiles' bytes (no `Place` values, no `String` per id or
    /// name): the same body the server writes from the places.
    func nearbyBody(near center: Coordinate, within radius: Double, limit: Int?) async throws -> (body: ByteBuffer, places: Int) {
        try await router.withNearbyRows(near: center, within: radius, limit: limit) { rows in
            var writer = NearbyJSONWriter(capacity: 0)
            writer.appendLocations(count: rows.count, textBytes: rows.textByteCount) { position in
                let row = rows.row(at: position)
                return (row.id, row.name, row.kind, row.coordinate, row.level)
            }
            return (writer.buffer, rows.count)
        }
    }

    /// 503 when no backend is up, naming each (`backend postgres 127.0.0.1:5432 (primary) is down: …`).
    func healthProblem() async -> String? {
        let status = await router.checkHealth()
        guard !status.contains(where: \.isUp) else { return nil }
        return status.map { "backend \($0)" }.joined(separator: "\n")
    }

    /// 200 with a line per backend that is down while another answers.
    func healthWarnings() async -> [String] {
        router.status().filter { !$0.isUp }.map { "backend \($0)" }
    }

    /// Each backend as the router knows it (no check is made), replicas first.
    func backendGauges() -> [BackendGauge] {
        router.status().map { BackendGauge(role: "\($0.role)", endpoint: $0.endpoint, isUp: $0.isUp, reads: $0.reads) }
    }
}

/// Runs the backends' connection pools and their recovery checks for as long as the server
/// runs; it stops after the HTTP server (services shut down in reverse order), so requests in
/// flight can finish.
struct PostGISPoolService: Service, CustomStringConvertible {
    let router: PostGISReadRouter
    /// How the service group's log names it (never a connection's settings).
    var description: String { "PostGISPoolService" }

    func run() async throws {
        await cancelWhenGracefulShutdown { await router.run() }
    }
}
#endif  // Server && PostGIS
