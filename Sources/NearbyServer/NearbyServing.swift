package import LocationCore
package import LocationIndex
package import NIOCore

/// What a backend can add to being served, beyond ``/LocationCore/LocationRepository``: the
/// server's package-level extension point.
///
/// ``NearbyServer`` serves any `LocationRepository` (the SQLite index, PostGIS, the HTTP client
/// as a proxy, places in memory), asking `fetchNearby(center:radius:limit:)` for the places.
/// These needs are a server's alone, so they are not requirements of the public protocol an
/// app conforms to; a backend that has them conforms to this one as well:
///
/// - ``nearbyBody(near:within:limit:)``: the answer's JSON written straight from the backend's
///   own bytes (no `Place` values);
/// - ``healthProblem()`` and ``healthWarnings()``: `GET /healthz` for backends that can be down;
/// - ``backendGauges()``: `GET /metrics`'s `locsim_backend_up` and `locsim_backend_reads_total`.
package protocol NearbyServing: LocationRepository {
    /// The nearby answer's JSON body, `{"locations":[…]}`, for `fetchNearby(center:radius:limit:)`,
    /// and how many places it holds: the same bytes ``NearbyJSONWriter`` writes from the places.
    func nearbyBody(near center: Coordinate, within radius: Double, limit: Int?) async throws -> (body: ByteBuffer, places: Int)

    /// Nil when the backend can answer; otherwise which backend is down and why, for
    /// `GET /healthz` (answered 503 with that text). The default says nil.
    func healthProblem() async -> String?

    /// Backends that are down while the server still answers (a read replica down, the
    /// primary answering instead), one line each; `GET /healthz` answers 200 with `ok` and
    /// these lines. Asked only when ``healthProblem()`` is nil. The default says none.
    func healthWarnings() async -> [String]

    /// Each database behind the backend as it stands now (no check is made: `/metrics` is scraped
    /// often), for `GET /metrics`. The default says none (the SQLite index is the process's own file).
    func backendGauges() -> [BackendGauge]
}

/// One database behind a backend, for `GET /metrics`: `locsim_backend_up{role,endpoint}` (1 while
/// reads go to it, 0 while it is marked down) and `locsim_backend_reads_total{role,endpoint}`.
package struct BackendGauge: Sendable, Hashable {
    /// `primary`, `replica 1`…
    package var role: String
    /// `host:port`, never a URL (no password).
    package var endpoint: String
    package var isUp: Bool
    /// Reads it answered since the server started.
    package var reads: Int

    package init(role: String, endpoint: String, isUp: Bool, reads: Int) {
        self.role = role
        self.endpoint = endpoint
        self.isUp = isUp
        self.reads = reads
    }
}

extension NearbyServing {
    package func healthProblem() async -> String? { nil }
    package func healthWarnings() async -> [String] { [] }
    package func backendGauges() -> [BackendGauge] { [] }
}

/// The SQLite index: its rows written straight into the body; unhealthy once a query found the
/// file damaged (it stays so until rebuilt), or once its path names another file (a rebuild
/// published a new index there: the server reads the one it opened until restarted).
extension OfflineLocationRepository: NearbyServing {
    package func healthProblem() async -> String? {
        if let damage = index.damage { return "the place index is damaged: \(damage.description)" }
        return index.replacement.map(\.message)
    }

    package func nearbyBody(near center: Coordinate, within radius: Double, limit: Int?) async throws -> (body: ByteBuffer, places: Int) {
        try index.withNearbyRows(near: center, within: radius, limit: limit) { rows in
            var writer = NearbyJSONWriter(capacity: 0)
            writer.appendLocations(rows)
            return (writer.buffer, rows.count)
        }
    }
}
