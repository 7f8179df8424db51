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
/// map logic runs against the real server, an offline index or a scripted test server alike.
///
/// The package's one nearby protocol, with one adapter per backend: the game server
/// (MapFeature's `HTTPLocationRepository`), places in memory and a scripted server
/// (LocationTestSupport's `InMemoryNearbyIndex` and `RecordingRepository`), and, inside the
/// package, the SQLite index and PostGIS. `locsim serve` serves any of them.
///
/// An app conforms with ``fetchNearby(center:radius:)`` alone; every other requirement has a
/// default. What only a server needs (a pre-written JSON body, health checks) is not here: it
/// is a package-level extension point of the server, so this public surface stays what an app
/// and its tests use.
public protocol LocationRepository: Sendable {
    /// Places within `radius` metres of `center`, nearest first.
    ///
    /// - Parameters:
    ///   - center: The query point.
    ///   - radius: Radius in metres, > 0.
    func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place]

    /// The nearest `limit` places of ``fetchNearby(center:radius:)``, or all for `nil`: a
    /// server's `limit` parameter. The default cuts the full answer; a backend that can stop
    /// early does so.
    func fetchNearby(center: Coordinate, radius: Double, limit: Int?) async throws -> [Place]

    /// The answer to a request sent `time` after a virtual-time replay's first fix, at once, and
    /// how long after the request it arrives: what `MapReplayLoop` asks, placing the answer in
    /// virtual time itself.
    ///
    /// It runs on the caller's executor (`nonisolated(nonsending)`): a conformer that answers
    /// synchronously, such as an offline index, costs the loop no thread hop per request. The
    /// default asks ``fetchNearby(center:radius:)`` and reports no latency (`nil`: the loop's
    /// own); a scripted server reports its scripted one.
    ///
    /// - Returns: The answer, and its latency (≥ 0; negative counts as zero), or `nil` for the loop's.
    nonisolated(nonsending) func respond(center: Coordinate, radius: Double, at time: Duration)
        async -> (result: Result<[Place], any Error>, latency: Duration?)
}

extension LocationRepository {
    /// The seed's spelling, `fetchNearby(lat:lng:radius:)`, validating the raw numbers.
    ///
    /// - Throws: ``CoordinateError`` for an invalid `lat` or `lng`, then whatever the repository throws.
    public func fetchNearby(lat: Double, lng: Double, radius: Double) async throws -> [Place] {
        try await fetchNearby(center: Coordinate(latitude: lat, longitude: lng), radius: radius)
    }

    /// The first `limit` places of ``fetchNearby(center:radius:)``.
    public func fetchNearby(center: Coordinate, radius: Double, limit: Int?) async throws -> [Place] {
        let all = try await fetchNearby(center: center, radius: radius)
        guard let limit, all.count > limit else { return all }
        return Array(all.prefix(limit))
    }

    /// ``fetchNearby(center:radius:)``'s answer, with the loop's latency.
    nonisolated(nonsending) public func respond(center: Coordinate, radius: Double, at time: Duration)
        async -> (result: Result<[Place], any Error>, latency: Duration?)
    {
        do {
            return (.success(try await fetchNearby(center: center, radius: radius)), nil)
        } catch {
            return (.failure(error), nil)
        }
    }
}
