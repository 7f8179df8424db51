/// A source of location fixes: a live receiver, a replayed track or synthetic motion.
///
/// Providers are `AsyncSequence`s of ``Fix``. Iteration ends when the source is exhausted or the
/// consuming task is cancelled (promptly: a provider never blocks cancellation on a sleep or a
/// socket). Failures are thrown from `next()`, never printed. Time-dependent providers take an
/// injected `Clock`, so the same provider runs in real time or in virtual time in a test.
///
/// Live sources keep only the newest fix when the consumer is slow; replays use back-pressure and
/// wait for the consumer.
public protocol LocationProvider: AsyncSequence, Sendable where Element == Fix {}

/// The game's nearby-places query, `GET /locations/nearby?lat=&lng=&radius=`, as a protocol, so the
/// map logic runs against the real server or an offline index alike.
public protocol LocationRepository: Sendable {
    /// Places within `radius` metres of `center`, nearest first.
    ///
    /// - Parameters:
    ///   - center: The query point.
    ///   - radius: Radius in metres, > 0.
    func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place]
}

extension LocationRepository {
    /// The seed's spelling, `fetchNearby(lat:lng:radius:)`, validating the raw numbers.
    ///
    /// - Throws: ``CoordinateError`` for an invalid `lat` or `lng`, then whatever the repository throws.
    public func fetchNearby(lat: Double, lng: Double, radius: Double) async throws -> [Place] {
        try await fetchNearby(center: Coordinate(latitude: lat, longitude: lng), radius: radius)
    }
}
