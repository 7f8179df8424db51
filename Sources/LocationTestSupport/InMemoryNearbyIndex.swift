public import LocationCore
public import MapFeature

/// A nearby-places repository over places held in memory: the offline index for tests that need
/// no database.
///
/// Answers like the game server's `GET /locations/nearby`: every place whose great-circle
/// distance (``/LocationCore/Coordinate/distance(to:)``) from the centre is at most the radius,
/// nearest first, ties broken by id. Places are bucketed by LocationCore's `SphereCells` (cubes
/// about 10 km wide, the same prefilter as MapFeature's `EncounterTracker`), so a 5 km query over
/// 144,000 places looks at a few hundred, at the poles and across ±180° too; a query wider than
/// the cubes help with measures every place.
///
/// ```swift
/// let index = InMemoryNearbyIndex(places: shrines)
/// let near = try await index.fetchNearby(center: here, radius: 5_000)
/// ```
public struct InMemoryNearbyIndex: LocationRepository {
    /// Every place, in the order given.
    public let places: [Place]

    private let cells: SphereCells
    /// The radius the cubes are sized for: a 5 km query (the game's) visits at most eight.
    private static let cellRadius = 2_500.0

    /// Indexes `places`.
    public init(places: [Place]) {
        self.places = places
        cells = SphereCells(places, radius: Self.cellRadius)
    }

    /// Places within `radius` metres of `center`, nearest first (ties by id).
    ///
    /// - Parameters:
    ///   - center: The query point.
    ///   - radius: Metres, finite and > 0.
    /// - Throws: ``/MapFeature/AppError`` with code ``/MapFeature/AppError/Code/validation`` and
    ///   parameter `radius` for a radius that is not finite and positive.
    public func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] {
        try nearby(center: center, radius: radius)
    }

    /// The synchronous query behind ``fetchNearby(center:radius:)``.
    public func nearby(center: Coordinate, radius: Double) throws(AppError) -> [Place] {
        guard radius.isFinite, radius > 0 else {
            throw .validation("radius must be a finite number of metres > 0, got \(radius)", parameter: "radius")
        }
        var found: [(distance: Double, place: Place)] = []
        let origin = HaversineOrigin(center)  // bit-identical to center.distance(to:)
        cells.forEachCandidate(near: center, radius: radius) { index in
            let place = places[index]
            let distance = origin.distance(to: place.coordinate)
            if distance <= radius { found.append((distance, place)) }
        }
        found.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.place.id < $1.place.id }
        return found.map(\.place)
    }
}
