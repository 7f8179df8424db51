package import LocationCore
import Places

/// The game's `GET /locations/nearby` answered from PostGIS: the same places, in the same order,
/// as LocationIndex's `OfflineLocationRepository` over the same data.
///
/// ```swift
/// let store = try PostGISPlaceStore(url: try PostgresURL(parsing: "postgres://locsim@127.0.0.1/places"), logger: logger)
/// // keep `await store.run()` running in a task, then:
/// let places = try await PostGISLocationRepository(store: store).fetchNearby(lat: 35.68, lng: 139.76, radius: 5000)
/// ```
package struct PostGISLocationRepository: LocationRepository {
    /// The store queried (its ``PostGISPlaceStore/run()`` must be running).
    package let store: PostGISPlaceStore
    /// At most this many places per answer (the nearest), or nil for all.
    package let limit: Int?

    package init(store: PostGISPlaceStore, limit: Int? = nil) {
        self.store = store
        self.limit = limit
    }

    package func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] {
        try await store.places(near: center, within: radius, limit: limit).map(\.place)
    }
}
