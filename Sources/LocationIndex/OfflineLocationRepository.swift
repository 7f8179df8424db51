package import LocationCore

/// The game's `GET /locations/nearby` answered from a local ``NearbyIndex``, so a replayed walk
/// spawns exactly the places it would against the server, reproducibly and offline: the SQLite
/// backend's one adapter, for the map logic, the virtual-time replay and `locsim serve` (whose
/// module adds the body written straight from the index's rows to it).
///
/// ```swift
/// let repository = OfflineLocationRepository(index: try NearbyIndex(path: "places.sqlite"))
/// let places = try await repository.fetchNearby(lat: 35.68, lng: 139.76, radius: 5000)
/// ```
package struct OfflineLocationRepository: LocationRepository {
    /// The index queried.
    package let index: NearbyIndex

    /// - Parameter index: The index to answer from (read-only access is enough).
    package init(index: NearbyIndex) { self.index = index }

    /// Places within `radius` metres of `center`, nearest first (ties by id).
    ///
    /// - Throws: ``IndexError`` — ``IndexError/Code/invalidArgument`` for a radius outside
    ///   1 m … half the circumference, or SQLite failures.
    package func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] {
        try places(near: center, within: radius, limit: nil)
    }

    /// The nearest `limit`, cut inside the query.
    package func fetchNearby(center: Coordinate, radius: Double, limit: Int?) async throws -> [Place] {
        try places(near: center, within: radius, limit: limit)
    }

    /// The answer at once, on the replay's executor (zero latency): a 24-hour replay's thousands
    /// of queries cost no thread hop each.
    package nonisolated(nonsending) func respond(center: Coordinate, radius: Double, at time: Duration)
        async -> (result: Result<[Place], any Error>, latency: Duration?)
    {
        do {
            return (.success(try places(near: center, within: radius, limit: nil)), .zero)
        } catch {
            return (.failure(error), .zero)
        }
    }

    /// The answer's places made straight from the index's rows (no ``NearbyPlace`` array between:
    /// an answer of thousands of places is copied once, not twice).
    private func places(near center: Coordinate, within radius: Double, limit: Int?) throws(IndexError) -> [Place] {
        try index.withNearbyRows(near: center, within: radius, limit: limit) { rows in
            (0..<rows.count).map { rows.place(at: $0).place }
        }
    }
}
