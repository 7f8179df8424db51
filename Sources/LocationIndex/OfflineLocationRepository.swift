package import LocationCore

/// The game's `GET /locations/nearby` answered from a local ``NearbyIndex``, so a replayed walk
/// spawns exactly the places it would against the server, reproducibly and offline.
///
/// ```swift
/// let repository = OfflineLocationRepository(index: try NearbyIndex(path: "places.sqlite"))
/// let places = try await repository.fetchNearby(lat: 35.68, lng: 139.76, radius: 5000)
/// ```
package struct OfflineLocationRepository: LocationRepository {
    /// The index queried.
    package let index: NearbyIndex
    /// At most this many places per answer (the nearest), or nil for all.
    package let limit: Int?

    /// - Parameters:
    ///   - index: The index to answer from.
    ///   - limit: Largest number of places returned, > 0, or nil (the default) for all within the radius.
    package init(index: NearbyIndex, limit: Int? = nil) {
        self.index = index
        self.limit = limit
    }

    /// Places within `radius` metres of `center`, nearest first (ties by id).
    ///
    /// - Throws: ``IndexError`` — ``IndexError/Code/invalidArgument`` for a radius outside
    ///   1 m … half the circumference, or SQLite failures.
    package func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] {
        try places(near: center, within: radius)
    }

    /// The answer ``fetchNearby(center:radius:)`` gives, synchronously on the calling thread (a
    /// virtual-time replay that owns its thread; an app calls `fetchNearby` off the main actor).
    ///
    /// - Throws: ``IndexError``, as ``fetchNearby(center:radius:)``.
    package func places(near center: Coordinate, within radius: Double) throws(IndexError) -> [Place] {
        try index.places(near: center, within: radius, limit: limit).map(\.place)
    }
}
